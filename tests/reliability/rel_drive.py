"""Driving one run to its outcome: ``chat()`` or ``chat_stream()``, a hang detector, the
pending-task check and the strict next turn.

A run in these tests never waits on a timer or a thread (tools and providers are async), so a
run whose probe saw no progress for ``IDLE`` loop iterations is stuck for good: it is reported
as ``hung`` and cancelled, never waited on by the clock.
"""

from __future__ import annotations

import asyncio
import os
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import Any

from hypothesis import Phase
from rel_probe import OVERLAP, Probe, run_problems, transcript_problems
from rel_tally import Problem

from agenthooks import (
    Agent,
    AgentResponse,
    ChatMessage,
    FinalResponse,
    ProviderRequest,
    ScriptedProvider,
    Session,
    TextDelta,
    ToolCallEnd,
)

SOAK = os.environ.get("AGENTHOOKS_SOAK", "") not in ("", "0")
IDLE = 3000  # loop iterations without progress that mean a run is stuck


def scale(default: Any, soak: Any) -> Any:
    """``default`` under ``make test``, ``soak`` under ``make soak`` (AGENTHOOKS_SOAK=1)."""
    return soak if SOAK else default


# hypothesis: shrinking a failure costs many runs, so make test reports the first failing
# example as found and make soak shrinks it to a minimal one
PHASES = scale(
    (Phase.explicit, Phase.reuse, Phase.generate),
    (Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink),
)


@dataclass
class Outcome:
    """How a run ended for its caller, and what came out of it."""

    kind: str  # "response", "error" or "hung"
    response: AgentResponse | None = None
    error: BaseException | None = None
    items: list[Any] = field(default_factory=list)  # what chat_stream() yielded
    leftover_tasks: int = 0

    def summary(self) -> tuple[Any, ...]:
        """The outcome as a comparable value (the same for chat() and chat_stream())."""
        if self.kind == "response":
            r = self.response
            assert r is not None
            return ("response", r.content, r.finish_reason, r.agent, message_summary(r.messages))
        if self.kind == "error":
            return ("error", type(self.error).__name__, str(self.error))
        return ("hung",)

    def describe(self) -> str:
        if self.kind == "response":
            r = self.response
            assert r is not None
            return f"response {r.finish_reason} {r.content!r}"
        if self.kind == "error":
            return f"{type(self.error).__name__}: {str(self.error)[:80]}"
        return "hung (no progress, never returned)"

    def texts(self) -> list[str]:
        """Every text that left the run: the answer, the stream's deltas and tool errors."""
        out: list[str] = []
        if self.response is not None:
            out.append(self.response.content or "")
            out += [m.content or "" for m in self.response.messages]
        for item in self.items:
            if isinstance(item, TextDelta):
                out.append(item.text)
            elif isinstance(item, ToolCallEnd):
                out.append(item.error or "")
                out.append(str(item.result))
            elif isinstance(item, FinalResponse):
                out.append(item.response.content or "")
        return out


def message_summary(messages: list[ChatMessage]) -> list[tuple[Any, ...]]:
    """Messages as comparable tuples (role, content, call ids, answered id, is_error)."""
    return [
        (m.role, m.content, tuple(c.id for c in m.tool_calls), m.tool_call_id, m.is_error)
        for m in messages
    ]


