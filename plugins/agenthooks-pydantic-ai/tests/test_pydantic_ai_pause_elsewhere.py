"""A Pydantic AI run paused through deferred tools and resumed from its history stored as
JSON, by a fresh agent (a fresh bus, plugins, capability and model, nothing of the pause in
this process's ``PAUSED_RUNS``), also when another process paused it, keeps its counts: they travel in the paused response's
``metadata``, which ``ModelMessagesTypeAdapter`` keeps and the model never sees."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
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


def make_bus() -> tuple[HookBus, HookRecorder]:
    bus = HookBus()
    bus.use(Limits(max_tool_calls=2))
    bus.on("pre_tool_call", lambda ctx: Ask("delete?"), match="delete_file")
    recorder = HookRecorder()
    recorder.attach(bus)
    return bus, recorder


async def test_a_fresh_agent_on_the_stored_history_goes_on_from_the_counts() -> None:
    bus, before = make_bus()
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

    bus, after = make_bus()
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


@pytest.mark.subprocess
async def test_a_run_paused_in_another_process_goes_on_from_its_counts() -> None:
    here = Path(__file__).parent
    done = subprocess.run(
        [sys.executable, str(here / "pydantic_ai_pause_worker.py")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=here,
    )
    assert done.returncode == 0, done.stderr
    paused = json.loads(done.stdout.strip().splitlines()[-1])
    assert paused["deferred"] is True
    assert paused["ran"] == ["read_file /a"]
    assert paused["total_tokens"] == 30

    bus, after = make_bus()
    script = Script(
        turn(ToolCallPart("read_file", {"path": "/c"}, tool_call_id="r2")),
        turn(TextPart("done")),
    )
    agent, ran = file_agent(script, bus, output_type=[str, DeferredToolRequests])
    resumed = await agent.run(
        message_history=ModelMessagesTypeAdapter.validate_json(paused["history"]),
        deferred_tool_results=resume_results({"d1": Approve()}),
    )
    assert resumed.output == "done"
    # this process ran the approved delete only: the read in the other one used the cap too
    assert ran == ["delete_file /b"]
    assert tool_returns(script.requests[-1])[-1] == ("r2", DENIED, "denied")
    [back] = after.of("on_run_resumed")
    assert back.run_id == paused["run_id"]
    assert back.usage.total_tokens == 30
    assert "limits" in back.state
    [finished] = after.of("on_chat_done")
    assert finished.response.usage.total_tokens == 60
    assert finished.response.iterations == 4
