"""Where sessions live between processes: ``SQLiteStore(path)`` (embedded, the standard
library's sqlite3) and ``PostgresStore(dsn)`` (psycopg 3, async; ``pip install
'agenthooks[postgres]'``).

    store = SQLiteStore("sessions.db")
    session = Session(agent, store=store, session_id="ticket-42")
    response = await session.chat("Refund order 7")        # finish_reason == "paused"
    # ... in any process, later:
    await Session(agent, store=store, session_id="ticket-42").resume({call_id: Approve()})
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .base import Progress, Release, SessionRow, Status, Store
from .migrations import LATEST as SCHEMA_VERSION
from .sqlite import SQLiteStore
from .url import open_store

if TYPE_CHECKING:
    from .postgres import PostgresStore


def __getattr__(name: str) -> Any:
    # psycopg is an optional extra: importing agenthooks.stores never needs it
    if name == "PostgresStore":
        from .postgres import PostgresStore

        return PostgresStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "SCHEMA_VERSION",
    "PostgresStore",
    "Progress",
    "Release",
    "SQLiteStore",
    "SessionRow",
    "Status",
    "Store",
    "open_store",
]
