"""A Strands run paused through its interrupts keeps its counts: a ``Limits`` tool-call cap,
the turns and the usage go on from what the run used before the pause, and
``on_run_resumed`` hands the plugins' per-run state back."""

from __future__ import annotations

from typing import Any

import pytest
from agenthooks_limits import Cap, Limits
from agenthooks_strands.testing import tool_calls
from strands_helpers import RAN, build, tool_results
from test_strands_approval import answer

from agenthooks import Approve, Ask, HookBus, StopRun
from agenthooks.testing import HookRecorder

DENIED = 'Tool call "read_file" was denied (tool call limit: 2 of 2 tool calls used)'


async def test_the_tool_call_cap_and_the_usage_go_on_after_a_resume() -> None:
    bus = HookBus()
    bus.use(Limits(max_tool_calls=2))
    bus.on("pre_tool_call", lambda ctx: Ask("delete?"), match="delete_file")
    recorder = HookRecorder()
    recorder.attach(bus)
    script: list[Any] = [
        tool_calls(("r1", "read_file", {"path": "/a"})),
        tool_calls(("d1", "delete_file", {"path": "/b"})),
        tool_calls(("r2", "read_file", {"path": "/c"})),
        "done",
    ]
    agent, model = build(bus, script)
    paused = await agent.invoke_async("go")
    assert paused.stop_reason == "interrupt"
    [pause] = recorder.of("on_chat_paused")
    assert pause.response.usage.total_tokens == 30

    result = await agent.invoke_async(answer(paused, Approve()))
    assert str(result).strip() == "done"
    # the read before the pause and the approved delete used the cap of two
    assert RAN == [("read_file", "/a"), ("delete_file", "/b")]
    assert tool_results(model)["r2"] == ("error", DENIED)
    [back] = recorder.of("on_run_resumed")
    assert back.run_id == pause.run_id
    assert back.decisions == {"d1": Approve()}
    assert back.usage.total_tokens == 30
    assert "limits" in back.state
    [done] = recorder.of("on_chat_done")
    assert done.response.usage.total_tokens == 60  # four model calls, both parts of the run
    assert done.response.iterations == 4


async def test_the_token_cap_counts_the_tokens_used_before_the_pause() -> None:
    bus = HookBus()
    bus.use(Limits(max_tokens=Cap(40, "stop")))
    bus.on("pre_tool_call", lambda ctx: Ask("delete?"), match="delete_file")
    stops: list[str] = []
    bus.on("on_stop", lambda ctx: stops.append(ctx.reason))
    script: list[Any] = [
        tool_calls(("r1", "read_file", {"path": "/a"})),
        tool_calls(("d1", "delete_file", {"path": "/b"})),
        tool_calls(("r2", "read_file", {"path": "/c"})),
        "done",
    ]
    agent, model = build(bus, script)
    paused = await agent.invoke_async("go")
    with pytest.raises(StopRun, match="token limit: 45 of 40 tokens used"):
        await agent.invoke_async(answer(paused, Approve()))
    # 15 + 15 before the pause, 15 after: the cap stops the run before its fourth model call
    assert stops == ["token limit: 45 of 40 tokens used"]
    assert len(model.requests) == 3
    assert RAN == [("read_file", "/a"), ("delete_file", "/b"), ("read_file", "/c")]
