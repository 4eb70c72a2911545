"""A cut-off answer never runs its tool calls; finish reasons are reported as sent.

When the token limit cut a response (``finish_reason="length"``; ``max_tokens`` from a
provider that passes Anthropic's reason through), none of its calls runs: each gets one
``TruncatedCallError`` the model reads, through ``on_tool_call_error`` with
``source="truncated"``, and the run goes on to the next request.
"""

from __future__ import annotations

from typing import Any

import pytest

from agenthooks import Agent, HookBus, ProviderResponse, ScriptedProvider, ToolCall, tool
from agenthooks.errors import TruncatedCallError

RAN: list[dict[str, Any]] = []


@tool
async def setv(name: str = "unset", count: int = 0) -> str:
    """Set a value."""
    RAN.append({"name": name, "count": count})
    return "set"


def cut(reason: str, *calls: ToolCall) -> list[Any]:
    return [ProviderResponse(tool_calls=list(calls), finish_reason=reason), "done"]


MESSAGE = (
    "tool call {!r} was not run: the response was cut off (token limit) before the call was "
    "complete"
)


@pytest.mark.parametrize("reason", ["length", "max_tokens"])
@pytest.mark.parametrize("stream", [False, True], ids=["chat", "stream"])
@pytest.mark.parametrize("hooks", [True, False], ids=["hooks", "no-hooks"])
async def test_no_call_of_a_cut_off_answer_runs(reason: str, stream: bool, hooks: bool) -> None:
    RAN.clear()
    bus, seen = HookBus(), []
    if hooks:
        bus.on("on_tool_call_error", lambda ctx: seen.append((ctx.source, ctx.call.id, ctx.error)))
    calls = [
        ToolCall(id="a", name="setv"),  # cut before any argument: {} would run with defaults
        ToolCall.model_validate({"id": "b", "name": "setv", "raw_arguments": '{"name": "x'}),
        ToolCall(id="c", name="nosuch", arguments={}),
    ]
    provider = ScriptedProvider(cut(reason, *calls))
    agent = Agent("a", provider=provider, tools=[setv], bus=bus)
    if stream:
        items = [item async for item in agent.chat_stream("go")]
        response = items[-1].response
    else:
        response = await agent.chat("go")

    assert (response.content, response.finish_reason) == ("done", "stop")
    assert RAN == []
    tools = [(m.tool_call_id, m.content, m.is_error) for m in agent.history if m.role == "tool"]
    assert tools == [(c.id, MESSAGE.format(c.name), True) for c in calls]
    assert provider.requests[1].messages[-3:] == [m for m in agent.history if m.role == "tool"]
    if hooks:
        assert [(s, i, type(e)) for s, i, e in seen] == [
            ("truncated", c.id, TruncatedCallError) for c in calls
        ]


async def test_a_cut_off_answer_without_calls_ends_with_length() -> None:
    agent = Agent(
        "a", provider=ScriptedProvider([ProviderResponse(content="par", finish_reason="length")])
    )
    response = await agent.chat("go")
    assert (response.content, response.finish_reason) == ("par", "length")


@pytest.mark.parametrize("reason", ["pause_turn", "content_filter", "a_later_reason"])
async def test_a_finish_reason_the_runtime_does_not_act_on_is_reported_as_sent(
    reason: str,
) -> None:
    agent = Agent(
        "a", provider=ScriptedProvider([ProviderResponse(content="x", finish_reason=reason)])
    )
    response = await agent.chat("go")
    assert (response.content, response.finish_reason) == ("x", reason)
    assert [m.content for m in agent.history] == ["go", "x"]


async def test_a_recovery_of_a_cut_off_call_is_what_the_model_reads() -> None:
    RAN.clear()
    bus = HookBus()
    bus.on("on_tool_call_error", lambda ctx: {"result": "retry with fewer words"})
    agent = Agent(
        "a",
        provider=ScriptedProvider(cut("length", ToolCall(id="a", name="setv"))),
        tools=[setv],
        bus=bus,
    )
    await agent.chat("go")
    assert RAN == []
    assert [(m.content, m.is_error) for m in agent.history if m.role == "tool"] == [
        ("retry with fewer words", False)
    ]
