"""Failures and refusals: error status and ``error.type`` on provider and tool errors, denies
marked ``agenthooks.denied`` with their reason, recoveries marked ``agenthooks.recovered``."""

from __future__ import annotations

from typing import Any

import pytest
from opentelemetry.trace import StatusCode
from otel_traced import Traced

from agenthooks import (
    Agent,
    Deny,
    ProviderResponse,
    ScriptedProvider,
    ToolCall,
    tool,
)


@tool
def weather(city: str) -> str:
    """The weather in a city."""
    if city == "Atlantis":
        raise ValueError("no such city: Atlantis")
    return f"Sunny in {city}"


def calling(city: str, *, name: str = "weather") -> Agent:
    return Agent(
        "assistant",
        provider=ScriptedProvider(
            [
                ProviderResponse(
                    tool_calls=[ToolCall(id="call_w", name=name, arguments={"city": city})],
                    finish_reason="tool_calls",
                ),
                "Final answer.",
            ]
        ),
        model="m",
        tools=[weather],
    )


def status(span: Any) -> tuple[StatusCode, str | None]:
    return span.status.status_code, span.status.description


async def test_a_provider_error_fails_the_chat_and_the_agent_span(traced: Traced) -> None:
    agent = Agent(
        "assistant", provider=ScriptedProvider([RuntimeError("model is down")]), model="m"
    )
    agent.use(traced.plugin)

    with pytest.raises(RuntimeError, match="model is down"):
        await agent.chat("hi")

    assert traced.names == ["chat m", "invoke_agent assistant"]
    chat, agent_span = traced.spans
    assert status(chat) == (StatusCode.ERROR, "model is down")
    assert (chat.attributes or {})["error.type"] == "RuntimeError"
    assert [e.name for e in chat.events] == ["exception"]
    assert (chat.events[0].attributes or {})["exception.type"] == "RuntimeError"
    assert (chat.events[0].attributes or {})["exception.message"] == "model is down"
    assert status(agent_span) == (StatusCode.ERROR, "model is down")
    assert (agent_span.attributes or {})["error.type"] == "RuntimeError"
    assert [e.name for e in agent_span.events] == ["exception"]
    assert traced.plugin.open_spans == 0


async def test_a_recovered_provider_error_keeps_the_exception_but_not_the_error_status(
    traced: Traced,
) -> None:
    agent = Agent(
        "assistant", provider=ScriptedProvider([RuntimeError("model is down")]), model="m"
    )
    agent.use(traced.plugin)
    agent.on("on_model_error", lambda ctx: {"response": ProviderResponse(content="fallback")})

    response = await agent.chat("hi")

    assert response.content == "fallback"
    chat = traced.one("chat m")
    assert status(chat) == (StatusCode.UNSET, None)
    attrs = dict(chat.attributes or {})
    assert attrs["agenthooks.recovered"] is True
    assert "error.type" not in attrs
    assert attrs["gen_ai.response.finish_reasons"] == ("stop",)
    assert [e.name for e in chat.events] == ["exception"]


async def test_a_tool_error_fails_its_span_and_the_run_goes_on(traced: Traced) -> None:
    agent = calling("Atlantis")
    agent.use(traced.plugin)

    response = await agent.chat("Weather in Atlantis?")

    assert response.content == "Final answer."
    span = traced.tool("call_w")
    assert status(span) == (StatusCode.ERROR, "ValueError: no such city: Atlantis")
    attrs = dict(span.attributes or {})
    assert attrs["error.type"] == "ValueError"
    assert attrs["agenthooks.tool.error_source"] == "handler"
    assert "agenthooks.denied" not in attrs
    assert [e.name for e in span.events] == ["exception"]
    assert status(traced.one("invoke_agent assistant")) == (StatusCode.UNSET, None)


