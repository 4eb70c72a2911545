"""A ``{"call"}`` rewrite in ``pre_tool_call`` is the call every later step sees."""

from __future__ import annotations

from typing import Any

from agenthooks import Agent, ProviderResponse, ScriptedProvider, ToolCall, tool


async def test_the_rewritten_call_reaches_the_tool_the_after_event_and_on_event() -> None:
    got: list[str] = []

    @tool
    def weather(city: str) -> str:
        """The weather."""
        got.append(city)
        return f"{city}: sunny"

    model = ScriptedProvider(
        [
            ProviderResponse(
                tool_calls=[ToolCall(id="c1", name="weather", arguments={"city": "Oslo"})]
            ),
            "done",
        ]
    )
    agent = Agent("a", provider=model, tools=[weather])
    seen: list[tuple[str, Any]] = []
    agent.on(
        "pre_tool_call",
        lambda ctx: {"call": ctx.call.model_copy(update={"arguments": {"city": "Bergen"}})},
    )
    agent.on("on_tool_call_result", lambda ctx: seen.append(("result", ctx.call.arguments)))
    agent.on(
        "on_event",
        lambda r: seen.append((r.type, r.input)) if r.type == "on_tool_call_result" else None,
    )
    await agent.chat("weather in Oslo?")
    assert got == ["Bergen"]
    assert seen == [("result", {"city": "Bergen"}), ("on_tool_call_result", {"city": "Bergen"})]
    assert model.requests[1].messages[-1].content == "Bergen: sunny"
