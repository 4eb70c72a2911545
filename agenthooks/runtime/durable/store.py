"""What a store keeps per session, and the operations a ``Session`` needs from it: the
contract the runtime states and every store (``agenthooks.stores``) implements, so the runtime
never imports a store and a store imports the runtime's data (``PausedRun``) without a cycle.

A session row holds the session's state (``idle``, ``running`` in some process, ``paused``),
a ``version`` that moves on every change of state, the claim of the process running it
(``owner`` until ``lease_until``), whether ``on_session_start`` fired (and its deny), the
paused run (``PausedRun``) and, while a run goes on, its ``journal``: the run's counters and
the calls whose tool may have run. The history is a list of messages in order.

Exactly once: every change of state is a conditional write (``... WHERE version = ?``, or
``WHERE owner = ?`` while running), never an in-memory lock, so two processes resuming one
paused run cannot both win: the loser's write changes nothing and it gets
``ResumeConflictError``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Literal, Protocol

from ...messages import ChatMessage
from .paused import Answer, PausedRun

Status = Literal["idle", "running", "paused"]

_DEADLINE: ContextVar[float | None] = ContextVar("agenthooks_store_deadline", default=None)


@contextmanager
def deadline(at: float) -> Iterator[None]:
    """Store operations inside the block end by ``at`` (``time.monotonic()`` seconds), however
    long their own ``timeout``: one deadline for a whole operation, its retries and what
    follows its failure. Nested deadlines keep the earliest; a store given no time left still
    tries once without waiting for a lock.

    Args:
        at: The deadline, on the ``time.monotonic()`` clock.
    """
    current = _DEADLINE.get()
    token = _DEADLINE.set(at if current is None else min(at, current))
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def time_left(timeout: float) -> float:
    """Seconds an operation may still wait: ``timeout``, or what is left of the ``deadline``
    it runs under when that comes first (never below 0)."""
    at = _DEADLINE.get()
    if at is None:
        return timeout
    return max(0.0, min(timeout, at - time.monotonic()))


@dataclass
class SessionRow:
    """One stored session as read (``messages`` is the number of stored messages)."""

    id: str
    agent: str
    status: Status = "idle"
    version: int = 0
    owner: str | None = None
    lease_until: float | None = None
    started: bool = False
    denied: str | None = None
    paused: PausedRun | None = None
    journal: PausedRun | None = None
    messages: int = 0
    created_at: float = 0.0
    updated_at: float = 0.0

    @property
    def pending(self) -> list[str]:
        """The call ids the paused run waits on (empty unless paused)."""
        return [p.call_id for p in self.paused.pending] if self.paused is not None else []


@dataclass
class Release:
    """What a process writes when its run ends: the session's new state."""

    status: Literal["idle", "paused"]
    started: bool
    denied: str | None
    paused: PausedRun | None = None


@dataclass
class Progress:
    """What a running process writes on the way: messages appended at ``at``, the journal,
    and (at a pause) the paused run, before anyone hears of it."""

    at: int
    messages: list[ChatMessage] = field(default_factory=list)
    journal: PausedRun | None = None
    paused: PausedRun | None = None


class Store(Protocol):
    """Where sessions live. ``SQLiteStore`` and ``PostgresStore`` implement it; every method
    is a coroutine and safe to call from many processes at once."""

    async def get(self, session_id: str) -> SessionRow | None:
        """The session's row, or ``None`` when the store has no such session."""
        ...

    async def history(self, session_id: str, start: int = 0) -> list[ChatMessage]:
        """The session's stored messages from position ``start``."""
        ...

    async def claim(
        self, session_id: str, agent: str, expected: int | None, owner: str, lease_until: float
    ) -> bool:
        """Mark the session running in ``owner`` until ``lease_until``, when its version is
        still ``expected`` (``None``: the session must not exist yet; it is created). False
        when another process changed it first."""
        ...

    async def progress(self, session_id: str, owner: str, step: Progress) -> None:
        """Append messages and write the journal (or the paused run) while ``owner`` holds
        the session; ``ClaimLostError`` when it no longer does."""
        ...

    async def release(
        self, session_id: str, owner: str, at: int, messages: list[ChatMessage], end: Release
    ) -> None:
        """Append the last messages and leave the session ``idle`` or ``paused``;
        ``ClaimLostError`` when ``owner`` no longer holds it."""
        ...

    async def renew(self, session_id: str, owner: str, lease_until: float) -> bool:
        """Extend ``owner``'s claim; False when it no longer holds the session."""
        ...

    async def reset(self, session_id: str, expected: int, state: Release) -> bool:
        """Set an abandoned session (a claim that expired) to ``state`` when its version is
        still ``expected``; False when another process changed it first."""
        ...

    async def answer(self, session_id: str, call_id: str, answer: Answer) -> PausedRun:
        """Record a decision for a pending call ahead of the resume; returns the paused run
        with it. ``UnknownSessionError``, ``NotPausedError`` or ``NotPendingError`` name what
        is wrong."""
        ...

    async def sessions(self, status: Status | None = None) -> list[SessionRow]:
        """Every session (or those in ``status``), most recently updated first."""
        ...

    async def aclose(self) -> None:
        """Close the store's connections."""
        ...


__all__ = ["Progress", "Release", "SessionRow", "Status", "Store", "deadline", "time_left"]
