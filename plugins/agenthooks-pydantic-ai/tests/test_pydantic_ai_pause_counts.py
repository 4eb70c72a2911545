"""A Pydantic AI run paused through deferred tools keeps its counts: a ``Limits`` tool-call
cap, the turns and the usage go on from what the run used before the pause, and the resumed
run starts with ``on_run_resumed`` (the decisions and the plugins' per-run state)."""

from __future__ import annotations

from typing import Any

import pytest
from agenthooks_limits import Cap, Limits
from agenthooks_pydantic_ai import resume_results
from pydantic_ai import DeferredToolRequests
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
from pydantic_ai.usage import RequestUsage
from pydantic_ai_script import Script, file_agent, tool_returns

from agenthooks import Approve, Ask, HookBus, StopRun
from agenthooks.testing import HookRecorder

DENIED = 'Tool call "read_file" was denied (tool call limit: 2 of 2 tool calls used)'


def turn(*parts: Any) -> ModelResponse:
    return ModelResponse(parts=list(parts), usage=RequestUsage(input_tokens=10, output_tokens=5))


async def test_the_tool_call_cap_and_the_usage_go_on_after_a_resume() -> None:
    bus = HookBus()
    bus.use(Limits(max_tool_calls=2))
    bus.on("pre_tool_call", lambda ctx: Ask("delete?"), match="delete_file")
    recorder = HookRecorder()
    recorder.attach(bus)
    script = Script(
        turn(ToolCallPart("read_file", {"path": "/a"}, tool_call_id="r1")),
        turn(ToolCallPart("delete_file", {"path": "/b"}, tool_call_id="d1")),
        turn(ToolCallPart("read_file", {"path": "/c"}, tool_call_id="r2")),
        turn(TextPart("done")),
    )
    agent, ran = file_agent(script, bus, output_type=[str, DeferredToolRequests])
    paused = await agent.run("go")
    assert isinstance(paused.output, DeferredToolRequests)
    [pause] = recorder.of("on_chat_paused")
    assert pause.response.usage.total_tokens == 30

    recorder.clear()
    resumed = await agent.run(
        message_history=paused.all_messages(),
        deferred_tool_results=resume_results({"d1": Approve()}),
    )
    assert resumed.output == "done"
    # the read before the pause and the approved delete used the cap of two
    assert ran == ["read_file /a", "delete_file /b"]
    assert tool_returns(script.requests[-1]) == [
        ("r1", "contents of /a", "success"),
        ("d1", "deleted /b", "success"),
        ("r2", DENIED, "denied"),
    ]
    assert recorder.names()[0] == "on_run_resumed"  # not a new chat: the paused run goes on
    [back] = recorder.of("on_run_resumed")
    assert back.run_id == pause.run_id
    assert [p.call_id for p in back.pending] == ["d1"]
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
    script = Script(
        turn(ToolCallPart("read_file", {"path": "/a"}, tool_call_id="r1")),
        turn(ToolCallPart("delete_file", {"path": "/b"}, tool_call_id="d1")),
        turn(ToolCallPart("read_file", {"path": "/c"}, tool_call_id="r2")),
        turn(TextPart("done")),
    )
    agent, ran = file_agent(script, bus, output_type=[str, DeferredToolRequests])
    paused = await agent.run("go")
    with pytest.raises(StopRun, match="token limit: 45 of 40 tokens used"):
        await agent.run(
            message_history=paused.all_messages(),
            deferred_tool_results=resume_results({"d1": Approve()}),
        )
    # 15 + 15 before the pause, 15 after: the cap stops the run before its fourth model call
    assert stops == ["token limit: 45 of 40 tokens used"]
    assert script.calls == 3
    assert ran == ["read_file /a", "delete_file /b", "read_file /c"]
