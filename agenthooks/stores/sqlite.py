"""``SQLiteStore``: sessions in one SQLite file, the embedded default.

The standard library's ``sqlite3`` in a worker thread (``asyncio.to_thread``), so the event
loop never waits on the disk or on another process's lock, and no dependency is added. The
file is in WAL mode (readers never block the writer); a transaction that changes state starts
with ``BEGIN IMMEDIATE``, which takes the file's write lock at once, so two processes never
interleave their reads and conditional writes; a busy file is waited on for ``timeout``
seconds.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from .sql import SQLStore, Tx


class _SQLiteTx:
    __slots__ = ("_conn",)

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        cursor = await asyncio.to_thread(self._conn.execute, sql, tuple(params))
        return cursor.rowcount

    async def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        def run() -> list[tuple[Any, ...]]:
            return list(self._conn.execute(sql, tuple(params)).fetchall())

        return await asyncio.to_thread(run)


class SQLiteStore(SQLStore):
    """Sessions in the SQLite file ``path`` (created with its directory's existing parent).

    ``SQLiteStore(path)``; ``prefix`` starts the table names; ``timeout`` is how long a
    write waits for another process's lock. Safe to share between processes: every change of
    state is one ``BEGIN IMMEDIATE`` transaction.
    """

    def __init__(
        self, path: str | os.PathLike[str], *, prefix: str = "agenthooks_", timeout: float = 30.0
    ) -> None:
        super().__init__(prefix)
        self.path = Path(path)
        self.timeout = timeout
        self._conn: sqlite3.Connection | None = None
        self._lock = asyncio.Lock()

    def __repr__(self) -> str:
        return f"SQLiteStore({str(self.path)!r})"

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(
            self.path, timeout=self.timeout, isolation_level=None, check_same_thread=False
        )
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        return conn

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Tx]:
        # one transaction at a time on this store's connection; other processes wait on the
        # file's lock (BEGIN IMMEDIATE), up to ``timeout``
        async with self._lock:
            conn = self._conn
            if conn is None:
                conn = self._conn = await asyncio.to_thread(self._connect)
            await asyncio.to_thread(conn.execute, "BEGIN IMMEDIATE")
            try:
                yield _SQLiteTx(conn)
            except BaseException:
                await asyncio.shield(asyncio.to_thread(conn.execute, "ROLLBACK"))
                raise
            await asyncio.shield(asyncio.to_thread(conn.execute, "COMMIT"))

    async def aclose(self) -> None:
        """Close the file (reopened on the next use)."""
        async with self._lock:
            conn, self._conn = self._conn, None
            if conn is not None:
                await asyncio.to_thread(conn.close)


__all__ = ["SQLiteStore"]
