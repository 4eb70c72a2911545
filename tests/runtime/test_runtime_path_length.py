"""The one path of a tool call, measured: with a ``pre_tool_call`` hook, an
``on_tool_call_result`` hook and a tool middleware, one more tool call costs a handful of
agenthooks calls and at most 10 hops between modules (a coroutine resumed counts as a call)."""

from __future__ import annotations

from typing import Any

from agenthooks import Agent, Middleware, ProviderResponse, ScriptedProvider, ToolCall, tool
from agenthooks.pathtrace import PathTrace, trace


@tool
async def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


class Passthrough(Middleware):
    async def wrap(self, ctx: Any, call_next: Any) -> Any:
        return await call_next(ctx)


def run_with(calls: int) -> PathTrace:
    asks = ProviderResponse(
        tool_calls=[
            ToolCall(id=f"c{i}", name="add", arguments={"a": i, "b": 1}) for i in range(calls)
        ]
    )
    agent = Agent(
        "calc", provider=ScriptedProvider([asks, "done"]), tools=[add], middleware=[Passthrough()]
    )
    agent.on("pre_tool_call", lambda ctx: None)
    agent.on("on_tool_call_result", lambda ctx: None)
    return trace(lambda: agent.chat("go"))


def per_extra_call() -> tuple[int, int, list[str]]:
    run_with(2)  # warm: what is built once (schemas, context plans) is not per call
    one, two = run_with(1), run_with(2)
    extra = two.calls[len(one.calls) - (len(two.calls) - len(one.calls)) :]
    return len(two.calls) - len(one.calls), two.hops - one.hops, extra


def test_one_more_tool_call_costs_at_most_ten_module_hops() -> None:
    calls, hops, _ = per_extra_call()
    print(f"\nper additional tool call: {calls} agenthooks calls, {hops} module hops")
    assert hops <= 10, hops
    assert calls <= 30, calls
