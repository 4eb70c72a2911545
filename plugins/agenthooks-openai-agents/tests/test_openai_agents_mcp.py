"""The tools of an agent's ``mcp_servers`` go through the hook layer like its function tools:
``pre_tool_call`` (a guard can deny them or ask a human), the result and error events, and
their tool messages. The server is a real MCP server (the ``mcp`` SDK's) over stdio."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from agenthooks_openai_agents import AgentHooksRunner
from agents import Agent, RunConfig, RunState
from agents.mcp import MCPServerStdio
from agents.models.interface import Model, ModelProvider
from agents.testing import ScriptedModel, assistant_message, function_call
from openai_agents_helpers import Recorder, tool_outputs

from agenthooks import Ask, Deny, HookBus
from agenthooks.messages import ChatMessage, PendingCall, ToolCall

pytestmark = pytest.mark.subprocess

SERVER = Path(__file__).resolve().parent / "openai_agents_mcp_server.py"


@pytest.fixture
async def files(tmp_path: Path) -> AsyncIterator[tuple[MCPServerStdio, Path]]:
    """The files server as a subprocess, connected, and the log of the calls it received."""
    log = tmp_path / "calls.jsonl"
    server = MCPServerStdio(
        {"command": sys.executable, "args": [str(SERVER), str(log)]},
        name="files",
        cache_tools_list=True,
    )
    async with server:
        yield server, log


def received(log: Path) -> list[dict[str, Any]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines()]


def mcp_agent(server: MCPServerStdio, steps: list[Any]) -> tuple[Agent[Any], ScriptedModel]:
    model = ScriptedModel(steps)
    return Agent(name="assistant", model=model, mcp_servers=[server]), model


def two_calls() -> list[Any]:
    return [
        [
            function_call("erase_note", {"name": "groceries"}, call_id="call_1"),
            function_call("read_note", {"name": "groceries"}, call_id="call_2"),
        ],
        [assistant_message("done")],
    ]


async def test_a_guard_denies_an_mcp_tool_and_the_server_never_gets_the_call(
    files: tuple[MCPServerStdio, Path], bus: HookBus, recorder: Recorder
) -> None:
    server, log = files
    bus.on("pre_tool_call", lambda ctx: Deny("Erasing is not allowed."), match="erase_note")
    agent, model = mcp_agent(server, two_calls())

    result = await AgentHooksRunner(bus).run(agent, "Tidy my notes")

    assert result.final_output == "done"
    assert received(log) == [{"tool": "read_note", "arguments": {"name": "groceries"}}]
    assert tool_outputs(model, 1) == {
        "call_1": "Erasing is not allowed.",
        "call_2": [{"type": "input_text", "text": "note groceries: buy milk"}],
    }
    tool_events = [
        (name, ctx.tool_call_id)
        for name, ctx in recorder.seen
        if name in {"pre_tool_call", "on_tool_call_result", "on_tool_call_error"}
    ]
    assert tool_events == [
        ("pre_tool_call", "call_1"),
        ("on_tool_call_error", "call_1"),
        ("pre_tool_call", "call_2"),
        ("on_tool_call_result", "call_2"),
    ]
    pre = recorder.of("pre_tool_call")
    assert [c.call for c in pre] == [
        ToolCall(id="call_1", name="erase_note", arguments={"name": "groceries"}),
        ToolCall(id="call_2", name="read_note", arguments={"name": "groceries"}),
    ]
    assert pre[0].tool.name == "erase_note"
    assert pre[0].tool.description == "Erase a note."
    denied = recorder.of("on_tool_call_error")[0]
    assert (denied.source, str(denied.error)) == ("denied", "Erasing is not allowed.")
    # the result as the SDK's MCP call gives it (its text output item)
    read = {"type": "text", "text": "note groceries: buy milk"}
    assert recorder.of("on_tool_call_result")[0].result == read
    tool_messages = [c.message for c in recorder.of("on_message") if c.message.role == "tool"]
    assert tool_messages == [
        ChatMessage(
            role="tool", content="Erasing is not allowed.", tool_call_id="call_1", is_error=True
        ),
        ChatMessage(role="tool", content=json.dumps(read), tool_call_id="call_2"),
    ]


async def test_an_mcp_result_goes_through_on_tool_call_result_error_results_included(
    files: tuple[MCPServerStdio, Path], bus: HookBus, recorder: Recorder
) -> None:
    server, log = files

    def redact(ctx: Any) -> dict[str, Any]:
        return {"result": ctx.result["text"].replace("milk", "[item]")}

    bus.on("on_tool_call_result", redact, match="read_note")
    agent, model = mcp_agent(
        server,
        [
            [
                function_call("read_note", {"name": "groceries"}, call_id="call_1"),
                function_call("broken", {"name": "groceries"}, call_id="call_2"),
            ],
            [assistant_message("done")],
        ],
    )

    await AgentHooksRunner(bus).run(agent, "Open my notes")

    assert [c["tool"] for c in received(log)] == ["read_note", "broken"]
    outputs = tool_outputs(model, 1)
    assert outputs["call_1"] == "note groceries: buy [item]"
    # the SDK hands an MCP error result (isError) back as the tool's output, not as an
    # exception: on_tool_call_result sees its text, as the model does
    failed = {c.call.id: c.result for c in recorder.of("on_tool_call_result")}["call_2"]
    assert failed["type"] == "text"
    assert "the disk holding groceries is offline" in failed["text"]
    assert recorder.of("on_tool_call_error") == []


async def test_an_ask_on_an_mcp_tool_pauses_and_the_approved_call_runs_on_resume(
    files: tuple[MCPServerStdio, Path], bus: HookBus, recorder: Recorder
) -> None:
    server, log = files
    bus.on("pre_tool_call", lambda ctx: Ask("Erasing needs a human."), match="erase_note")
    agent, model = mcp_agent(server, two_calls())
    runner = AgentHooksRunner(bus)

    paused = await runner.run(agent, "Tidy my notes")

    assert [item.name for item in paused.interruptions] == ["erase_note"]
    assert received(log) == [{"tool": "read_note", "arguments": {"name": "groceries"}}]
    assert recorder.of("on_chat_paused")[0].response.pending == [
        PendingCall(
            call_id="call_1",
            tool="erase_note",
            arguments={"name": "groceries"},
            reason="Erasing needs a human.",
        )
    ]
    state = paused.to_state()
    state.approve(paused.interruptions[0])

    resumed = await runner.run(agent, state)

    assert resumed.final_output == "done"
    assert received(log)[1:] == [{"tool": "erase_note", "arguments": {"name": "groceries"}}]
    assert tool_outputs(model, 1)["call_1"] == [{"type": "input_text", "text": "erased groceries"}]
    assert recorder.names[-2:] == ["on_chat_done", "on_chat_end"]


async def test_a_streamed_run_denies_an_mcp_tool_too(
    files: tuple[MCPServerStdio, Path], bus: HookBus, recorder: Recorder
) -> None:
    server, log = files
    bus.on("pre_tool_call", lambda ctx: Deny("Erasing is not allowed."), match="erase_note")
    agent, model = mcp_agent(server, two_calls())

    streamed = AgentHooksRunner(bus).run_streamed(agent, "Tidy my notes")
    async for _ in streamed.stream_events():
        pass

    assert streamed.final_output == "done"
    assert [c["tool"] for c in received(log)] == ["read_note"]
    assert tool_outputs(model, 1)["call_1"] == "Erasing is not allowed."
    assert [c.call.id for c in recorder.of("pre_tool_call")] == ["call_1", "call_2"]


async def test_an_mcp_call_asked_about_resumes_through_the_hooks_from_json(
    files: tuple[MCPServerStdio, Path], bus: HookBus, recorder: Recorder
) -> None:
    # an agent whose only tools are its MCP servers' and whose model is named (resolved by the
    # run's provider): the state restored with the user's agent is taken up with the clone
    server, log = files
    bus.on("pre_tool_call", lambda ctx: Ask("Erasing needs a human."), match="erase_note")
    model = ScriptedModel(two_calls())
    agent = Agent(name="assistant", model="notes-model", mcp_servers=[server])
    config = RunConfig(model_provider=Named({"notes-model": model}))
    runner = AgentHooksRunner(bus)
    paused = await runner.run(agent, "Tidy my notes", run_config=config)
    restored = await RunState.from_json(agent, paused.to_state().to_json())  # the user's agent
    restored.approve(restored.get_interruptions()[0])
    recorder.seen.clear()

    resumed = await runner.run(agent, restored, run_config=config)

    assert resumed.final_output == "done"
    assert [c["tool"] for c in received(log)] == ["read_note", "erase_note"]
    # the resumed call went through the hook layer: its result event fired
    assert [c.call.id for c in recorder.of("on_tool_call_result")] == ["call_1"]


class Named(ModelProvider):
    """Models by name, as a run's model provider looks them up."""

    def __init__(self, models: dict[str, Model]) -> None:
        self.models = models

    def get_model(self, model_name: str | None) -> Model:
        return self.models[model_name or ""]