async def test_a_recovered_tool_error_is_not_an_error(traced: Traced) -> None:
    agent = calling("Atlantis")
    agent.use(traced.plugin)
    agent.on("on_tool_call_error", lambda ctx: {"result": "Unknown weather"})

    await agent.chat("Weather in Atlantis?")

    span = traced.tool("call_w")
    assert status(span) == (StatusCode.UNSET, None)
    attrs = dict(span.attributes or {})
    assert attrs["agenthooks.recovered"] is True
    assert "error.type" not in attrs


async def test_a_pre_tool_call_deny_is_marked_denied_with_its_reason(traced: Traced) -> None:
    agent = calling("Paris")
    agent.use(traced.plugin)
    agent.on("pre_tool_call", lambda ctx: Deny("weather is off limits"))

    response = await agent.chat("Weather in Paris?")

    assert response.content == "Final answer."
    span = traced.tool("call_w")
    assert status(span) == (StatusCode.ERROR, "weather is off limits")
    attrs = dict(span.attributes or {})
    assert attrs["agenthooks.denied"] is True
    assert attrs["agenthooks.denied.reason"] == "weather is off limits"
    assert attrs["error.type"] == "denied"
    assert attrs["agenthooks.tool.error_source"] == "denied"


@pytest.mark.parametrize("guard", [False, True])
async def test_a_result_denied_after_the_tool_ran_is_marked_denied(
    traced: Traced, guard: bool
) -> None:
    agent = calling("Paris")
    agent.use(traced.plugin)
    agent.on("on_tool_call_result", lambda ctx: Deny("result withheld"), guard=guard)

    await agent.chat("Weather in Paris?")

    span = traced.tool("call_w")
    assert status(span) == (StatusCode.ERROR, "result withheld")
    attrs = dict(span.attributes or {})
    assert (attrs["agenthooks.denied"], attrs["agenthooks.denied.reason"]) == (
        True,
        "result withheld",
    )
    assert attrs["error.type"] == "denied"


async def test_an_unknown_tool_gets_a_failed_span(traced: Traced) -> None:
    agent = calling("Paris", name="forecast")
    agent.use(traced.plugin)

    await agent.chat("Forecast?")

    span = traced.tool("call_w")
    assert span.name == "execute_tool forecast"
    attrs = dict(span.attributes or {})
    assert attrs["error.type"] == "UnknownToolError"
    assert attrs["agenthooks.tool.error_source"] == "unknown_tool"
    assert status(span) == (StatusCode.ERROR, 'unknown tool "forecast"; the tools are: weather')
    assert traced.parent_of(span) == traced.one("invoke_agent assistant")


async def test_a_run_ending_deny_marks_the_agent_span_and_is_not_an_error(traced: Traced) -> None:
    agent = calling("Paris")
    agent.use(traced.plugin)
    agent.on("on_user_message", lambda ctx: Deny("off-topic"))

    response = await agent.chat("Tell me a joke")

    assert (response.finish_reason, response.content) == ("denied", "off-topic")
    assert traced.names == ["invoke_agent assistant"]
    span = traced.one("invoke_agent assistant")
    attrs = dict(span.attributes or {})
    assert (attrs["agenthooks.denied"], attrs["agenthooks.denied.reason"]) == (True, "off-topic")
    assert attrs["gen_ai.response.finish_reasons"] == ("denied",)
    assert status(span) == (StatusCode.UNSET, None)


async def test_a_model_call_a_guard_refused_ends_marked_denied(traced: Traced) -> None:
    agent = calling("Paris")
    agent.use(traced.plugin)
    agent.on("pre_request", lambda ctx: Deny("budget policy"), guard=True)

    response = await agent.chat("Weather in Paris?")

    assert response.finish_reason == "denied"
    assert traced.names == ["chat m", "invoke_agent assistant"]
    chat = traced.one("chat m")
    attrs = dict(chat.attributes or {})
    assert (attrs["agenthooks.denied"], attrs["agenthooks.denied.reason"]) == (
        True,
        "budget policy",
    )
    assert "gen_ai.response.finish_reasons" not in attrs
    assert status(chat) == (StatusCode.UNSET, None)
