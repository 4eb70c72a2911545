"""Session: one conversation with its own history, firing the session events; kept in a store
(``agenthooks.stores``) when given one, so it continues in any process, paused runs included.

With a store, the session reads itself before every run (recovering a session whose process
died: its claim expired) and claims the right to run with one conditional write on the
version just read: when another process changed the session in between, the claim changes
nothing and the session is read again to tell why. For a resume, the decisions are checked
before the claim and stored with the paused run right after it. The session's state (history,
paused run, the stored version) is its own: only its methods read or write it.
"""

from __future__ import annotations

import asyncio
import time
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

from ..decisions import Approve, Decision, Deny
from ..errors import (
    RegistrationError,
    ResumeConflictError,
    SessionBusyError,
    UnknownSessionError,
)
from ..events.contexts import SessionCloseContext, SessionStartContext
from ..messages import AgentResponse, ChatMessage, PendingCall
from .chat_run import execute, execute_run, shielded, stream
from .durable.keeper import Keeper, owner_token, recovered
from .durable.paused import Answer, PausedRun
from .durable.pausing import counting, keep, pending_of, refuse_chat, require_paused
from .durable.resume import check, restore, resume_body
from .durable.store import Progress
from .run_state import Run, new_id
from .streaming import StreamEvent

if TYPE_CHECKING:
    from .agent import Agent
    from .durable.store import Store

