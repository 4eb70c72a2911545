"""With a redacting plugin installed, no span carries the secret: not the captured messages,
tool arguments and results, nor error texts, exception events, deny reasons or the abort
reason; whatever order the plugins were installed in, and for a sub-agent whose own bus
carries the tracer while the redaction sits on its parent's."""

from __future__ import annotations

import json
from typing import Any

import pytest
from otel_traced import Traced

from agenthooks import Agent, Deny, ProviderResponse, ScriptedProvider, ToolCall, tool

SECRET = "s3cret-9f8e7d"


class Mask:
    """The smallest redacting plugin (``agenthooks.redaction``): it changes nothing in the run
    (so the secret really flows through every event) and tells exporters what to remove."""

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


@tool
def guarded(key: str) -> str:
    """Never runs: denied."""
    return "ran"


def script() -> ScriptedProvider:
    return ScriptedProvider(
        [
            ProviderResponse(
                content=f"thinking about {SECRET}",
                tool_calls=[
                    ToolCall(id="c1", name="lookup", arguments={"key": SECRET}),
                    ToolCall(id="c2", name="explode", arguments={"key": "k"}),
                    ToolCall(id="c3", name="guarded", arguments={"key": "k"}),
                ],
            ),
            ProviderResponse(content=f"the answer is {SECRET}", raw={"id": "r", "text": SECRET}),
        ]
    )


def everything(traced: Traced) -> str:
    """Every attribute, status, event and event attribute of every finished span."""
    out = []
    for span in traced.spans:
        out.append(
            {
                "name": span.name,
                "attributes": dict(span.attributes or {}),
                "status": span.status.description,
                "events": [(e.name, dict(e.attributes or {})) for e in span.events],
            }
        )
    return json.dumps(out, default=str)


def deny_guarded(ctx: Any) -> Deny | None:
    return Deny(f"refused for {SECRET}") if ctx.call.name == "guarded" else None


@pytest.mark.parametrize("mask_first", [True, False])
async def test_no_span_carries_the_secret(mask_first: bool) -> None:
    traced = Traced(capture_content=True)
    agent = Agent(
        "a", f"system mentions {SECRET}", provider=script(), tools=[lookup, explode, guarded]
    )
    agent.on("pre_tool_call", deny_guarded)
    plugins = [Mask(), traced.plugin] if mask_first else [traced.plugin, Mask()]
    for plugin in plugins:
        agent.use(plugin)
    response = await agent.chat(f"my key is {SECRET}")
    assert SECRET in (response.content or "")  # Mask changes nothing in the run itself
    exported = everything(traced)
    assert SECRET not in exported
    # the content is there, masked
    assert exported.count("[MASKED]") >= 8
    root = traced.one("invoke_agent a")
    assert json.loads(str((root.attributes or {})["gen_ai.input.messages"])) == [
        {"role": "user", "parts": [{"type": "text", "content": "my key is [MASKED]"}]}
    ]
    assert (traced.tool("c2").status.description) == "ValueError: bad key [MASKED]"
    assert (traced.tool("c3").attributes or {})[
        "agenthooks.denied.reason"
    ] == "refused for [MASKED]"


async def test_without_a_redacting_plugin_the_content_is_exported_as_it_is() -> None:
    traced = Traced(capture_content=True)
    agent = Agent("a", provider=script(), tools=[lookup, explode, guarded])
    agent.use(traced.plugin)
    await agent.chat("hi")
    assert SECRET in everything(traced)


async def test_removing_the_redacting_plugin_stops_the_redaction() -> None:
    traced = Traced(capture_content=True)
    agent = Agent("a", provider=script(), tools=[lookup, explode, guarded])
    agent.use(traced.plugin)
    dispose = agent.use(Mask())
    dispose()
    await agent.chat("hi")
    assert SECRET in everything(traced)


async def test_a_sub_agents_tracer_applies_its_parents_redaction() -> None:
    """The tracer sits on the sub-agent's own bus only; the redaction on the root's bus. The
    sub-agent's run fires with the root's guards, which is how the tracer finds it."""
    traced = Traced(capture_content=True)
    helper = Agent("helper", provider=script(), tools=[lookup, explode, guarded])
    helper.on("pre_tool_call", deny_guarded)
    helper.use(traced.plugin)
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
    root.use(Mask())
    await root.chat("go")
    exported = everything(traced)
    assert "invoke_agent helper" in traced.names
    assert SECRET not in exported
    assert traced.plugin._redaction._runs == {}  # forgotten once each run ended
