"""The store over SQL, once for both databases: SQLite and PostgreSQL differ only in how a
transaction is opened, how parameters are written and whether a read can lock its row.

Every change of state is conditional (``WHERE version = ?`` or ``WHERE owner = ?``) and made
in a transaction; JSON goes in TEXT columns.

A database failure is a ``StoreError`` naming the store, what it was doing and the session,
never the driver's own exception. A transaction the database rolled back (a connection lost
before its commit) is tried again while the store's ``timeout`` lasts, when the subclass
says the failure is worth it (``failure``); a connection lost during the commit leaves the
outcome unknown, so the store reads back the stamp the write set (its ``updated_at``) and
tries again only when the write is not there. A stored value that does not parse is a
``ResumeError`` naming the session and the column.

``timeout`` is one deadline per operation: its waits for a lock or a connection, its retries
and its read-back all end by it, and what runs inside ``deadline(at)`` (the recovery after a
failed write) ends by the failed write's deadline, so waits never add up.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Literal, Protocol, TypeVar

from pydantic import TypeAdapter, ValidationError

from ..errors import (
    AgentHooksError,
    ClaimLostError,
    NotPausedError,
    NotPendingError,
    ResumeError,
    StoreError,
    UnknownSessionError,
)
from ..messages import ChatMessage
from ..runtime.durable.paused import Answer, PausedRun
from ..runtime.durable.store import deadline, time_left
from .base import Progress, Release, SessionRow, Status
from .migrations import migrate

_MESSAGE = TypeAdapter(ChatMessage)
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,40}$")
_COLUMNS = (
    "id, agent, status, version, owner, lease_until, started, denied, paused, journal, "
    "created_at, updated_at"
)


T = TypeVar("T")
Failure = Literal["retry", "fail"]
"""What a database exception means: ``retry`` (rolled back; another attempt may succeed),
``fail`` (a ``StoreError`` at once)."""


class CommitUnknown(Exception):
    """The connection failed during the commit: the transaction may or may not have been
    applied (raised by a subclass's ``transaction``; ``cause`` is the driver's error)."""

    def __init__(self, cause: BaseException) -> None:
        self.cause = cause
        super().__init__(str(cause))


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

    timeout: float = 30.0
    """Seconds one operation may wait (for a lock, a connection, a database coming back)."""

    def __init__(self, prefix: str = "agenthooks_", qualifier: str = "") -> None:
        self.prefix = check_name(prefix, "prefix")
        self._qualifier = qualifier
        self._ready = False
        self._stamp = 0.0

    def table(self, name: str) -> str:
        """The full name of table ``name``."""
        return f"{self._qualifier}{self.prefix}{name}"

    def transaction(self, write: bool = True) -> AbstractAsyncContextManager[Tx]:
        """A transaction: committed when the block ends, rolled back on an exception;
        ``write=False`` for one that only reads (SQLite: it waits for no writer)."""
        raise NotImplementedError

    def failure(self, exc: BaseException) -> Failure | None:
        """What the database exception ``exc`` means for the operation; None for an
        exception that is not the database's (it propagates as it is)."""
        return None

    def describe(self, exc: BaseException) -> str:
        """The driver's error ``exc`` in words, for a ``StoreError``."""
        return f"{type(exc).__name__}: {exc}"

    def stamp(self) -> float:
        """A time for ``updated_at`` that no earlier write of this store used: a write whose
        commit went unanswered is found again by it."""
        self._stamp = max(time.time(), self._stamp + 1e-6)
        return self._stamp

    async def atomic(
        self,
        what: str,
        session_id: str | None,
        body: Callable[[Tx], Awaitable[T]],
        stamp: float | None = None,
        *,
        write: bool = True,
    ) -> T:
        """``body`` in one transaction; its result. A rolled-back failure is tried again
        while ``timeout`` lasts; ``stamp`` (the ``updated_at`` a write sets) tells whether a
        commit that went unanswered was applied. Anything else is a ``StoreError``."""
        until = time.monotonic() + time_left(self.timeout)
        with deadline(until):  # the transactions, the read-back and the retries share it
            return await self._attempts(what, session_id, body, stamp, write, until)

    async def _attempts(
        self,
        what: str,
        session_id: str | None,
        body: Callable[[Tx], Awaitable[T]],
        stamp: float | None,
        write: bool,
        until: float,
    ) -> T:
        delay = 0.05
        while True:
            done = False
            result: Any = None
            try:
                async with self.transaction(write) as tx:
                    result = await body(tx)
                    done = True
                return result  # type: ignore[no-any-return]
            except AgentHooksError:
                raise
            except CommitUnknown as unknown:
                if stamp is None:  # a read: what it read stands
                    return result  # type: ignore[no-any-return]
                if await self._written(session_id, stamp, unknown.cause):
                    return result  # type: ignore[no-any-return]
                cause: BaseException = unknown.cause
            except Exception as exc:
                if self.failure(exc) is None:
                    raise
                if done or self.failure(exc) == "fail" or time.monotonic() >= until:
                    raise self._error(what, session_id, exc) from exc
                cause = exc
            if time.monotonic() + delay >= until:
                raise self._error(what, session_id, cause) from cause
            await asyncio.sleep(delay)
            delay = min(delay * 2, 1.0)

    async def _written(self, session_id: str | None, stamp: float, cause: BaseException) -> bool:
        """Whether the write that set ``updated_at = stamp`` on ``session_id`` is stored."""

        async def read(tx: Tx) -> bool:
            rows = await tx.fetch(
                f"SELECT 1 FROM {self.table('sessions')} WHERE id = ? AND updated_at = ?",
                (session_id, stamp),
            )
            return bool(rows)

        try:
            return await self.atomic("read back", session_id, read, write=False)
        except StoreError as exc:
            raise StoreError(
                f"{self!r}: session {session_id!r}: the connection failed while a write was "
                f"committed ({self.describe(cause)}) and the store could not be read back to "
                f"tell whether it was: {exc}",
                store=repr(self),
                session_id=session_id,
            ) from cause

    def _error(self, what: str, session_id: str | None, exc: BaseException) -> StoreError:
        where = f"session {session_id!r}: " if session_id is not None else ""
        return StoreError(
            f"{self!r}: {where}{what} failed: {self.describe(exc)}",
            store=repr(self),
            session_id=session_id,
        )

    async def migrate(self) -> int:
        """Bring the schema up to date (idempotent; safe from many processes); returns the
        schema version."""

        async def body(tx: Tx) -> int:
            return await migrate(self, tx)

        version = await self.atomic("migrating the schema", None, body)
        self._ready = True
        return version

    async def _ensure(self) -> None:
        if not self._ready:
            await self.migrate()

    async def lock_schema(self, tx: Tx) -> None:
        """Keep other processes out of the migration (PostgreSQL: an advisory lock)."""

    # reading ----------------------------------------------------------------------------------

    async def get(self, session_id: str) -> SessionRow | None:
        """Read one session.

        Returns:
            The session's row, or ``None`` when the store has no such session.

        Raises:
            StoreError: The database failed; it names the store and the session.
        """
        await self._ensure()
        return await self.atomic(
            "reading", session_id, lambda tx: self._row(tx, session_id), write=False
        )

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
        """Read a session's stored messages in order.

        Args:
            session_id: The session.
            start: The position of the first message to return (0: all of them).

        Raises:
            StoreError: The database failed.
            ResumeError: A stored message no longer validates; it names the session.
        """
        await self._ensure()
        rows = await self.atomic(
            "reading the history",
            session_id,
            lambda tx: tx.fetch(
                f"SELECT position, body FROM {self.table('messages')} WHERE session_id = ? "
                "AND position >= ? ORDER BY position",
                (session_id, start),
            ),
            write=False,
        )
        return [_message(session_id, int(position), body) for position, body in rows]

    async def sessions(self, status: Status | None = None) -> list[SessionRow]:
        """List sessions, most recently updated first.

        Args:
            status: Only the sessions in this status; ``None`` for every session.
        """
        await self._ensure()
        where = "" if status is None else " WHERE s.status = ?"
        rows = await self.atomic(
            "listing sessions",
            None,
            lambda tx: tx.fetch(
                f"SELECT {', '.join('s.' + c for c in _COLUMNS.split(', '))}, "
                f"(SELECT COUNT(*) FROM {self.table('messages')} m WHERE m.session_id = s.id) "
                f"FROM {self.table('sessions')} s{where} ORDER BY s.updated_at DESC, s.id",
                () if status is None else (status,),
            ),
            write=False,
        )
        return [_session(r[:-1], int(r[-1])) for r in rows]

    # changing state ---------------------------------------------------------------------------

    async def claim(
        self, session_id: str, agent: str, expected: int | None, owner: str, lease_until: float
    ) -> bool:
        """Mark the session running in ``owner`` until ``lease_until``.

        Args:
            session_id: The session.
            agent: The name of the agent that runs it.
            expected: The version read before; ``None`` when the session must not exist yet
                (it is created).
            owner: Who claims it (a process and run id).
            lease_until: When the claim expires unless renewed (epoch seconds).

        Returns:
            False when another process changed the session first.
        """
        await self._ensure()
        now = self.stamp()

        async def body(tx: Tx) -> int:
            if expected is None:
                return await tx.execute(
                    f"INSERT INTO {self.table('sessions')} ({_COLUMNS}) VALUES "
                    "(?, ?, 'running', 1, ?, ?, 0, NULL, NULL, NULL, ?, ?) "
                    "ON CONFLICT (id) DO NOTHING",
                    (session_id, agent, owner, lease_until, now, now),
                )
            return await tx.execute(
                f"UPDATE {self.table('sessions')} SET status = 'running', owner = ?, "
                "lease_until = ?, version = version + 1, journal = NULL, updated_at = ? "
                "WHERE id = ? AND version = ?",
                (owner, lease_until, now, session_id, expected),
            )

        return await self.atomic("claiming", session_id, body, now) == 1

    async def progress(self, session_id: str, owner: str, step: Progress) -> None:
        """Store what a running run did so far: new messages, its journal or its paused run.

        Raises:
            ClaimLostError: ``owner`` no longer holds the session; nothing was stored.
            StoreError: The database failed.
        """
        await self._ensure()
        now = self.stamp()
        sets = ["updated_at = ?"]
        params: list[Any] = [now]
        if step.journal is not None:
            sets.append("journal = ?")
            params.append(step.journal.model_dump_json())
        if step.paused is not None:
            sets.append("paused = ?")
            params.append(step.paused.model_dump_json())

        async def body(tx: Tx) -> None:
            await self._owned(tx, session_id, owner, ", ".join(sets), params)
            await self._append(tx, session_id, step.at, step.messages)

        await self.atomic("storing the run's progress", session_id, body, now)

    async def release(
        self, session_id: str, owner: str, at: int, messages: list[ChatMessage], end: Release
    ) -> None:
        """Store the end of a run: its last messages and the session's new state.

        Args:
            session_id: The session.
            owner: The claim's holder.
            at: The position of the first of ``messages``.
            messages: The messages not stored yet.
            end: The session's state from now on (``idle`` or ``paused``).

        Raises:
            ClaimLostError: ``owner`` no longer holds the session; nothing was stored.
            StoreError: The database failed.
        """
        await self._ensure()
        now = self.stamp()
        params = [
            end.status,
            int(end.started),
            end.denied,
            None if end.paused is None else end.paused.model_dump_json(),
            now,
        ]

        async def body(tx: Tx) -> None:
            await self._owned(
                tx,
                session_id,
                owner,
                "status = ?, owner = NULL, lease_until = NULL, version = version + 1, "
                "started = ?, denied = ?, paused = ?, journal = NULL, updated_at = ?",
                params,
            )
            await self._append(tx, session_id, at, messages)

        await self.atomic("storing the end of the run", session_id, body, now)

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
        """Extend ``owner``'s claim to ``lease_until``.

        Returns:
            False when ``owner`` no longer holds the session.
        """
        await self._ensure()
        # renewing again is harmless: a commit that went unanswered is simply renewed again
        changed = await self.atomic(
            "renewing the claim",
            session_id,
            lambda tx: tx.execute(
                f"UPDATE {self.table('sessions')} SET lease_until = ? "
                "WHERE id = ? AND owner = ? AND status = 'running'",
                (lease_until, session_id, owner),
            ),
        )
        return changed == 1

    async def reset(self, session_id: str, expected: int, state: Release) -> bool:
        """Set an abandoned session (its claim expired) to ``state``.

        Returns:
            False when its version is no longer ``expected`` (another process changed it).
        """
        await self._ensure()
        now = self.stamp()
        changed = await self.atomic(
            "recovering",
            session_id,
            lambda tx: tx.execute(
                f"UPDATE {self.table('sessions')} SET status = ?, owner = NULL, "
                "lease_until = NULL, version = version + 1, started = ?, denied = ?, "
                "paused = ?, journal = NULL, updated_at = ? WHERE id = ? AND version = ?",
                (
                    state.status,
                    int(state.started),
                    state.denied,
                    None if state.paused is None else state.paused.model_dump_json(),
                    now,
                    session_id,
                    expected,
                ),
            ),
            now,
        )
        return changed == 1

    async def answer(self, session_id: str, call_id: str, answer: Answer) -> PausedRun:
        """Record the decision for one pending call of a paused session, ahead of its resume.

        Returns:
            The paused run with the answer in it.

        Raises:
            UnknownSessionError: The store has no such session.
            NotPausedError: The session is not paused.
            NotPendingError: ``call_id`` is not one of the calls the run waits on.
        """
        await self._ensure()
        now = self.stamp()

        async def body(tx: Tx) -> PausedRun:
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
                (paused.model_dump_json(), now, session_id, row.version),
            )
            return paused

        return await self.atomic("recording an answer", session_id, body, now)

    async def aclose(self) -> None:
        """Close the connection (reopened on the next use)."""


def _parsed(session_id: str, what: str, text: str) -> PausedRun:
    try:
        return PausedRun.model_validate_json(text)
    except ValidationError as exc:
        raise ResumeError(
            f"session {session_id!r}: its stored {what} does not parse: {_first(exc)}",
            session_id=session_id,
        ) from None


def _message(session_id: str, position: int, body: str) -> ChatMessage:
    try:
        return _MESSAGE.validate_json(body)
    except ValidationError as exc:
        raise ResumeError(
            f"session {session_id!r}: its stored message {position} does not parse: {_first(exc)}",
            session_id=session_id,
        ) from None


def _first(exc: ValidationError) -> str:
    """The first problem pydantic found, in one line (JSON errors included)."""
    error = exc.errors()[0]
    where = ".".join(str(p) for p in error["loc"])
    more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    return f"{where + ': ' if where else ''}{error['msg']}{more}"


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
        paused=None if paused is None else _parsed(sid, "paused run", paused),
        journal=None if journal is None else _parsed(sid, "journal", journal),
        messages=messages,
        created_at=float(c),
        updated_at=float(u),
    )


__all__ = ["CommitUnknown", "Failure", "SQLStore", "Tx", "check_name", "deadline", "time_left"]
