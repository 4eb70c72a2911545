"""Session: one conversation with its own history, firing the session events; kept in a store
(``agenthooks.stores``) when given one, so it continues in any process, paused runs included."""

from __future__ import annotations

import asyncio
from collections.abc import (
    AsyncGenerator,
    AsyncIterator,
    Callable,
    Coroutine,
    Mapping,
)
from contextlib import aclosing
from functools import partial
from types import TracebackType
from typing import TYPE_CHECKING, Any

from ..decisions import Decision, Deny
from ..errors import RegistrationError
from ..events.contexts import SessionCloseContext, SessionStartContext
from ..messages import AgentResponse, ChatMessage, PendingCall
from ..paused import PausedRun
from .chat_run import execute, execute_run, shielded, stream
from .durable.pausing import chat_in_memory, counting, keep, pending_of, refuse_chat, require_paused
from .durable.resume import check, restore, resume_body
from .durable.stored_session import claim_chat, claim_resume, read
from .run_state import Run, new_id
from .streaming import StreamEvent

if TYPE_CHECKING:
    from ..stores.base import Store
    from .agent import Agent
    from .durable.keeper import Keeper

DEFAULT_LEASE = 60.0
"""Seconds a process's claim on a stored session lasts without renewal (renewed every third
of it while the run goes on); a claim that expired marks a process that died."""
RELEASE_TIMEOUT = 30.0
"""Seconds the end of a run may take to store its last messages, even while cancelled."""


