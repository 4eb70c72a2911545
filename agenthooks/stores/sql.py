"""The store over SQL, once for both databases: SQLite and PostgreSQL differ only in how a
transaction is opened, how parameters are written and whether a read can lock its row.

Every change of state is conditional (``WHERE version = ?`` or ``WHERE owner = ?``) and made
in a transaction; JSON goes in TEXT columns.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

from pydantic import TypeAdapter

from ..errors import (
    ClaimLostError,
    NotPausedError,
    NotPendingError,
    StoreError,
    UnknownSessionError,
)
from ..messages import ChatMessage
from ..paused import Answer, PausedRun
from .base import Progress, Release, SessionRow, Status
from .migrations import migrate

_MESSAGES = TypeAdapter(list[ChatMessage])
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,40}$")
_COLUMNS = (
    "id, agent, status, version, owner, lease_until, started, denied, paused, journal, "
    "created_at, updated_at"
)


class Tx(Protocol):
    """One open transaction."""

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run one statement; the number of rows it changed."""
        ...

    async def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Run one query; its rows."""
        ...


def check_name(value: str, what: str) -> str:
    """A table prefix or schema name, which goes into SQL as is: letters, digits and ``_``."""
    if not isinstance(value, str) or not ((value == "" and what == "prefix") or _NAME.match(value)):
        raise StoreError(
            f"{what} {value!r} is not a valid name: use letters, digits and _ (at most 41)"
        )
    return value


class SQLStore:
    """A ``Store`` over a SQL database; subclasses open transactions.

    ``prefix`` starts every table name (``agenthooks_sessions``, ``agenthooks_messages``), so
    several stores can share one database.
    """

    for_update = ""
    """What a read that must lock its row appends (PostgreSQL: `` FOR UPDATE``)."""

    def __init__(self, prefix: str = "agenthooks_", qualifier: str = "") -> None:
        self.prefix = check_name(prefix, "prefix")
        self._qualifier = qualifier
        self._ready = False

    def table(self, name: str) -> str:
        """The full name of table ``name``."""
        return f"{self._qualifier}{self.prefix}{name}"

    def transaction(self) -> AbstractAsyncContextManager[Tx]:
        """A transaction: committed when the block ends, rolled back on an exception."""
        raise NotImplementedError

    async def migrate(self) -> int:
        """Bring the schema up to date (idempotent; safe from many processes); returns the
        schema version."""
        async with self.transaction() as tx:
            version = await migrate(self, tx)
        self._ready = True
        return version

    async def _ensure(self) -> None:
        if not self._ready:
            await self.migrate()

    async def lock_schema(self, tx: Tx) -> None:
        """Keep other processes out of the migration (PostgreSQL: an advisory lock)."""

    # reading ----------------------------------------------------------------------------------

    async def get(self, session_id: str) -> SessionRow | None:
        await self._ensure()
        async with self.transaction() as tx:
            return await self._row(tx, session_id)

    async def _row(self, tx: Tx, session_id: str, lock: bool = False) -> SessionRow | None:
        rows = await tx.fetch(
            f"SELECT {_COLUMNS} FROM {self.table('sessions')} WHERE id = ?"
            + (self.for_update if lock else ""),
            (session_id,),
        )
        if not rows:
            return None
        counted = await tx.fetch(
            f"SELECT COUNT(*) FROM {self.table('messages')} WHERE session_id = ?", (session_id,)
        )
        return _session(rows[0], int(counted[0][0]))

    async def history(self, session_id: str, start: int = 0) -> list[ChatMessage]:
        await self._ensure()
        async with self.transaction() as tx:
            rows = await tx.fetch(
                f"SELECT body FROM {self.table('messages')} WHERE session_id = ? AND "
                "position >= ? ORDER BY position",
                (session_id, start),
            )
        return _MESSAGES.validate_python([json.loads(r[0]) for r in rows])

    async def sessions(self, status: Status | None = None) -> list[SessionRow]:
        await self._ensure()
        where = "" if status is None else " WHERE s.status = ?"
        async with self.transaction() as tx:
            rows = await tx.fetch(
                f"SELECT {', '.join('s.' + c for c in _COLUMNS.split(', '))}, "
                f"(SELECT COUNT(*) FROM {self.table('messages')} m WHERE m.session_id = s.id) "
                f"FROM {self.table('sessions')} s{where} ORDER BY s.updated_at DESC, s.id",
                () if status is None else (status,),
            )
        return [_session(r[:-1], int(r[-1])) for r in rows]

    # changing state ---------------------------------------------------------------------------

    async def claim(
        self, session_id: str, agent: str, expected: int | None, owner: str, lease_until: float
    ) -> bool:
        await self._ensure()
        now = time.time()
        async with self.transaction() as tx:
            if expected is None:
                changed = await tx.execute(
                    f"INSERT INTO {self.table('sessions')} ({_COLUMNS}) VALUES "
                    "(?, ?, 'running', 1, ?, ?, 0, NULL, NULL, NULL, ?, ?) "
                    "ON CONFLICT (id) DO NOTHING",
                    (session_id, agent, owner, lease_until, now, now),
                )
            else:
                changed = await tx.execute(
                    f"UPDATE {self.table('sessions')} SET status = 'running', owner = ?, "
                    "lease_until = ?, version = version + 1, journal = NULL, updated_at = ? "
                    "WHERE id = ? AND version = ?",
                    (owner, lease_until, now, session_id, expected),
                )
        return changed == 1

    async def progress(self, session_id: str, owner: str, step: Progress) -> None:
        await self._ensure()
        async with self.transaction() as tx:
            sets = ["updated_at = ?"]
            params: list[Any] = [time.time()]
            if step.journal is not None:
                sets.append("journal = ?")
                params.append(step.journal.model_dump_json())
            if step.paused is not None:
                sets.append("paused = ?")
                params.append(step.paused.model_dump_json())
            await self._owned(tx, session_id, owner, ", ".join(sets), params)
            await self._append(tx, session_id, step.at, step.messages)

    async def release(
        self, session_id: str, owner: str, at: int, messages: list[ChatMessage], end: Release
    ) -> None:
        await self._ensure()
        async with self.transaction() as tx:
            await self._owned(
                tx,
                session_id,
                owner,
                "status = ?, owner = NULL, lease_until = NULL, version = version + 1, "
                "started = ?, denied = ?, paused = ?, journal = NULL, updated_at = ?",
                [
                    end.status,
                    int(end.started),
                    end.denied,
                    None if end.paused is None else end.paused.model_dump_json(),
                    time.time(),
                ],
            )
            await self._append(tx, session_id, at, messages)

    async def _owned(
        self, tx: Tx, session_id: str, owner: str, sets: str, params: list[Any]
    ) -> None:
        changed = await tx.execute(
            f"UPDATE {self.table('sessions')} SET {sets} "
            "WHERE id = ? AND owner = ? AND status = 'running'",
            (*params, session_id, owner),
        )
        if changed != 1:
            raise ClaimLostError(
                f"session {session_id!r}: this process no longer holds it (its claim expired "
                "and another process took it over); nothing more of this run is stored"
            )

    async def _append(self, tx: Tx, session_id: str, at: int, messages: list[ChatMessage]) -> None:
        for offset, message in enumerate(messages):
            await tx.execute(
                f"INSERT INTO {self.table('messages')} (session_id, position, body) "
                "VALUES (?, ?, ?)",
                (session_id, at + offset, message.model_dump_json()),
            )

    async def renew(self, session_id: str, owner: str, lease_until: float) -> bool:
        await self._ensure()
        async with self.transaction() as tx:
            changed = await tx.execute(
                f"UPDATE {self.table('sessions')} SET lease_until = ? "
                "WHERE id = ? AND owner = ? AND status = 'running'",
                (lease_until, session_id, owner),
            )
        return changed == 1

    async def reset(self, session_id: str, expected: int, state: Release) -> bool:
        await self._ensure()
        async with self.transaction() as tx:
            changed = await tx.execute(
                f"UPDATE {self.table('sessions')} SET status = ?, owner = NULL, "
                "lease_until = NULL, version = version + 1, started = ?, denied = ?, "
                "paused = ?, journal = NULL, updated_at = ? WHERE id = ? AND version = ?",
                (
                    state.status,
                    int(state.started),
                    state.denied,
                    None if state.paused is None else state.paused.model_dump_json(),
                    time.time(),
                    session_id,
                    expected,
                ),
            )
        return changed == 1

    async def answer(self, session_id: str, call_id: str, answer: Answer) -> PausedRun:
        await self._ensure()
        async with self.transaction() as tx:
            row = await self._row(tx, session_id, lock=True)
            if row is None:
                raise UnknownSessionError(f"no session {session_id!r}", session_id=session_id)
            if row.status != "paused" or row.paused is None:
                raise NotPausedError(
                    f"session {session_id!r} has no paused run (it is {row.status})",
                    session_id=session_id,
                )
            paused = row.paused
            if call_id not in row.pending:
                raise NotPendingError(
                    f"session {session_id!r}: call {call_id!r} is not pending; the paused run "
                    f"{paused.run_id!r} waits on: {', '.join(map(repr, row.pending))}",
                    session_id=session_id,
                    call_id=call_id,
                )
            paused = paused.model_copy(update={"answers": {**paused.answers, call_id: answer}})
            await tx.execute(
                f"UPDATE {self.table('sessions')} SET paused = ?, version = version + 1, "
                "updated_at = ? WHERE id = ? AND version = ?",
                (paused.model_dump_json(), time.time(), session_id, row.version),
            )
        return paused

    async def aclose(self) -> None:
        """Close the connection (reopened on the next use)."""


def _session(row: Sequence[Any], messages: int) -> SessionRow:
    (sid, agent, status, version, owner, lease, started, denied, paused, journal, c, u) = row
    return SessionRow(
        id=sid,
        agent=agent,
        status=status,
        version=int(version),
        owner=owner,
        lease_until=None if lease is None else float(lease),
        started=bool(started),
        denied=denied,
        paused=None if paused is None else PausedRun.model_validate_json(paused),
        journal=None if journal is None else PausedRun.model_validate_json(journal),
        messages=messages,
        created_at=float(c),
        updated_at=float(u),
    )


__all__ = ["SQLStore", "Tx", "check_name"]
