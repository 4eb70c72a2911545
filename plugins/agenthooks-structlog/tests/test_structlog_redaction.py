"""With a redacting plugin installed, no log line carries the secret (the user's message,
tool arguments and results, errors, deny reasons, streamed chunks, the answer), whatever order
the plugins were installed in; redaction comes before clipping, so no half-secret survives."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from agenthooks_structlog import StructlogPlugin

from agenthooks import Agent, Deny, ProviderResponse, ScriptedProvider, ToolCall, tool

SECRET = "s3cret-9f8e7d"


class Mask:
    """The smallest redacting plugin (``agenthooks.redaction``): it changes nothing in the run
    and tells exporters what to remove."""

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


@tool
def explode(key: str) -> str:
    """Fail loudly."""
    raise ValueError(f"bad key {SECRET}")


def agent_with(*plugins: Any) -> Agent:
    model = ScriptedProvider(
        [
            ProviderResponse(
                tool_calls=[
                    ToolCall(id="c1", name="lookup", arguments={"key": SECRET}),
                    ToolCall(id="c2", name="explode", arguments={"key": "k"}),
                    ToolCall(id="c3", name="lookup", arguments={"key": "denied"}),
                ]
            ),
            f"the answer is {SECRET}",
        ]
    )
    agent = Agent("a", provider=model, tools=[lookup, explode])
    agent.on(
        "pre_tool_call",
        lambda ctx: Deny(f"refused {SECRET}") if ctx.call.arguments["key"] == "denied" else None,
    )
    for plugin in plugins:
        agent.use(plugin)
    return agent


@pytest.mark.parametrize("mask_first", [True, False])
@pytest.mark.parametrize("stream", [False, True])
async def test_no_line_carries_the_secret(mask_first: bool, stream: bool) -> None:
    out = io.StringIO()
    logger = StructlogPlugin(renderer="json", file=out, min_level="debug", max_chars=None)
    agent = agent_with(*((Mask(), logger) if mask_first else (logger, Mask())))
    if stream:
        [item async for item in agent.chat_stream(f"my key {SECRET}")]
    else:
        await agent.chat(f"my key {SECRET}")
    text = out.getvalue()
    assert SECRET not in text
    entries = [json.loads(line) for line in text.splitlines()]
    assert [e["input"] for e in entries if e["event"] == "on_chat_start"] == ["my key [MASKED]"]
    assert [e["output"] for e in entries if e["event"] == "on_tool_call_result"] == [
        "value of [MASKED]: [MASKED]"
    ]
    assert [e["denied"] for e in entries if e["event"] == "pre_tool_call" and "denied" in e] == [
        "refused [MASKED]"
    ]
    errors = [e["error"] for e in entries if e["event"] == "on_tool_call_error"]
    assert errors == ["ValueError: bad key [MASKED]", "refused [MASKED]"]  # a raise keeps its type
    # a secret may span two chunks: their text is left out, the whole goes out redacted
    chunks = [e for e in entries if e["event"] == "on_stream_chunk"]
    assert len(chunks) == (4 if stream else 0)
    assert all("output" not in e for e in chunks)
    answer = [e["output"] for e in entries if e["event"] == "on_response"][-1]
    assert "the answer is [MASKED]" in answer


async def test_redaction_comes_before_clipping() -> None:
    out = io.StringIO()
    logger = StructlogPlugin(renderer="json", file=out, max_chars=20)
    agent = agent_with(Mask(), logger)
    await agent.chat(f"0123456{SECRET}")  # clipping alone would keep "s3cret-9f8e7" and more
    start = next(json.loads(x) for x in out.getvalue().splitlines() if "on_chat_start" in x)
    assert start["input"] == "0123456[MASKED]"
    assert "s3cret" not in out.getvalue()


async def test_without_a_redacting_plugin_lines_keep_the_text() -> None:
    out = io.StringIO()
    await agent_with(StructlogPlugin(renderer="json", file=out, max_chars=None)).chat("hi")
    assert SECRET in out.getvalue()
