"""``PostgresStore``: sessions in PostgreSQL, through psycopg 3's async API.

Install the extra: ``pip install 'agenthooks[postgres]'``. A read that precedes a change
locks its row (``SELECT ... FOR UPDATE``) and every change is conditional on the version or
the owner, so processes on any number of machines share one database safely. Migrations take
a transaction-level advisory lock, so two processes starting at once migrate once.
"""

from __future__ import annotations

import asyncio
import re
import zlib
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from ..errors import StoreError
from .sql import SQLStore, Tx, check_name

if TYPE_CHECKING:
    import psycopg


class _PostgresTx:
    __slots__ = ("_conn",)

    def __init__(self, conn: psycopg.AsyncConnection[Any]) -> None:
        self._conn = conn

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        cursor = await self._conn.execute(_placeholders(sql), tuple(params))
        return cursor.rowcount

    async def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        cursor = await self._conn.execute(_placeholders(sql), tuple(params))
        return list(await cursor.fetchall())


def _placeholders(sql: str) -> str:
    # the shared SQL writes qmark parameters; psycopg takes %s (no literal % in our SQL)
    return sql.replace("?", "%s")


class PostgresStore(SQLStore):
    """Sessions in the PostgreSQL database ``dsn`` (``postgresql://user@host:5432/db`` or a
    libpq keyword string).

    ``schema`` puts the tables in that schema (created if missing; default: the connection's
    search path), ``prefix`` starts their names.
    """

    for_update = " FOR UPDATE"

    def __init__(self, dsn: str, *, schema: str | None = None, prefix: str = "agenthooks_") -> None:
        qualifier = "" if schema is None else f'"{check_name(schema, "schema")}".'
        super().__init__(prefix, qualifier)
        self.dsn = dsn
        self.schema = schema
        self._conn: psycopg.AsyncConnection[Any] | None = None
        self._lock = asyncio.Lock()

    def __repr__(self) -> str:
        where = f", schema={self.schema!r}" if self.schema else ""
        return f"PostgresStore({_safe(self.dsn)!r}{where})"

    async def _connect(self) -> psycopg.AsyncConnection[Any]:
        try:
            import psycopg
        except ImportError:  # pragma: no cover - the extra is part of the dev install
            raise StoreError(
                "PostgresStore needs psycopg 3: pip install 'agenthooks[postgres]'"
            ) from None
        conn = await psycopg.AsyncConnection.connect(self.dsn, autocommit=False)
        if self.schema is not None:
            await conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{self.schema}"')
            await conn.commit()
        return conn

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Tx]:
        async with self._lock:  # one connection: one transaction at a time in this process
            conn = self._conn
            if conn is None or conn.closed:
                conn = self._conn = await self._connect()
            try:
                yield _PostgresTx(conn)
            except BaseException:
                await asyncio.shield(conn.rollback())
                raise
            await asyncio.shield(conn.commit())

    async def lock_schema(self, tx: Tx) -> None:
        key = zlib.crc32(f"agenthooks:{self.schema or ''}:{self.prefix}".encode())
        await tx.execute("SELECT pg_advisory_xact_lock(?)", (key,))

    async def aclose(self) -> None:
        """Close the connection (reopened on the next use)."""
        async with self._lock:
            conn, self._conn = self._conn, None
            if conn is not None:
                await conn.close()


def _safe(dsn: str) -> str:
    """``dsn`` without a password, for messages."""
    return re.sub(r"(://[^:/@]+):[^@]*@", r"\1:***@", dsn)


__all__ = ["PostgresStore"]
