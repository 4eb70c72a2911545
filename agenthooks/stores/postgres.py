"""``PostgresStore``: sessions in PostgreSQL, through psycopg 3's async API.

Install the extra: ``pip install 'agenthooks[postgres]'``. A read that precedes a change
locks its row (``SELECT ... FOR UPDATE``) and every change is conditional on the version or
the owner, so processes on any number of machines share one database safely. Migrations take
a transaction-level advisory lock, so two processes starting at once migrate once.

Connections come from a ``psycopg_pool`` pool that checks each one before lending it, so a
connection the server dropped (a restart, ``pg_terminate_backend``, a failover) is replaced,
never used. A transaction the server rolled back because its connection was lost is tried
again on a fresh connection while ``timeout`` lasts; a commit left unanswered is read back
(see ``sql.py``). Then a ``StoreError`` names the store, the operation and the session.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import zlib
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from ..errors import StoreError
from .sql import CommitUnknown, Failure, SQLStore, Tx, check_name, time_left

if TYPE_CHECKING:
    import psycopg
    from psycopg_pool import AsyncConnectionPool


_CONNECT = 1.0
"""Seconds an operation with no time left (the recovery after a failed write) still waits
for a connection: after an outage, the pool makes a new one."""


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
    """Sessions in a PostgreSQL database, safe to share between processes.

    Needs the ``postgres`` extra (psycopg 3 and psycopg_pool); the pool opens on first use.

    Args:
        dsn: Where the database is: ``postgresql://user@host:5432/db`` or a libpq keyword
            string.
        schema: The schema that holds the tables (created if missing); ``None`` (default):
            the connection's search path.
        prefix: What the table names start with (letters, digits and ``_``).
        timeout: Seconds one operation may wait for a connection and retry a lost one.
        pool_size: The most connections the pool opens.

    Raises:
        StoreError: ``schema`` or ``prefix`` is not a valid name.
    """

    for_update = " FOR UPDATE"

    def __init__(
        self,
        dsn: str,
        *,
        schema: str | None = None,
        prefix: str = "agenthooks_",
        timeout: float = 30.0,
        pool_size: int = 4,
    ) -> None:
        qualifier = "" if schema is None else f'"{check_name(schema, "schema")}".'
        super().__init__(prefix, qualifier)
        self.dsn = dsn
        self.schema = schema
        self.timeout = float(timeout)
        """Seconds one operation may wait for a connection and retry a lost one."""
        self.pool_size = pool_size
        self._pool: AsyncConnectionPool[Any] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def __repr__(self) -> str:
        where = f", schema={self.schema!r}" if self.schema else ""
        return f"PostgresStore({_safe(self.dsn)!r}{where})"

    async def _open(self) -> AsyncConnectionPool[Any]:
        loop = asyncio.get_running_loop()
        if self._pool is not None and self._loop is loop:
            return self._pool
        try:
            import psycopg
            from psycopg_pool import AsyncConnectionPool
        except ImportError as exc:
            raise StoreError(
                f"{self!r} needs psycopg 3 and psycopg_pool ({exc.name or 'psycopg'} is not "
                "installed): pip install 'agenthooks[postgres]'",
                store=repr(self),
            ) from None
        if self._pool is None:
            # the first connection is made here, once: a server that does not answer at all
            # (a wrong host, port, database or password) fails now, not after ``timeout``
            # of the retries meant for a server that went away
            try:
                first = await psycopg.AsyncConnection.connect(
                    self.dsn, connect_timeout=max(1, int(self.timeout))
                )
            except psycopg.Error as exc:
                raise StoreError(
                    f"{self!r}: cannot connect: {self.describe(exc)}", store=repr(self)
                ) from exc
            await first.close()
        # a pool lives on the loop that opened it (its workers are that loop's tasks): a
        # store used from another loop (one asyncio.run after another) opens its own
        pool: AsyncConnectionPool[Any] = AsyncConnectionPool(
            self.dsn,
            connection_class=psycopg.AsyncConnection,
            kwargs={"autocommit": False},
            min_size=1,
            max_size=max(1, self.pool_size),
            open=False,
            check=self._check,
            timeout=self.timeout,
            # a server that stays away: the pool stops its own attempts after ``timeout``
            # (the next operation starts a new one) rather than backing off for minutes
            reconnect_timeout=max(self.timeout, 1.0),
            name=repr(self),
        )
        await pool.open(wait=False)
        self._pool, self._loop = pool, loop
        return pool

    async def _check(self, conn: psycopg.AsyncConnection[Any]) -> None:
        """The pool's check of a connection before lending it. One the server dropped means
        the others idle beside it likely went too (a restart): they are all checked at once,
        rather than one per pool backoff step (a second apart, then two...)."""
        from psycopg_pool import AsyncConnectionPool

        try:
            await AsyncConnectionPool.check_connection(conn)
        except Exception:
            if self._pool is not None:
                await self._pool.check()
            raise

    @asynccontextmanager
    async def transaction(self, write: bool = True) -> AsyncIterator[Tx]:
        """A transaction on a connection of the pool: committed when the block ends, rolled
        back on an exception. ``write`` changes nothing here: PostgreSQL readers never wait for
        writers."""
        pool = await self._open()  # first: it says which extra is missing
        import psycopg

        # what is left of the operation's deadline (a retry never waits a whole timeout
        # again); with none left, one try still has the time to connect afresh
        wait = max(time_left(self.timeout), min(self.timeout, _CONNECT))
        async with pool.connection(timeout=wait) as conn:
            try:
                yield _PostgresTx(conn)
            except BaseException:
                if not conn.broken:
                    with contextlib.suppress(psycopg.Error):
                        await asyncio.shield(conn.rollback())
                raise
            try:
                await asyncio.shield(conn.commit())
            except psycopg.OperationalError as exc:
                raise CommitUnknown(exc) from exc

    def failure(self, exc: BaseException) -> Failure | None:
        """A lost connection, a pool that found none in time, a serialization failure or a
        deadlock: the transaction was rolled back, try again; any other database error
        fails at once."""
        try:
            import psycopg
        except ImportError:  # no driver, so not its error (``_open`` says what is missing)
            return None

        if isinstance(exc, psycopg.OperationalError):
            return "retry"
        if isinstance(exc, (psycopg.Error, OSError)):
            return "fail"
        return None

    def describe(self, exc: BaseException) -> str:
        """The driver's error in one line."""
        return f"{type(exc).__name__}: {' '.join(str(exc).split())}"

    async def lock_schema(self, tx: Tx) -> None:
        """Take the advisory lock that keeps other processes out of the migration, then create
        the schema if the store has one."""
        key = zlib.crc32(f"agenthooks:{self.schema or ''}:{self.prefix}".encode())
        await tx.execute("SELECT pg_advisory_xact_lock(?)", (key,))
        if self.schema is not None:  # under the lock: two processes never race to create it
            await tx.execute(f'CREATE SCHEMA IF NOT EXISTS "{self.schema}"')

    async def aclose(self) -> None:
        """Close the pool's connections (a pool opens again on the next use)."""
        pool, self._pool, self._loop = self._pool, None, None
        if pool is not None:
            await pool.close()


def _safe(dsn: str) -> str:
    """``dsn`` without a password, for messages."""
    return re.sub(r"(://[^:/@]+):[^@]*@", r"\1:***@", dsn)


__all__ = ["PostgresStore"]
