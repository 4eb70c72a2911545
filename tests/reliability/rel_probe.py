"""The probe every reliability test runs: it records each run's events and checks the invariants.

``Probe.attach(bus)`` registers one async observer on every event but ``on_event``, first in
each chain. It records the emission (run, agent, tool call, message) and keeps count of the
handlers in flight per run: a handler of a run that starts while another handler of the same
run is still awaiting is an overlap. ``Probe.track(fn)`` wraps a test's own handler so it
counts as in flight too.

``run_problems(probe.events, ...)`` checks, for every run seen (sub-agent runs included):
exactly one terminal event, then ``on_chat_end`` (then ``on_session_end`` for a top-level run
of a Session) and nothing else of that run after it; every tool call of the run answered by
exactly one tool message, right after its assistant message; every ``on_subagent_start``
closed by one ``on_subagent_stop``.
"""

from __future__ import annotations

import asyncio
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from agenthooks import CATALOG, ChatMessage, HookBus

TERMINAL = ("on_chat_done", "on_chat_abort", "on_chat_error")
FIRST = 10**9  # the probe runs before every other ordinary handler
PAUSES = 2  # awaits inside each probe handler: the window in which an overlap shows


@dataclass(frozen=True)
class Emission:
    """One event as the probe saw it."""

    name: str
    run_id: str | None
    parent_run_id: str | None
    agent: str
    tool_call_id: str | None
    message: ChatMessage | None = None
    error: BaseException | None = None
    response: Any = None
    reason: Any = None


@dataclass
class Probe:
    """Records every emission of the buses it is attached to and the overlaps it saw.

    ``on_step`` (optional) is awaited inside every probe handler with the running step
    number: the cancellation tests cancel the run there. ``ticks`` counts the steps of tools
    and providers (``await probe.tick()``), so a stalled run can be told from a slow one.
    """

    events: list[Emission] = field(default_factory=list)
    overlaps: list[str] = field(default_factory=list)
    inflight: Counter[str | None] = field(default_factory=Counter)
    in_handler: dict[str | None, str] = field(default_factory=dict)
    ticks: int = 0
    steps: int = 0
    on_step: Callable[[int, str], Awaitable[None]] | None = None

    def attach(self, bus: HookBus) -> None:
        """Observe every event of ``bus`` (``on_event`` aside), first in each chain."""
        attach_current(bus, lambda: self)

    async def observe(self, name: str, ctx: Any) -> None:
        """Record one emission and hold it in flight for a few awaits."""
        self.events.append(_emission(name, ctx))
        await self._held(name, ctx.run_id, pauses=PAUSES)

    async def _held(self, name: str, run_id: str | None, *, pauses: int) -> None:
        """Mark a handler of ``run_id`` in flight across ``pauses`` awaits (and the step hook)."""
        if self.inflight[run_id] and run_id:
            self.overlaps.append(f"{name} started while {self.in_handler[run_id]} was in flight")
        self.inflight[run_id] += 1
        self.in_handler[run_id] = name
        try:
            self.steps += 1
            if self.on_step is not None:
                await self.on_step(self.steps, name)
            for _ in range(pauses):
                await asyncio.sleep(0)
        finally:
            self.inflight[run_id] -= 1

    def track(self, name: str, fn: Callable[[Any], Any]) -> Callable[[Any], Awaitable[Any]]:
        """``fn`` as an async handler of ``name`` that counts as in flight while it runs."""

        async def tracked(ctx: Any) -> Any:
            run_id = ctx.run_id
            if self.inflight[run_id] and run_id:
                self.overlaps.append(
                    f"{name} handler started while {self.in_handler[run_id]} was in flight"
                )
            self.inflight[run_id] += 1
            self.in_handler[run_id] = name
            try:
                await asyncio.sleep(0)
                result = fn(ctx)
                if asyncio.iscoroutine(result):
                    result = await result
                return result
            finally:
                self.inflight[run_id] -= 1

        tracked.__qualname__ = f"tracked.{name}"
        return tracked

    async def tick(self) -> None:
        """A step of a tool or provider: counts as progress and may be a cancel point."""
        self.ticks += 1
        self.steps += 1
        if self.on_step is not None:
            await self.on_step(self.steps, "tick")
        await asyncio.sleep(0)

    @property
    def progress(self) -> int:
        """Grows while the run makes progress."""
        return len(self.events) + self.ticks

    def names(self, *, skip_stream: bool = False) -> list[str]:
        """The event names in firing order."""
        return [
            e.name for e in self.events if not (skip_stream and e.name.startswith("on_stream_"))
        ]


def attach_current(bus: HookBus, current: Callable[[], Probe]) -> None:
    """Observe every event of ``bus`` (``on_event`` aside) with the probe ``current()`` gives
    at each emission, so one bus serves many runs, each with its own probe."""
    for name in CATALOG:
        if name != "on_event":
            bus.on(name, _recorder(name, current), priority=FIRST)


