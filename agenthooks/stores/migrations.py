"""The stores' schema, as numbered migrations: each runs once, in order, in the transaction
that records it. A database whose schema is newer than this version of agenthooks knows is
refused (``StoreError``), never written to.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from ..errors import StoreError

if TYPE_CHECKING:
    from .sql import SQLStore, Tx

MIGRATIONS: tuple[tuple[int, str, tuple[str, ...]], ...] = (
    (
        1,
        "sessions and their messages",
        (
            "CREATE TABLE {sessions} ("
            " id TEXT PRIMARY KEY,"
            " agent TEXT NOT NULL,"
            " status TEXT NOT NULL DEFAULT 'idle',"
            " version INTEGER NOT NULL DEFAULT 0,"
            " owner TEXT,"
            " lease_until DOUBLE PRECISION,"
            " started INTEGER NOT NULL DEFAULT 0,"
            " denied TEXT,"
            " paused TEXT,"
            " journal TEXT,"
            " created_at DOUBLE PRECISION NOT NULL,"
            " updated_at DOUBLE PRECISION NOT NULL)",
            "CREATE TABLE {messages} ("
            " session_id TEXT NOT NULL,"
            " position INTEGER NOT NULL,"
            " body TEXT NOT NULL,"
            " PRIMARY KEY (session_id, position))",
        ),
    ),
    (
        2,
        "find paused sessions without a scan",
        ("CREATE INDEX {prefix}sessions_by_status ON {sessions} (status, updated_at)",),
    ),
)
"""(version, what it does, statements); ``{sessions}``, ``{messages}`` and ``{prefix}`` are
filled in per store."""

LATEST = MIGRATIONS[-1][0]
"""The schema version this agenthooks writes."""


async def migrate(store: SQLStore, tx: Tx) -> int:
    """Apply the migrations ``store``'s database lacks, inside ``tx``; returns the version."""
    await store.lock_schema(tx)
    schema = store.table("schema")
    await tx.execute(
        f"CREATE TABLE IF NOT EXISTS {schema} (version INTEGER PRIMARY KEY, "
        "description TEXT NOT NULL, applied_at DOUBLE PRECISION NOT NULL)"
    )
    rows = await tx.fetch(f"SELECT MAX(version) FROM {schema}")
    current = int(rows[0][0] or 0)
    if current > LATEST:
        raise StoreError(
            f"the store's schema is at version {current}, newer than this agenthooks knows "
            f"({LATEST}): upgrade agenthooks to use it"
        )
    names = {
        "sessions": store.table("sessions"),
        "messages": store.table("messages"),
        # an index name takes no schema qualifier in PostgreSQL (it lives in its table's)
        "prefix": store.prefix,
    }
    for version, description, statements in MIGRATIONS:
        if version <= current:
            continue
        for statement in statements:
            await tx.execute(statement.format(**names))
        await tx.execute(
            f"INSERT INTO {schema} (version, description, applied_at) VALUES (?, ?, ?)",
            (version, description, time.time()),
        )
    return LATEST


__all__ = ["LATEST", "MIGRATIONS", "migrate"]
