"""A run on a stored session: its claim (renewed while it runs), its journal, its release,
and the recovery of a session whose process died.

The crash window: a tool ran but its result was not stored yet (the process died between the
two). The journal marks each call started before its tool runs, so the next process that
takes the session over knows which calls may have run: a call of a tool marked
``@tool(idempotent=True)`` runs again by itself on resume; any other such call becomes
pending again, its reason saying it may have run, and waits for a human's decision. Nothing
is doubled silently.

A store that fails during the run (a journal write before or after a tool, the paused state)
leaves the same window, and it is closed the same way at once: the write's ``StoreError``
ends the run (never a tool result: a call whose start could not be stored does not run), no
later write is tried, and the end of the run stores the recovery of what the store holds (an
approved call that did not start is pending with its approval; one that may have run asks
again, unless idempotent). When the store cannot take even that, the claim is left to expire
and the next process to read the session recovers it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from typing import TYPE_CHECKING

import structlog

from ...bus.signals import RECORD_COUNTS
from ...errors import ResumeError, StoreError
from ...messages import AgentResponse, ChatMessage, PendingCall, ToolCall
from ..run_state import Run, new_id
from .paused import Answer, PausedRun
from .resume import agents_by_name, capture
from .store import Progress, Release, SessionRow, Store, deadline

if TYPE_CHECKING:
    from ..agent import Agent

log = structlog.get_logger("agenthooks")

STORE_FAILED = "the run's store failed"
"""Why a run stopped, in a recovered call's reason, when a write to its store failed."""


def interrupted(cause: str = "the process running this call stopped") -> str:
    """The reason of a recovered call whose tool may have run (a tool that is not idempotent)."""
    return (
        f"interrupted: {cause} before its result was stored, so the tool may have run; "
        "approve to run it again"
    )


def rerun(cause: str = "the process running this call stopped") -> str:
    """The reason of a recovered call of an idempotent tool (approved by the recovery)."""
    return (
        f"interrupted: {cause} before its result was stored; the tool is idempotent and runs "
        "again on resume"
    )


def not_run(cause: str = "the process running the run stopped") -> str:
    """The reason of a recovered call that never started."""
    return f"not run: {cause} before this call ran"


INTERRUPTED = interrupted()
RERUN = rerun()
NOT_RUN = not_run()


def owner_token() -> str:
    """Who holds a claim: unique per run, with the process id for people reading the store."""
    return f"pid{os.getpid()}-{new_id()}"


