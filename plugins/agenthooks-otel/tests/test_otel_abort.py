"""A run aborted mid-tool leaks no open span: everything still open ends at ``on_chat_end``
with error status "cancelled"."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from opentelemetry.trace import StatusCode
from otel_traced import Traced

from agenthooks import (
    Agent,
    ProviderRequest,
    ProviderResponse,
    RunAborted,
    ScriptedProvider,
    Tool,
    ToolCall,
    tool,
)


def slow_tool(started: asyncio.Event) -> Tool[Any]:
    @tool
    async def slow(job: str) -> str:
        """A job that never finishes."""
        started.set()
        await asyncio.Event().wait()
        return "never"

    return slow


async def test_an_abort_signal_mid_tool_ends_every_span_as_cancelled(traced: Traced) -> None:
    started = asyncio.Event()
    agent = Agent(
        "worker",
        provider=ScriptedProvider(
            [
                ProviderResponse(
                    tool_calls=[ToolCall(id="call_s", name="slow", arguments={"job": "x"})],
                    finish_reason="tool_calls",
                ),
            ]
        ),
        model="m",
        tools=[slow_tool(started)],
    )
    agent.use(traced.plugin)
    signal = asyncio.Event()

    run = asyncio.ensure_future(agent.chat("work", signal=signal))
    await started.wait()
    signal.set()
    with pytest.raises(RunAborted):
        await run

    assert traced.names == ["chat m", "execute_tool slow", "invoke_agent worker"]
    chat, tool_span, agent_span = traced.spans
    assert chat.status.status_code is StatusCode.UNSET
    for span in (tool_span, agent_span):
        assert (span.status.status_code, span.status.description) == (StatusCode.ERROR, "cancelled")
        assert (span.attributes or {})["error.type"] == "RunAborted"
    assert (agent_span.attributes or {})["agenthooks.abort.reason"] == "aborted"
    assert traced.plugin.open_spans == 0


async def test_cancelling_a_run_mid_batch_ends_the_sub_agent_spans_too(traced: Traced) -> None:
    tool_started = asyncio.Event()
    sub_calling = asyncio.Event()

    async def hang(request: ProviderRequest) -> str:
        sub_calling.set()
        await asyncio.Event().wait()
        return "never"

    sub = Agent("researcher", provider=ScriptedProvider(hang), model="small")
    agent = Agent(
        "worker",
        provider=ScriptedProvider(
            [
                ProviderResponse(
                    tool_calls=[
                        ToolCall(id="call_s", name="slow", arguments={"job": "x"}),
                        ToolCall(id="call_r", name="researcher", arguments={"task": "dig"}),
                    ],
                    finish_reason="tool_calls",
                ),
            ]
        ),
        model="m",
        tools=[slow_tool(tool_started)],
        sub_agents=[sub],
        parallel_tool_calls=True,
    )
    agent.use(traced.plugin)

    run = asyncio.ensure_future(agent.chat("work"))
    await tool_started.wait()
    await sub_calling.wait()
    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run

    assert sorted(traced.names) == sorted(
        [
            "chat m",
            "chat small",
            "invoke_agent researcher",
            "execute_tool slow",
            "execute_tool researcher",
            "invoke_agent worker",
        ]
    )
    cancelled = [s for s in traced.spans if s.name != "chat m"]
    for span in cancelled:
        assert (span.status.status_code, span.status.description) == (
            StatusCode.ERROR,
            "cancelled",
        ), span.name
        assert (span.attributes or {})["error.type"] == "CancelledError", span.name
    assert traced.children(traced.tool("call_r")) == ["invoke_agent researcher"]
    assert traced.children(traced.one("invoke_agent researcher")) == ["chat small"]
    assert traced.plugin.open_spans == 0
