"""A Pydantic AI run paused through deferred tools and resumed from its history stored as
JSON, by a fresh agent (a fresh bus, plugins, capability and model, nothing of the pause in
this process's ``PAUSED_RUNS``), keeps its counts: they travel in the paused response's
``metadata``, which ``ModelMessagesTypeAdapter`` keeps and the model never sees."""

from __future__ import annotations

from typing import Any

from agenthooks_limits import Limits
from agenthooks_pydantic_ai import resume_results
from pydantic_ai import DeferredToolRequests
from pydantic_ai.messages import ModelMessagesTypeAdapter, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.usage import RequestUsage
from pydantic_ai_script import Script, file_agent, tool_returns

from agenthooks import Approve, Ask, HookBus
from agenthooks.bridges import PAUSED_RUNS, STORED_KEY
from agenthooks.testing import HookRecorder

DENIED = 'Tool call "read_file" was denied (tool call limit: 2 of 2 tool calls used)'


def turn(*parts: Any) -> ModelResponse:
    return ModelResponse(parts=list(parts), usage=RequestUsage(input_tokens=10, output_tokens=5))


def _bus() -> tuple[HookBus, HookRecorder]:
    bus = HookBus()
    bus.use(Limits(max_tool_calls=2))
    bus.on("pre_tool_call", lambda ctx: Ask("delete?"), match="delete_file")
    recorder = HookRecorder()
    recorder.attach(bus)
    return bus, recorder


async def test_a_fresh_agent_on_the_stored_history_goes_on_from_the_counts() -> None:
    bus, before = _bus()
    script = Script(
        turn(ToolCallPart("read_file", {"path": "/a"}, tool_call_id="r1")),
        turn(ToolCallPart("delete_file", {"path": "/b"}, tool_call_id="d1")),
    )
    agent, ran = file_agent(script, bus, output_type=[str, DeferredToolRequests])
    paused = await agent.run("go")
    assert isinstance(paused.output, DeferredToolRequests)
    [pause] = before.of("on_chat_paused")
    assert pause.response.usage.total_tokens == 30
    stored = paused.all_messages_json()
    assert paused.all_messages()[-1].metadata[STORED_KEY]["tool_calls"] == 1  # the delete waits
    # what a process that never saw the pause holds: nothing
    assert PAUSED_RUNS.take([("pydantic-ai", "d1")]) is not None

    bus, after = _bus()
    script = Script(
        turn(ToolCallPart("read_file", {"path": "/c"}, tool_call_id="r2")),
        turn(TextPart("done")),
    )
    agent, ran = file_agent(script, bus, output_type=[str, DeferredToolRequests])
    resumed = await agent.run(
        message_history=ModelMessagesTypeAdapter.validate_json(stored),
        deferred_tool_results=resume_results({"d1": Approve()}),
    )
    assert resumed.output == "done"
    # the approved delete used the cap's second call: the read after it is denied
    assert ran == ["delete_file /b"]
    assert tool_returns(script.requests[-1])[-1] == ("r2", DENIED, "denied")
    assert after.names()[0] == "on_run_resumed"
    [back] = after.of("on_run_resumed")
    assert back.run_id == pause.run_id
    assert back.decisions == {"d1": Approve()}
    assert back.usage.total_tokens == 30
    assert "limits" in back.state
    [done] = after.of("on_chat_done")
    assert done.response.usage.total_tokens == 60  # four model calls, both agents
    assert done.response.iterations == 4