class Keeper:
    """The claim and journal of one run on a stored session (the run's ``journal``)."""

    def __init__(
        self,
        store: Store,
        session_id: str,
        owner: str,
        lease: float,
        stored: int,
        start: int,
        agent: Agent,
    ) -> None:
        self.store = store
        self.agent = agent
        """The session's agent (a recovery looks its tools up)."""
        self.session_id = session_id
        self.owner = owner
        self.lease = lease
        self.stored = stored
        """How many of the session's messages the store has."""
        self.start = start
        """Where the run's messages begin in the history."""
        self.started: list[str] = []
        self.paused: PausedRun | None = None
        self.failed: StoreError | None = None
        """The store's failure that ended the run; nothing more is written after it."""
        self.until: float | None = None
        """The failed operation's deadline (``time.monotonic()``): the recovery ends by it."""
        self._lock = asyncio.Lock()  # parallel tool calls write one at a time
        self._beat: asyncio.Task[None] | None = None

    # the claim -------------------------------------------------------------------------------

    def beat(self) -> None:
        """Renew the claim every third of the lease while the run goes on."""
        self._beat = asyncio.ensure_future(self._renew())

    async def _renew(self) -> None:
        while True:
            await asyncio.sleep(self.lease / 3)
            try:
                held = await self.store.renew(self.session_id, self.owner, time.time() + self.lease)
            except Exception as exc:  # a store hiccup: the next beat tries again
                log.warning("session_renew_failed", session_id=self.session_id, error=repr(exc))
                continue
            if not held:
                log.warning("session_claim_lost", session_id=self.session_id, owner=self.owner)
                return

    async def stop(self) -> None:
        """Stop renewing the claim."""
        beat, self._beat = self._beat, None
        if beat is not None:
            beat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await beat

    # the journal (durable/journal.py) ------------------------------------------------------

    async def starting(self, run: Run, call: ToolCall) -> None:
        """Store what the run committed so far and that ``call`` may run from now on."""
        async with self._lock:
            journal = capture(run, self.start).model_copy(
                update={"started": [*self.started, call.id]}
            )
            await self._write(
                run,
                f"before call {call.id!r} ({call.name}) ran: it did not run",
                journal=journal,
            )
            self.started.append(call.id)

    async def committed(self, run: Run, call: ToolCall) -> None:
        """Store ``call``'s tool message."""
        async with self._lock:
            await self._write(
                run,
                f"after call {call.id!r} ({call.name}) ran, before its result was stored: "
                "resume() asks for it again (an idempotent tool runs again)",
            )

    async def pausing(self, run: Run, response: AgentResponse) -> None:
        """Store the paused run before ``on_chat_paused`` fires."""
        async with self._lock:
            paused = capture(run, self.start)
            await self._write(run, "as it paused: the pause was not stored", paused=paused)
            self.paused = paused

    async def _write(
        self,
        run: Run,
        where: str,
        journal: PausedRun | None = None,
        paused: PausedRun | None = None,
    ) -> None:
        if self.failed is not None:  # the run is ending: nothing more is written
            raise self.failed
        new = run.history[self.stored :]
        began = time.monotonic()
        try:
            await self.store.progress(
                self.session_id,
                self.owner,
                Progress(at=self.stored, messages=new, journal=journal, paused=paused),
            )
        except StoreError as exc:
            self.failed_after(began)
            self.failed = StoreError(
                f"{exc}; the run stopped {where} (session.pending lists what waits)",
                store=exc.store,
                session_id=self.session_id,
            )
            raise self.failed from exc
        self.stored += len(new)

    # the end ----------------------------------------------------------------------------------

    async def release(
        self, run: Run, history: list[ChatMessage], started: bool, denied: str | None
    ) -> PausedRun | None:
        """Store the rest of the history and leave the session idle, or paused with the
        run's final ``on_event`` count and the plugins' per-run state; returns the paused run
        as stored."""
        await self.stop()
        if self.failed is not None:
            return await self.recover(history)
        paused = self.paused
        if paused is not None:
            # stored again with what on_chat_paused's handlers kept, which ran after pausing()
            paused = paused.model_copy(
                update={"records": RECORD_COUNTS.get(run.run_id, 0), "state": dict(run.carried)}
            )
        end = Release("paused" if paused else "idle", started, denied, paused)
        async with self._lock:
            began = time.monotonic()
            try:
                await self.store.release(
                    self.session_id, self.owner, self.stored, history[self.stored :], end
                )
            except StoreError as exc:
                self.failed = exc
                self.failed_after(began)
                await self.recover(history)
                raise
            self.stored = len(history)
        return paused

    async def recover(self, history: list[ChatMessage]) -> PausedRun | None:
        """After a store failure: store the recovery of what the store holds (see the
        module's docstring) and make ``history`` (the session's, which in memory ends with
        messages the store never took) what the store holds; returns the paused run it
        left, if any. Never raises: when the store cannot take it, ``history`` is emptied (the
        session reads it again), the claim expires and the next reader recovers the session."""
        history.clear()
        # the recovery ends by the failed write's deadline: a 1 s timeout is 1 s in all
        within = contextlib.nullcontext() if self.until is None else deadline(self.until)
        try:
            with within:
                return await self._recover(history)
        except (StoreError, ResumeError) as exc:
            log.warning(
                "session_recovery_failed",
                session_id=self.session_id,
                error=str(exc),
                note="the claim expires after its lease; the next read recovers the session",
            )
        return None

    async def _recover(self, history: list[ChatMessage]) -> PausedRun | None:
        row = await self.store.get(self.session_id)
        if row is None or row.status != "running" or row.owner != self.owner:
            return None  # nothing of ours to recover (released, or taken over)
        stored = await self.store.history(self.session_id)
        state = recovered(row, stored, self.agent, STORE_FAILED)
        if await self.store.reset(self.session_id, row.version, state):
            history.extend(stored)
            return state.paused
        return None

    def failed_after(self, began: float) -> None:
        """Note that a store operation that began at ``began`` (``time.monotonic()``) failed:
        what follows (the recovery, giving the claim back) ends by its deadline too."""
        # a SQLStore's timeout; a Store of another kind may have none: no shared deadline
        timeout = getattr(self.store, "timeout", None)
        self.until = None if timeout is None else began + float(timeout)

    async def give_back(self, paused: PausedRun | None, started: bool, denied: str | None) -> None:
        """Release a claim before the run started (it failed to start): the session is as it
        was, paused with ``paused`` or idle."""
        await self.stop()
        end = Release("paused" if paused else "idle", started, denied, paused)
        within = contextlib.nullcontext() if self.until is None else deadline(self.until)
        with within:
            await self.store.release(self.session_id, self.owner, self.stored, [], end)


