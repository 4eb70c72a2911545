"""``agenthooks.bridges.pausing``: a paused bridged run is filed under the handles its framework
resumes with and taken back once; ``BridgeRun`` carries its counts and its plugins' per-run
state across the pause."""

from __future__ import annotations

from typing import Any

import pytest

from agenthooks import AgentResponse, HookBus, ToolCall, Usage
from agenthooks.bridges import (
    PAUSED_RUNS,
    BridgeRun,
    BridgeTool,
    Carried,
    PausedRuns,
    bridge_capabilities,
)
from agenthooks.events import ChatPausedContext, RunResumedContext

CAPS = bridge_capabilities(
    "test-framework", "agenthooks-test", "a test", fires=["on_chat_paused", "on_run_resumed"]
)


def test_a_run_filed_under_several_keys_is_taken_once() -> None:
    runs = PausedRuns()
    carried = Carried(run_id="r1", iteration=2, tool_calls=3, usage=Usage(total_tokens=9))
    runs.keep([("fw", "c1"), ("fw", "c2")], carried)
    assert len(runs) == 1
    assert runs.take([("fw", "x"), ("fw", "c2")]) is carried
    assert runs.take([("fw", "c1")]) is None  # every key of the run went with it
    assert len(runs) == 0


def test_the_oldest_pauses_go_when_too_many_are_kept() -> None:
    runs = PausedRuns(kept=2)
    for n in range(3):
        runs.keep([n], Carried(run_id=f"r{n}"))
    assert runs.take([0]) is None
    assert [runs.take([n]).run_id for n in (1, 2)] == ["r1", "r2"]  # type: ignore[union-attr]


def test_carried_round_trips_as_json() -> None:
    carried = Carried(
        run_id="r1",
        iteration=1,
        tool_calls=2,
        usage=Usage(input_tokens=4, output_tokens=1, total_tokens=5, cost=0.01),
        state={"limits": {"counters": {"tool_calls": 2.0}}},
    )
    assert Carried.load(carried.dump()) == carried


async def test_a_bridge_run_carries_its_counts_and_its_plugins_state() -> None:
    bus = HookBus()
    seen: list[RunResumedContext] = []

    def keep(ctx: ChatPausedContext) -> None:
        ctx.state["mine"] = {"calls": ctx.usage.total_tokens}

    bus.on("on_chat_paused", keep)
    bus.on("on_run_resumed", seen.append)
    run = BridgeRun(bus, CAPS, agent="a")
    await run.loop_start()
    run.usage = Usage(total_tokens=7)

    async def body(arguments: dict[str, Any]) -> str:
        return "ok"

    await run.tool_call(ToolCall(id="c1", name="t", arguments={}), BridgeTool("t"), body)
    await run.paused(AgentResponse(finish_reason="paused"))
    PAUSED_RUNS.keep([("test-framework", "c9")], run.carry())

    again = BridgeRun(bus, CAPS, agent="a")
    carried = PAUSED_RUNS.take([("test-framework", "c9")])
    assert carried is not None
    again.resume_from(carried)
    await again.resumed([], {"c9": "approved"})
    assert (again.run_id, again.iteration, again.tool_calls) == (run.run_id, 0, 1)
    assert again.usage == Usage(total_tokens=7)
    [resumed] = seen
    assert resumed.state == {"mine": {"calls": 7}}
    assert resumed.usage == Usage(total_tokens=7)
    assert resumed.decisions == {"c9": "approved"}
    await again.loop_start()
    assert again.iteration == 1  # the turns go on


def test_a_resume_takes_the_run_of_this_process_first_then_the_stored_one() -> None:
    runs = PausedRuns()
    here = Carried(run_id="r1", tool_calls=2)
    stored = Carried(run_id="r1", tool_calls=1, usage=Usage(total_tokens=3)).dump()
    runs.keep([("fw", "c1")], here)
    assert runs.resume([("fw", "c1")], stored, "r1") is here
    # another process: nothing kept here, the framework's copy goes on
    elsewhere = runs.resume([("fw", "c1")], stored, "r1")
    assert elsewhere == Carried(run_id="r1", tool_calls=1, usage=Usage(total_tokens=3))
    assert runs.resume([("fw", "c1")], stored, "r2") is None  # another run's counts
    assert runs.resume([("fw", "c1")], None, "r1") is None  # nothing stored


def test_a_malformed_stored_run_is_a_typed_error_naming_what_is_missing() -> None:
    runs = PausedRuns()
    with pytest.raises(ValueError, match=r"must be Carried.dump\(\)'s dict, got 'oops'"):
        runs.resume([("fw", "c1")], "oops")
    with pytest.raises(
        ValueError, match=r"need a 'run_id' \(Carried.dump\(\)\), got \{'tool_calls': 2\}"
    ):
        runs.resume([("fw", "c1")], {"tool_calls": 2})