class Session:
    """A conversation with ``agent`` that owns its history.

    Many Sessions share one Agent concurrently; one Session's chats are serialized.
    ``on_session_start`` fires on the first chat (a ``Deny`` there denies every later chat with
    the same reason), ``on_session_end`` after every chat or resume, ``on_session_close`` once
    on ``close()`` or when an ``async with`` block exits.

    With ``store=`` (``SQLiteStore(path)``, ``PostgresStore(dsn)``) the history and a paused
    run live in the store under ``session_id``: ``Session(agent, store=..., session_id=...)``
    in any process continues the conversation, and ``resume()`` continues its paused run
    (exactly one process wins when several try at once). Without a store, a paused run waits
    in this object.

    Args:
        agent: The agent that answers.
        session_id: The conversation's id (with a store: which stored session to continue);
            default: a new id.
        history: The messages so far, without a store.
        store: Where the history and a paused run live, shared between processes.
        lease: Seconds a process's claim on a stored session lasts without renewal; a claim
            that expired marks a process that died.

    Raises:
        RegistrationError: ``history`` given with a ``store``, or a ``lease`` that is not
            positive.
    """

    def __init__(
        self,
        agent: Agent,
        *,
        session_id: str | None = None,
        history: list[ChatMessage] | None = None,
        store: Store | None = None,
        lease: float = DEFAULT_LEASE,
    ) -> None:
        if store is not None and history:
            raise RegistrationError(
                "Session(store=...) keeps its history in the store: drop history="
            )
        if lease <= 0:
            raise RegistrationError(f"lease must be positive seconds, got {lease!r}")
        self.agent = agent
        self.id = session_id or new_id()
        self.store = store
        self.lease = lease
        self._history: list[ChatMessage] = list(history or [])
        self._started = False
        self.denied: str | None = None
        self.closed = False
        self._lock = asyncio.Lock()
        self._paused: PausedRun | None = None
        self._version: int | None = None  # the stored row's, once read

    @property
    def history(self) -> list[ChatMessage]:
        """This conversation's transcript (a copy; with a store, as last read or written)."""
        return list(self._history)

    @property
    def pending(self) -> list[PendingCall]:
        """The calls the paused run waits on (empty when no run is paused)."""
        return pending_of(self._paused)

    async def load(self) -> None:
        """Read the session from its store: history, paused run, session state (every chat
        and resume does it first). A session whose process died while running it (its claim
        expired) is recovered: the calls it left open become pending."""
        if self.store is not None:
            async with self._lock:
                await read(self)

    async def gate(self, run: Run) -> str | None:
        """``on_session_start`` on the first chat; the deny reason that ends this chat, if any."""
        if not self._started:
            self._started = True
            if "on_session_start" in run.bus.listened:  # tool names only for a listener
                got = await run.fire(
                    "on_session_start", SessionStartContext, tools=run.agent.scopes.names()
                )
                if isinstance(got, Deny):
                    self.denied = got.text()
        return self.denied

    def _run(self, signal: asyncio.Event | None, gated: bool = False) -> Run:
        if self.closed:
            raise RuntimeError(f"session {self.id} is closed")
        return Run(
            self.agent, self.agent.bus, self._history, session=self, signal=signal, gated=gated
        )

    # chatting -------------------------------------------------------------------------------

    async def chat(self, message: str, signal: asyncio.Event | None = None) -> AgentResponse:
        """Run the agent on ``message`` in this conversation (``SessionPausedError`` while a
        run is paused: ``resume()`` it first)."""
        async with self._lock:  # one run of the conversation at a time
            if self.store is None:  # nothing to claim or to release: as an agent's own chat
                return await chat_in_memory(self, self._begin_in_memory(signal), message)
            run, start, keeper = await self._begin(signal)
            return await self._drive(run, start, 0, keeper, partial(execute_run, run, message))

    async def chat_stream(
        self, message: str, *, gated: bool = False, signal: asyncio.Event | None = None
    ) -> AsyncIterator[StreamEvent]:
        """``Agent.chat_stream`` in this conversation."""
        async with self._lock:
            run, start, keeper = await self._begin(signal, self.agent._gated(gated))
            body = partial(execute_run, run, message)
            async with aclosing(self._stream(run, start, 0, keeper, body)) as items:
                async for item in items:
                    yield item

    async def resume(
        self, decisions: Mapping[str, Decision] | None = None, signal: asyncio.Event | None = None
    ) -> AgentResponse:
        """Continue the paused run: ``{call_id: Approve() or Deny(reason)}`` for each pending
        call (decisions recorded in the store ahead, by ``agenthooks approvals``, count too).
        Everything is checked before anything runs: ``ResumeError`` names an unknown session,
        a call id that is not pending, a missing decision, or tools that no longer match."""
        async with self._lock:
            run, start, keeper, state, decided = await self._begin_resume(decisions, signal)
            body = partial(execute, run, partial(resume_body, run, state, decided))
            return await self._drive(run, start, state.records, keeper, body)

    async def resume_stream(
        self,
        decisions: Mapping[str, Decision] | None = None,
        *,
        gated: bool = False,
        signal: asyncio.Event | None = None,
    ) -> AsyncIterator[StreamEvent]:
        """``resume()`` yielding what ``chat_stream()`` yields."""
        async with self._lock:
            run, start, keeper, state, decided = await self._begin_resume(
                decisions, signal, self.agent._gated(gated)
            )
            body = partial(execute, run, partial(resume_body, run, state, decided))
            async with aclosing(self._stream(run, start, state.records, keeper, body)) as items:
                async for item in items:
                    yield item

    # the life of one run ----------------------------------------------------------------------

    async def _begin(
        self, signal: asyncio.Event | None, gated: bool = False
    ) -> tuple[Run, int, Keeper | None]:
        if self.store is None:
            return self._begin_in_memory(signal, gated), len(self._history), None
        if self.closed:
            raise RuntimeError(f"session {self.id} is closed")
        keeper = await claim_chat(self)
        run = self._run(signal, gated)
        run.journal = keeper
        return run, len(self._history), keeper

    def _begin_in_memory(self, signal: asyncio.Event | None, gated: bool = False) -> Run:
        if self.closed:
            raise RuntimeError(f"session {self.id} is closed")
        if self._paused is not None:
            refuse_chat(f"session {self.id!r}", self._paused)
        return self._run(signal, gated)

    async def _begin_resume(
        self,
        decisions: Mapping[str, Decision] | None,
        signal: asyncio.Event | None,
        gated: bool = False,
    ) -> tuple[Run, int, Keeper | None, PausedRun, dict[str, Decision]]:
        if self.closed:
            raise RuntimeError(f"session {self.id} is closed")
        given = dict(decisions or {})
        keeper = None
        if self.store is not None:
            keeper, state, decided = await claim_resume(self, given)
        else:
            state = require_paused(f"session {self.id!r}", self._paused, self.id)
            decided = check(self.agent, state, given, self.id)
        try:
            run = self._run(signal, gated)
            restore(run, state, self.agent)
        except BaseException:
            if keeper is not None:  # nothing ran: the run stays paused
                await keeper.give_back(state, self._started, self.denied)
            raise
        run.journal = keeper
        return run, state.start, keeper, state, decided

    async def _drive(
        self,
        run: Run,
        start: int,
        records: int,
        keeper: Keeper | None,
        body: Callable[[], Coroutine[Any, Any, AgentResponse]],
    ) -> AgentResponse:
        if keeper is not None:
            keeper.beat()
        with counting(run, records):
            try:
                return await body()
            finally:
                await self._end(run, start, keeper)

    async def _stream(
        self,
        run: Run,
        start: int,
        records: int,
        keeper: Keeper | None,
        body: Callable[[], Coroutine[Any, Any, AgentResponse]],
    ) -> AsyncGenerator[StreamEvent, None]:
        if keeper is not None:
            keeper.beat()
        with counting(run, records):
            try:
                # closing this iterator must close the run's stream at once (abort), not
                # whenever the inner generator is garbage-collected
                async with aclosing(stream(run, body)) as items:
                    async for item in items:
                        yield item
            finally:
                await self._end(run, start, keeper)

    async def _end(self, run: Run, start: int, keeper: Keeper | None) -> None:
        """Keep the paused run (or forget the old one) and, with a store, store the rest of
        the run and release the session: also when the run was cancelled."""
        self._paused = keep(run, start) if run.pending else None
        if keeper is None:
            return

        async def release() -> None:
            self._paused = await keeper.release(run, self._history, self._started, self.denied)
            self._version = None  # moved: read again before the next run

        await shielded(release, RELEASE_TIMEOUT)

    # the store --------------------------------------------------------------------------------

    async def close(self) -> None:
        """Close the session: ``on_session_close`` fires once (idempotent)."""
        if self.closed:
            return
        self.closed = True
        bus = self.agent.bus
        if "on_session_close" in bus.listened:
            await bus.emit(
                "on_session_close",
                SessionCloseContext(
                    session_id=self.id,
                    agent=self.agent.name,
                    branch=self.agent.name,
                ),
            )

    async def __aenter__(self) -> Session:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()


__all__ = ["DEFAULT_LEASE", "Session"]