def recovered(
    row: SessionRow, history: list[ChatMessage], root: Agent, cause: str | None = None
) -> Release:
    """The state of a session whose run stopped before its end was stored (its process died,
    ``cause`` the default, or its store failed): the calls left without a tool message are
    pending again (see the module's docstring), or the session is idle when its last run had
    nothing left open. ``cause`` words why in the calls' reasons (None: a process died)."""
    base = row.journal or row.paused
    idle = Release("idle", row.started, row.denied)
    if base is None or base.start >= len(history):
        return idle  # nothing of the run was stored: as if it never started
    open_calls = _open_calls(history)
    last = history[-1]
    if not open_calls and last.role == "assistant" and not last.tool_calls:
        return idle  # it had answered: only the release was missing
    previous = row.paused if row.paused is not None and row.paused.run_id == base.run_id else None
    asked = {p.call_id: p for p in previous.pending} if previous is not None else {}
    answers: dict[str, Answer] = dict(previous.answers) if previous is not None else {}
    started = set(row.journal.started) if row.journal is not None else set()
    agent = agents_by_name(root).get(base.agent, root)
    pending: list[PendingCall] = []
    for call in open_calls:
        arguments = asked[call.id].arguments if call.id in asked else dict(call.arguments)
        if call.id in started:
            found = agent.scopes.lookup(call.name)
            if found is not None and found[0].idempotent:
                reason = rerun(cause) if cause else RERUN
                answers[call.id] = Answer(approved=True, by="recovery", at=time.time())
            else:
                reason = interrupted(cause) if cause else INTERRUPTED
                answers.pop(call.id, None)
        else:
            reason = (
                asked[call.id].reason if call.id in asked else not_run(cause) if cause else NOT_RUN
            )
        pending.append(
            PendingCall(call_id=call.id, tool=call.name, arguments=arguments, reason=reason)
        )
    log.warning(
        "session_recovered",
        session_id=row.id,
        run_id=base.run_id,
        pending=[p.call_id for p in pending],
        interrupted=sorted(started & {p.call_id for p in pending}),
    )
    paused = base.model_copy(
        update={
            "pending": pending,
            "answers": {k: v for k, v in answers.items() if k in {p.call_id for p in pending}},
            "started": [],
            "working": None,
            "handoff": None,
            "terminating": False,
            "paused_at": time.time(),
        }
    )
    return Release("paused", row.started, row.denied, paused)


def _open_calls(history: list[ChatMessage]) -> list[ToolCall]:
    """The calls of the last assistant message that asked for tools and have no tool message."""
    for index in range(len(history) - 1, -1, -1):
        message = history[index]
        if message.role == "assistant" and message.tool_calls:
            answered = {m.tool_call_id for m in history[index + 1 :] if m.role == "tool"}
            return [c for c in message.tool_calls if c.id not in answered]
    return []


__all__ = [
    "INTERRUPTED",
    "NOT_RUN",
    "RERUN",
    "STORE_FAILED",
    "Keeper",
    "interrupted",
    "not_run",
    "owner_token",
    "recovered",
    "rerun",
]
