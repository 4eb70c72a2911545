"""Parallel tool calls: one ``execute_tool`` span each, siblings under the run's span, and each
call runs with its own span as the current OpenTelemetry span."""

from __future__ import annotations

import asyncio

from opentelemetry import trace
from opentelemetry.trace import StatusCode
from otel_traced import Traced

from agenthooks import Agent, ProviderRequest, ProviderResponse, ScriptedProvider, ToolCall, tool


async def test_parallel_tool_calls_are_sibling_spans_each_with_its_call_id(traced: Traced) -> None:
    arrived: list[str] = []
    both_running = asyncio.Event()
    current: dict[str, int] = {}

    @tool
    async def fetch(url: str) -> str:
        """Fetch a page."""
        current[url] = trace.get_current_span().get_span_context().span_id
        arrived.append(url)
        if len(arrived) == 2:
            both_running.set()
        await both_running.wait()  # neither call finishes before both started
        return f"page {url}"

    agent = Agent(
        "crawler",
        provider=ScriptedProvider(
            [
                ProviderResponse(
                    tool_calls=[
                        ToolCall(id="call_1", name="fetch", arguments={"url": "a"}),
                        ToolCall(id="call_2", name="fetch", arguments={"url": "b"}),
                        ToolCall(id="call_3", name="fetch", arguments={"url": "c", "extra": "bad"}),
                    ],
                    finish_reason="tool_calls",
                ),
                "Fetched.",
            ]
        ),
        model="m",
        tools=[fetch],
        parallel_tool_calls=True,
    )
    agent.use(traced.plugin)

    response = await agent.chat("Fetch a and b")

    assert response.content == "Fetched."
    assert traced.names == [
        "chat m",
        "execute_tool fetch",
        "execute_tool fetch",
        "execute_tool fetch",
        "chat m",
        "invoke_agent crawler",
    ]
    root = traced.one("invoke_agent crawler")
    assert traced.children(root) == [
        "chat m",
        "execute_tool fetch",
        "execute_tool fetch",
        "execute_tool fetch",
        "chat m",
    ]
    first, second, invalid = traced.tool("call_1"), traced.tool("call_2"), traced.tool("call_3")
    assert [
        (s.attributes or {})["gen_ai.tool.call.id"]
        for s in traced.spans
        if s.name == "execute_tool fetch"
    ] == ["call_1", "call_2", "call_3"]
    assert current == {"a": first.context.span_id, "b": second.context.span_id}
    assert first.start_time is not None and second.start_time is not None
    assert first.end_time is not None and second.end_time is not None
    assert first.start_time < second.end_time and second.start_time < first.end_time
    assert first.status.status_code is StatusCode.UNSET
    assert second.status.status_code is StatusCode.UNSET
    assert invalid.status.status_code is StatusCode.ERROR
    assert (invalid.attributes or {})["error.type"] == "ToolValidationError"
    assert (invalid.attributes or {})["agenthooks.tool.error_source"] == "validation"


async def test_the_provider_call_runs_with_its_chat_span_current(traced: Traced) -> None:
    seen: list[int] = []

    def answer(request: ProviderRequest) -> str:
        seen.append(trace.get_current_span().get_span_context().span_id)
        return "hi"

    agent = Agent("greeter", provider=ScriptedProvider(answer), model="m")
    agent.use(traced.plugin)

    await agent.chat("hello")

    assert seen == [traced.one("chat m").context.span_id]
    assert not trace.get_current_span().get_span_context().is_valid  # detached again
