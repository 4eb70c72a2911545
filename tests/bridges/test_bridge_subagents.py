"""``delegate``: a sub-agent a framework runs as a tool, reported as our runtime reports one
(``on_subagent_start``, the sub-agent, ``on_subagent_stop`` with its result or error)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agenthooks import HookBus
from agenthooks.bridges import BridgeRun, bridge_capabilities, delegate

CAPS = bridge_capabilities(
    "Loop", "agenthooks-loop", "loop(bus)", fires=["on_subagent_start", "on_subagent_stop"]
)


def recorded(bus: HookBus) -> list[tuple[str, Any]]:
    seen: list[tuple[str, Any]] = []
    for name in ("on_subagent_start", "on_subagent_stop"):
        bus.on(name, lambda ctx, name=name: seen.append((name, ctx)))
    return seen


async def test_a_delegation_fires_start_then_stop_with_the_result() -> None:
    bus = HookBus()
    seen = recorded(bus)
    run = BridgeRun(bus, CAPS, agent="lead")

    async def research() -> str:
        assert [n for n, _ in seen] == ["on_subagent_start"]
        return "Phobos and Deimos"

    got = await delegate(run, "researcher", "moons of Mars", "call_1", research)

    assert got == "Phobos and Deimos"
    assert [n for n, _ in seen] == ["on_subagent_start", "on_subagent_stop"]
    start, stop = seen[0][1], seen[1][1]
    assert (start.subagent, start.task, start.tool_call_id, start.agent) == (
        "researcher",
        "moons of Mars",
        "call_1",
        "lead",
    )
    assert (stop.result, stop.error, stop.run_id) == ("Phobos and Deimos", None, run.run_id)
    assert stop.duration is not None and stop.duration >= 0


async def test_an_error_is_reported_and_goes_on_unchanged() -> None:
    bus = HookBus()
    seen = recorded(bus)
    run = BridgeRun(bus, CAPS, agent="lead")
    failure = RuntimeError("the archive is down")

    async def research() -> str:
        raise failure

    with pytest.raises(RuntimeError) as raised:
        await delegate(run, "researcher", "moons of Mars", "call_1", research)

    assert raised.value is failure
    assert [n for n, _ in seen] == ["on_subagent_start", "on_subagent_stop"]
    assert (seen[1][1].result, seen[1][1].error) == (None, failure)


async def test_a_cancelled_sub_agent_reports_its_end_and_the_cancellation_goes_on() -> None:
    bus = HookBus()
    seen = recorded(bus)
    run = BridgeRun(bus, CAPS, agent="lead")
    started = asyncio.Event()

    async def research() -> str:
        started.set()
        await asyncio.sleep(60)
        return "never"

    task = asyncio.ensure_future(delegate(run, "researcher", "moons", "call_1", research))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    assert [n for n, _ in seen] == ["on_subagent_start", "on_subagent_stop"]
    assert isinstance(seen[1][1].error, asyncio.CancelledError)


async def test_nobody_listening_runs_the_body_alone() -> None:
    run = BridgeRun(HookBus(), CAPS, agent="lead")

    async def research() -> str:
        return "answer"

    assert await delegate(run, "researcher", "task", None, research) == "answer"
