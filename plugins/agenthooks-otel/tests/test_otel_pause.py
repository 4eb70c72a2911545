"""A paused run and its resumption: each part ends its own spans, under one run id."""

from __future__ import annotations

import structlog
from otel_traced import Traced

from agenthooks import Agent, Approve, Ask, ProviderResponse, ScriptedProvider, ToolCall, tool


@tool
def pay(amount: int) -> str:
    """Pay."""
    return f"paid {amount}"


async def test_each_part_of_a_paused_run_ends_its_spans(traced: Traced) -> None:
    agent = Agent(
        "payer",
        provider=ScriptedProvider(
            [
                ProviderResponse(
                    tool_calls=[ToolCall(id="p1", name="pay", arguments={"amount": 9})]
                ),
                "ok",
            ]
        ),
        tools=[pay],
    )
    agent.on("pre_tool_call", lambda ctx: Ask("sure?"))
    agent.use(traced.plugin)
    with structlog.testing.capture_logs() as logs:
        paused = await agent.chat("pay")
        assert paused.finish_reason == "paused"
        assert traced.plugin.open_spans == 0
        first = traced.names
        done = await agent.resume({"p1": Approve()})
        assert done.content == "ok"
        assert traced.plugin.open_spans == 0
    assert [entry for entry in logs if entry["log_level"] in ("warning", "error")] == []
    # the asked call's span ends with the paused part; the resumed part runs it again
    assert first == ["chat", "execute_tool pay", "invoke_agent payer"]
    assert traced.names[3:] == ["execute_tool pay", "chat", "invoke_agent payer"]
    runs = {s.attributes["agenthooks.run_id"] for s in traced.spans if s.name.startswith("invoke")}
    assert len(runs) == 1  # one run id across the pause