def _recorder(name: str, current: Callable[[], Probe]) -> Callable[[Any], Awaitable[None]]:
    async def record(ctx: Any) -> None:
        await current().observe(name, ctx)

    record.__qualname__ = f"Probe.{name}"
    return record


def _emission(name: str, ctx: Any) -> Emission:
    data = ctx.__dict__
    return Emission(
        name=name,
        run_id=data.get("run_id"),
        parent_run_id=data.get("parent_run_id"),
        agent=data.get("agent", ""),
        tool_call_id=data.get("tool_call_id"),
        message=data.get("message") if name == "on_message" else None,
        error=data.get("error") if name in ("on_chat_error", "on_chat_end") else None,
        response=data.get("response") if name in ("on_chat_done", "on_chat_end") else None,
        reason=data.get("reason") if name in ("on_stop", "on_chat_abort") else None,
    )


TEARDOWN_BROKEN = "one terminal event, then on_chat_end (then on_session_end)"
CALLS_BROKEN = "one tool message per tool call"
SUBAGENT_BROKEN = "on_subagent_stop for every on_subagent_start"
OVERLAP = "handlers of one run never overlap"


def run_problems(events: list[Emission], *, session: bool) -> list[tuple[str, str]]:
    """Every broken run invariant in ``events`` as (kind, detail); empty when all hold."""
    runs: dict[str | None, list[Emission]] = defaultdict(list)
    for e in events:
        if e.name != "on_session_close":
            runs[e.run_id].append(e)
    problems: list[tuple[str, str]] = []
    for run_id, evs in runs.items():
        top = evs[0].parent_run_id is None
        label = f"{'run' if top else 'sub-agent run'} of {evs[0].agent}"
        names = [e.name for e in evs]
        ends = [i for i, n in enumerate(names) if n in TERMINAL]
        if len(ends) != 1:
            problems.append(
                (TEARDOWN_BROKEN, f"{label}: {len(ends)} terminal events, ends {_tail(names)}")
            )
        else:
            after = names[ends[0] + 1 :]
            want = ["on_chat_end"] + (["on_session_end"] if session and top else [])
            if after != want:
                problems.append(
                    (TEARDOWN_BROKEN, f"{label}: after {names[ends[0]]} came {after}, not {want}")
                )
        messages = [e.message for e in evs if e.message]
        problems += [(CALLS_BROKEN, f"{label}: {p}") for p in transcript_problems(messages)]
        problems += [(SUBAGENT_BROKEN, f"{label}: {p}") for p in _subagent_problems(evs)]
        if run_id is None:
            problems.append((TEARDOWN_BROKEN, f"{label}: events without a run id"))
    return problems


def _tail(names: list[str]) -> str:
    return " → ".join(names[-4:])


def _subagent_problems(evs: list[Emission]) -> list[str]:
    started = Counter(e.tool_call_id for e in evs if e.name == "on_subagent_start")
    stopped = Counter(e.tool_call_id for e in evs if e.name == "on_subagent_stop")
    if started != stopped:
        return [f"on_subagent_start for {dict(started)} but on_subagent_stop for {dict(stopped)}"]
    return []


def transcript_problems(messages: list[ChatMessage], secret: str | None = None) -> list[str]:
    """What a strict OpenAI-style provider would reject in ``messages``.

    Every assistant tool call is answered by exactly one tool message in the block of tool
    messages right after it; a tool message answers a call of that block's assistant message;
    an assistant message has content or tool calls; ``secret`` appears in no message.
    """
    problems: list[str] = []
    open_ids: list[str] | None = None  # the calls of the assistant message being answered
    for i, m in enumerate(messages):
        if secret is not None and secret in (m.content or ""):
            problems.append(f"message {i} ({m.role}) carries the secret: {m.content!r}")
        if m.role == "tool":
            if open_ids is None or m.tool_call_id not in open_ids:
                problems.append(
                    f"message {i}: tool message for {m.tool_call_id!r} answers no open call"
                )
            else:
                open_ids.remove(m.tool_call_id)
            continue
        if open_ids:
            problems.append(f"message {i} ({m.role}) comes while calls {open_ids} are unanswered")
        open_ids = None
        if m.role == "assistant":
            if m.tool_calls:
                ids = [c.id for c in m.tool_calls]
                if len(set(ids)) != len(ids):
                    problems.append(f"message {i}: duplicate tool call ids {ids}")
                open_ids = list(ids)
            elif m.content is None:
                problems.append(f"message {i}: assistant message with neither content nor calls")
    if open_ids:
        problems.append(f"the transcript ends with calls {open_ids} unanswered")
    return problems