async def drive(
    session: Session,
    message: str,
    probe: Probe,
    *,
    stream: bool,
    on_start: Any = None,
    signal: asyncio.Event | None = None,
) -> Outcome:
    """Run one ``chat()`` / ``chat_stream()`` of ``session`` to its outcome.

    ``on_start(task)`` (optional) gets the task that runs the call (the cancellation tests
    cancel it); ``signal`` is the run's abort signal. Tasks left behind after the call
    returned are counted and cancelled.
    """
    before = asyncio.all_tasks()
    items: list[Any] = []

    async def call() -> AgentResponse | None:
        if not stream:
            return await session.chat(message, signal=signal)
        async with aclosing(session.chat_stream(message, signal=signal)) as events:
            async for item in events:
                items.append(item)
        final = [i for i in items if isinstance(i, FinalResponse)]
        return final[-1].response if final else None

    task = asyncio.ensure_future(call())
    if on_start is not None:
        on_start(task)
    hung = not await settle(task, probe)
    if hung:
        task.cancel()
        await settle(task, probe)
    leftover = await _leftover(before)
    if hung:
        return Outcome("hung", items=items, leftover_tasks=leftover)
    if task.cancelled():
        return Outcome(
            "error", error=asyncio.CancelledError(), items=items, leftover_tasks=leftover
        )
    error = task.exception()
    if error is not None:
        return Outcome("error", error=error, items=items, leftover_tasks=leftover)
    response = task.result()
    if response is None:
        return Outcome("hung", items=items, leftover_tasks=leftover)  # a stream without its end
    return Outcome("response", response=response, items=items, leftover_tasks=leftover)


async def settle(task: asyncio.Future[Any], probe: Probe) -> bool:
    """Let ``task`` run until it is done (True) or makes no progress for ``IDLE`` iterations."""
    idle, seen = 0, probe.progress
    while not task.done():
        await asyncio.sleep(0)
        if probe.progress != seen:
            idle, seen = 0, probe.progress
        else:
            idle += 1
            if idle > IDLE:
                return False
    return True


async def _leftover(before: set[asyncio.Task[Any]]) -> int:
    """Tasks the run left pending (after a few iterations to let them finish); cancelled."""
    for _ in range(5):
        await asyncio.sleep(0)
    current = asyncio.current_task()
    left = [t for t in asyncio.all_tasks() - before if t is not current and not t.done()]
    for t in left:
        t.cancel()
    if left:
        await asyncio.wait(left, timeout=1)
    return len(left)


async def strict_next_turn(history: list[ChatMessage], secret: str | None) -> list[str]:
    """Run one more turn on ``history`` through a strict provider; what it rejected.

    The provider checks the request the runtime builds from the transcript (every call
    answered once, right after it; no secret) and answers only when it accepts it.
    """
    rejected: list[str] = []

    def strict(request: ProviderRequest) -> str:
        rejected.extend(transcript_problems(request.messages, secret))
        if request.messages[-1].role != "user" or request.messages[-1].content != "next":
            rejected.append("the next request does not end with the new user message")
        return "fine"

    session = Session(Agent("next", provider=ScriptedProvider(strict)), history=history)
    try:
        await session.chat("next")
    except Exception as exc:  # the runtime itself refused the history
        rejected.append(f"the next turn failed: {type(exc).__name__}: {exc}")
    return rejected


HUNG = "the call returns (never hangs)"
PENDING = "no pending tasks after the run"
STRICT = "the transcript is accepted for the next turn"
SECRET = "no secret in any output"


async def invariant_problems(
    probe: Probe,
    outcome: Outcome,
    history: list[ChatMessage],
    *,
    session: bool = True,
    secret: str | None = None,
) -> list[Problem]:
    """Every invariant of the suite on one finished run, as (kind, detail) problems."""
    problems = run_problems(probe.events, session=session)
    if probe.overlaps:
        problems.append((OVERLAP, f"{probe.overlaps[0]} ({len(probe.overlaps)} overlaps)"))
    if outcome.kind == "hung":
        problems.append((HUNG, f"no progress after {len(probe.events)} events"))
    if outcome.leftover_tasks:
        problems.append((PENDING, f"{outcome.leftover_tasks} task(s) left pending"))
    if secret is not None:
        seen = [e.message.content or "" for e in probe.events if e.message is not None]
        for where, texts in (
            ("history", [m.content or "" for m in history]),
            ("the caller's output", outcome.texts()),
            ("on_message", seen),
        ):
            leaked = [t for t in texts if secret in t]
            if leaked:
                problems.append((SECRET, f"in {where}: {leaked[0][:120]!r}"))
    problems += [(STRICT, p) for p in await strict_next_turn(history, None)]
    return problems
