"""A run paused through the SDK's approvals keeps its counts: a ``Limits`` tool-call cap, the
token cap, the turns and the usage go on from what the run used before the pause."""

from __future__ import annotations

from typing import Any

import pytest
from agenthooks_limits import Cap, Limits
from agenthooks_openai_agents import AgentHooksRunner
from agents import Agent, Usage, function_tool
from agents.testing import ScriptedModel, assistant_message, function_call
from openai_agents_helpers import Recorder

from agenthooks import Ask, HookBus, StopRun

ran: list[str] = []
DENIED = 'Tool call "read_file" was denied (tool call limit: 2 of 2 tool calls used)'


@function_tool
def delete_file(path: str) -> str:
    """Delete a file."""
    ran.append(f"delete {path}")
    return f"deleted {path}"


@function_tool
def read_file(path: str) -> str:
    """Read a file."""
    ran.append(f"read {path}")
    return f"contents of {path}"


def per_call() -> Usage:
    return Usage(requests=1, input_tokens=10, output_tokens=5, total_tokens=15)


async def test_the_tool_call_cap_and_the_usage_go_on_after_a_resume() -> None:
    ran.clear()
    bus = HookBus()
    bus.use(Limits(max_tool_calls=2))
    bus.on("pre_tool_call", lambda ctx: Ask("delete?"), match="delete_file")
    recorder = Recorder(bus)
    model = ScriptedModel(
        [
            [function_call("read_file", {"path": "/a"}, call_id="pc_r1")],
            [function_call("delete_file", {"path": "/b"}, call_id="pc_d1")],
            [function_call("read_file", {"path": "/c"}, call_id="pc_r2")],
            [assistant_message("done")],
        ],
        default_usage=per_call(),
    )
    agent: Agent[Any] = Agent(name="assistant", model=model, tools=[read_file, delete_file])
    runner = AgentHooksRunner(bus)

    result = await runner.run(agent, "go")
    assert [item.name for item in result.interruptions] == ["delete_file"]
    [paused] = recorder.of("on_chat_paused")
    assert paused.response.usage.total_tokens == 30
    state = result.to_state()
    state.approve(result.interruptions[0])

    resumed = await runner.run(agent, state)
    assert resumed.final_output == "done"
    # the read before the pause and the approved delete used the cap of two
    assert ran == ["read /a", "delete /b"]
    outputs = [
        (item["call_id"], item["output"])
        for item in model.calls[3].input
        if isinstance(item, dict) and item.get("type") == "function_call_output"
    ]
    assert outputs[-1] == ("pc_r2", DENIED)
    [back] = recorder.of("on_run_resumed")
    assert back.run_id == paused.run_id
    assert back.usage.total_tokens == 30  # what the run used before its pause
    assert "limits" in back.state
    [done] = recorder.of("on_chat_done")
    assert done.response.usage.total_tokens == 60  # four model calls, both parts of the run
    assert done.response.iterations == 4


async def test_the_token_cap_counts_the_tokens_used_before_the_pause() -> None:
    ran.clear()
    bus = HookBus()
    bus.use(Limits(max_tokens=Cap(40, "stop")))
    bus.on("pre_tool_call", lambda ctx: Ask("delete?"), match="delete_file")
    stops: list[str] = []
    bus.on("on_stop", lambda ctx: stops.append(ctx.reason))
    model = ScriptedModel(
        [
            [function_call("read_file", {"path": "/a"}, call_id="tc_r1")],
            [function_call("delete_file", {"path": "/b"}, call_id="tc_d1")],
            [function_call("read_file", {"path": "/c"}, call_id="tc_r2")],
            [assistant_message("done")],
        ],
        default_usage=per_call(),
    )
    agent: Agent[Any] = Agent(name="assistant", model=model, tools=[read_file, delete_file])
    runner = AgentHooksRunner(bus)
    result = await runner.run(agent, "go")
    state = result.to_state()
    state.approve(result.interruptions[0])
    with pytest.raises(StopRun, match="token limit: 45 of 40 tokens used"):
        await runner.run(agent, state)
    # 15 + 15 before the pause, 15 after: the cap stops the run before its fourth model call
    assert stops == ["token limit: 45 of 40 tokens used"]
    assert len(model.calls) == 3
    assert ran == ["read /a", "delete /b", "read /c"]