DEFAULT_LEASE = 60.0
"""Seconds a process's claim on a stored session lasts without renewal (renewed every third
of it while the run goes on); a claim that expired marks a process that died."""
RELEASE_TIMEOUT = 30.0
"""Seconds the end of a run may take to store its last messages, even while cancelled."""
ATTEMPTS = 8
"""Claims tried while other processes keep changing the session (then it counts as busy)."""


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
                await self._read()

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
            run, start, keeper = await self._begin(signal)
            return await self._drive(run, start, 0, keeper, partial(execute_run, run, message))

    async def chat_stream(
        self, message: str, *, gated: bool = False, signal: asyncio.Event | None = None
    ) -> AsyncIterator[StreamEvent]:
        """``Agent.chat_stream`` in this conversation."""
        async with self._lock:
            run, start, keeper = await self._begin(signal, self.agent.stream_gated(gated))
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
                decisions, signal, self.agent.stream_gated(gated)
            )
            body = partial(execute, run, partial(resume_body, run, state, decided))
            async with aclosing(self._stream(run, start, state.records, keeper, body)) as items:
                async for item in items:
                    yield item

    # the life of one run ----------------------------------------------------------------------

    async def _begin(
        self, signal: asyncio.Event | None, gated: bool = False
    ) -> tuple[Run, int, Keeper | None]:
        if self.closed:  # before a claim: a closed session claims nothing
            raise RuntimeError(f"session {self.id} is closed")
        if self.store is None:  # nothing to claim or to release
            if self._paused is not None:
                refuse_chat(f"session {self.id!r}", self._paused)
            return self._run(signal, gated), len(self._history), None
        keeper = await self._claim_chat()
        run = self._run(signal, gated)
        run.journal = keeper
        return run, len(self._history), keeper

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
            keeper, state, decided = await self._claim_resume(given)
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

    # the store: reading the session, claiming it for a run ----------------------------------

    def _stored(self) -> Store:
        store = self.store
        assert store is not None, "only a session with a store reads or claims it"
        return store

    async def _read(self, *, must_exist: bool = False) -> str | None:
        """Load this session from its store (recovering it when its process died); returns
        the stored status, or None for a session the store does not have yet."""
        store = self._stored()
        while True:
            row = await store.get(self.id)
            if row is None:
                if must_exist:
                    raise UnknownSessionError(
                        f"no session {self.id!r} in {store!r}", session_id=self.id
                    )
                self._history.clear()
                self._paused, self._version = None, None
                self._started, self.denied = False, None
                return None
            if row.status == "running" and (row.lease_until or 0.0) <= time.time():
                history = await store.history(self.id)
                await store.reset(self.id, row.version, recovered(row, history, self.agent))
                continue  # read what the recovery (ours or another process's) left
            break
        local = self._history
        if row.messages < len(local) or row.version != self._version:
            if row.messages >= len(local) and local:  # append-only: fetch what is new
                local.extend(await store.history(self.id, len(local)))
            else:
                local[:] = await store.history(self.id)
        self._started, self.denied = row.started, row.denied
        self._paused = row.paused if row.status == "paused" else None
        self._version = row.version
        if row.status == "running":
            return f"running in another process ({row.owner})"
        return row.status

    async def _claim_chat(self) -> Keeper:
        """Claim this session for a new chat."""
        store = self._stored()
        for _ in range(ATTEMPTS):
            status = await self._read()
            refuse_chat(f"session {self.id!r}", self._paused)
            if status is not None and status.startswith("running"):
                raise SessionBusyError(f"session {self.id!r} is {status}")
            owner = owner_token()
            lease_until = time.time() + self.lease
            if await store.claim(self.id, self.agent.name, self._version, owner, lease_until):
                return self._keeper(owner, len(self._history))
        raise SessionBusyError(f"session {self.id!r} kept changing in other processes")

    async def _claim_resume(
        self, given: dict[str, Decision]
    ) -> tuple[Keeper, PausedRun, dict[str, Decision]]:
        """Check ``given`` against the stored paused run and claim it; exactly one of several
        processes doing this at once gets it, the others ``ResumeConflictError``."""
        store = self._stored()
        lost: PausedRun | None = None  # the paused run as it was when another process changed it
        for _ in range(ATTEMPTS):
            status = await self._read(must_exist=True)
            if status is not None and status.startswith("running"):
                row = await store.get(self.id)
                winner = row.owner if row is not None else None
                run_id = (
                    row.paused.run_id
                    if row is not None and row.paused is not None
                    else self._paused.run_id
                    if self._paused is not None
                    else lost.run_id
                    if lost is not None
                    else None
                )
                raise ResumeConflictError(
                    f"session {self.id!r}: its run {run_id!r} is being resumed (or run) by "
                    f"another process (claim {winner!r}); this process ran nothing",
                    session_id=self.id,
                    run_id=run_id,
                    winner=winner,
                )
            if lost is not None and _moved_on(lost, self._paused):
                state_now = "paused again" if self._paused is not None else "idle"
                raise ResumeConflictError(
                    f"session {self.id!r}: another process resumed its paused run "
                    f"{lost.run_id!r} first (the session is {state_now} now); this process "
                    "ran nothing",
                    session_id=self.id,
                    run_id=lost.run_id,
                )
            state = require_paused(f"session {self.id!r}", self._paused, self.id)
            decided = check(self.agent, state, given, self.id)
            owner = owner_token()
            lease_until = time.time() + self.lease
            if await store.claim(self.id, self.agent.name, self._version, owner, lease_until):
                keeper = self._keeper(owner, state.start)
                # the decisions go with the paused run: a process taking over after a crash
                # knows what was approved
                answered = state.model_copy(update={"answers": _answers(decided)})
                began = time.monotonic()
                try:
                    await store.progress(
                        self.id, owner, Progress(at=len(self._history), paused=answered)
                    )
                except BaseException:
                    keeper.failed_after(began)
                    await keeper.give_back(state, self._started, self.denied)
                    raise
                return keeper, answered, decided
            lost = state
        raise ResumeConflictError(
            f"session {self.id!r} kept changing in other processes", session_id=self.id
        )

    def _keeper(self, owner: str, start: int) -> Keeper:
        return Keeper(
            self._stored(), self.id, owner, self.lease, len(self._history), start, self.agent
        )

    # closing ----------------------------------------------------------------------------------

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


def _moved_on(before: PausedRun, now: PausedRun | None) -> bool:
    """True when the paused run ``before`` is no longer what waits (another process resumed
    it), not merely answered ahead by someone."""
    if now is None or now.run_id != before.run_id:
        return True
    return [p.call_id for p in now.pending] != [p.call_id for p in before.pending]


def _answers(decided: Mapping[str, Decision]) -> dict[str, Answer]:
    """The decisions of a resume as the paused run stores them."""
    now = time.time()
    return {
        call_id: Answer(
            approved=isinstance(d, Approve),
            reason=None if isinstance(d, Approve) else d.reason,
            by="resume",
            at=now,
        )
        for call_id, d in decided.items()
    }


__all__ = ["DEFAULT_LEASE", "Session"]
