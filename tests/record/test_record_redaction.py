"""The recorder writes no text a redacting plugin would remove (``agenthooks.redaction``):
whatever order the plugins were installed in, for sub-agents on buses of their own, and
without the pieces of a stream (a secret may span two chunks)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agenthooks import Agent, ProviderResponse, ScriptedProvider, ToolCall, tool
from agenthooks.record import Recorder

SECRET = "s3cret-9f8e7d"


class Mask:
    """The smallest redacting plugin: it changes nothing in the run and tells exporters what
    to remove."""

    name = "mask"
    redacts = True

    def setup(self, bus: Any) -> None:
        pass

    def redact_value(self, value: Any) -> Any:
        if isinstance(value, str):
            return value.replace(SECRET, "[MASKED]")
        if isinstance(value, dict):
            return {k: self.redact_value(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.redact_value(v) for v in value]
        return value


@tool
def lookup(key: str) -> str:
    """Look a key up."""
    return f"value of {key}: {SECRET}"


def model() -> ScriptedProvider:
    return ScriptedProvider(
        [
            ProviderResponse(
                tool_calls=[ToolCall(id="c1", name="lookup", arguments={"key": SECRET})]
            ),
            ProviderResponse(content=f"the answer is {SECRET}", raw={"text": SECRET}),
        ]
    )


@pytest.mark.parametrize("mask_first", [True, False])
@pytest.mark.parametrize("stream", [False, True])
async def test_no_record_carries_the_secret(mask_first: bool, stream: bool) -> None:
    recorder = Recorder()
    agent = Agent("a", provider=model(), tools=[lookup])
    for plugin in (Mask(), recorder) if mask_first else (recorder, Mask()):
        agent.use(plugin)
    if stream:
        [item async for item in agent.chat_stream(f"key {SECRET}")]
    else:
        await agent.chat(f"key {SECRET}")
    written = json.dumps(recorder.records)
    assert SECRET not in written
    types = [r["type"] for r in recorder.records]
    assert types.count("on_stream_chunk") == (4 if stream else 0)
    assert all(r["output"] is None for r in recorder.records if r["type"] == "on_stream_chunk")
    start = next(r for r in recorder.records if r["type"] == "on_chat_start")
    assert start["input"] == "key [MASKED]"
    result = next(r for r in recorder.records if r["type"] == "on_tool_call_result")
    assert (result["input"], result["output"]) == (
        {"key": "[MASKED]"},
        "value of [MASKED]: [MASKED]",
    )
    assert recorder._redaction._runs == {}


async def test_attach_covers_a_sub_agents_bus_under_its_parents_redaction() -> None:
    helper = Agent("helper", provider=model(), tools=[lookup])
    helper.on("on_loop_start", lambda ctx: None)  # a bus of its own
    root = Agent(
        "root",
        provider=ScriptedProvider(
            [
                ProviderResponse(
                    tool_calls=[ToolCall(id="d", name="helper", arguments={"task": SECRET})]
                ),
                "done",
            ]
        ),
        sub_agents=[helper],
    )
    recorder = Recorder()
    recorder.attach(root)
    root.use(Mask())  # after the recorder, on the root only
    await root.chat("go")
    assert {r["agent"] for r in recorder.records} == {"root", "helper"}
    assert SECRET not in json.dumps(recorder.records)


async def test_without_a_redacting_plugin_records_keep_the_text() -> None:
    recorder = Recorder()
    agent = Agent("a", provider=model(), tools=[lookup])
    agent.use(recorder)
    await agent.chat("hi")
    assert SECRET in json.dumps(recorder.records)


async def test_a_handoff_targets_redaction_reaches_the_runs_recorder() -> None:
    """The recorder sits on the source's bus, the redaction on the target's own bus: from the
    handoff on, the run fires with the target's guards, and the recorder learns of them."""
    target = Agent("ops", provider=model(), tools=[lookup])
    target.use(Mask())
    target.on("on_message", lambda ctx: None)  # a redaction comes with hooks (Guard's guards)
    source = Agent(
        "front",
        provider=ScriptedProvider(
            [ProviderResponse(tool_calls=[ToolCall(id="h", name="transfer_to_ops", arguments={})])]
        ),
        handoffs=[target],
    )
    recorder = Recorder()
    source.use(recorder)
    await source.chat("go")
    assert "on_handoff" in [r["type"] for r in recorder.records]
    assert SECRET not in json.dumps(recorder.records)
    assert "[MASKED]" in json.dumps(recorder.records)
