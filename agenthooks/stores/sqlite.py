"""``SQLiteStore``: sessions in one SQLite file, the embedded default.

The standard library's ``sqlite3`` in a worker thread (``asyncio.to_thread``), so the event
loop never waits on the disk or on another process's lock, and no dependency is added. The
file is in WAL mode (readers never block the writer); a transaction that changes state starts
with ``BEGIN IMMEDIATE``, which takes the file's write lock at once, so two processes never
interleave their reads and conditional writes; a transaction that only reads starts with a
plain ``BEGIN`` and waits for no writer.

``timeout`` bounds one operation's whole wait: for this store's other operations in this
process and for another process's lock on the file together. A file still locked then, one
that is read-only or cannot be opened, is a ``StoreError`` naming the file.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from .sql import Failure, SQLStore, Tx, time_left

_GRACE = 0.01
"""Seconds an operation with no time left still waits for this store's connection."""


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
    """Sessions in one SQLite file, safe to share between processes.

    Every change of state is one ``BEGIN IMMEDIATE`` transaction.

    Args:
        path: The database file; created if missing (its directory must exist).
        prefix: What the table names start with (letters, digits and ``_``).
        timeout: Seconds one operation waits, in all, for this store's other operations and
            another process's lock on the file before it fails with a ``StoreError``.

    Raises:
        StoreError: ``prefix`` is not a valid name.
    """

    def __init__(
        self, path: str | os.PathLike[str], *, prefix: str = "agenthooks_", timeout: float = 30.0
    ) -> None:
        super().__init__(prefix)
        self.path = Path(path)
        self.timeout = float(timeout)
        self._conn: sqlite3.Connection | None = None
        self._lock = asyncio.Lock()

    def __repr__(self) -> str:
        return f"SQLiteStore({str(self.path)!r})"

    def _connect(self, wait: float) -> sqlite3.Connection:
        # ``wait``: switching a new file to WAL waits for its lock like any transaction
        conn = sqlite3.connect(
            self.path, timeout=wait, isolation_level=None, check_same_thread=False
        )
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        return conn

    @asynccontextmanager
    async def transaction(self, write: bool = True) -> AsyncIterator[Tx]:
        """A transaction on the store's connection: committed when the block ends, rolled back
        on an exception; ``write=False`` for one that only reads and waits for no writer."""
        # one transaction at a time on this store's connection; the wait for it and for
        # another process's lock on the file (SQLite's busy timeout) share one ``timeout``,
        # or what is left of the operation's deadline (``sql.deadline``)
        loop = asyncio.get_running_loop()
        wait = time_left(self.timeout)
        until = loop.time() + wait
        try:
            # with no time left, a free connection is still taken (the grace: a loop turn)
            await asyncio.wait_for(self._lock.acquire(), max(wait, _GRACE))
        except asyncio.TimeoutError:
            raise sqlite3.OperationalError("database is locked") from None
        try:
            conn = self._conn
            if conn is None:
                left = max(0.0, until - loop.time())
                conn = self._conn = await asyncio.to_thread(self._connect, left)
            left = max(0.0, until - loop.time())
            await asyncio.to_thread(_begin, conn, left, "BEGIN IMMEDIATE" if write else "BEGIN")
            try:
                yield _SQLiteTx(conn)
            except BaseException:
                await asyncio.shield(asyncio.to_thread(conn.execute, "ROLLBACK"))
                raise
            await asyncio.shield(asyncio.to_thread(conn.execute, "COMMIT"))
        finally:
            self._lock.release()

    def failure(self, exc: BaseException) -> Failure | None:
        """Every SQLite error fails at once: a lock was already waited on for ``timeout``."""
        return "fail" if isinstance(exc, (sqlite3.Error, OSError)) else None

    def describe(self, exc: BaseException) -> str:
        """SQLite's error, naming the file and what to do about it."""
        text = str(exc)
        if "locked" in text or "busy" in text:
            return (
                f"the file {str(self.path)!r} is locked by another writer (waited "
                f"{self.timeout:g} s; SQLiteStore(timeout=...) sets the wait)"
            )
        if "readonly" in text or "read-only" in text:
            return f"the file {str(self.path)!r} is read-only ({text})"
        if "unable to open" in text:
            return f"the file {str(self.path)!r} cannot be opened ({text})"
        return f"{type(exc).__name__}: {text} (file {str(self.path)!r})"

    async def aclose(self) -> None:
        """Close the file (reopened on the next use)."""
        async with self._lock:
            conn, self._conn = self._conn, None
            if conn is not None:
                await asyncio.to_thread(conn.close)


def _begin(conn: sqlite3.Connection, seconds: float, begin: str) -> None:
    """Start a transaction, waiting at most ``seconds`` for another process's lock."""
    conn.execute(f"PRAGMA busy_timeout = {int(seconds * 1000)}")
    conn.execute(begin)


__all__ = ["SQLiteStore"]
