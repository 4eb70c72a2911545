"""The SDK runs a turn's tool calls concurrently; the run's handlers never overlap."""

from __future__ import annotations

import asyncio
from typing import Any

from agenthooks_openai_agents import AgentHooksRunner
from agents import function_tool
from agents.testing import assistant_message, function_call
from openai_agents_helpers import scripted_agent, tool_outputs

from agenthooks import HookBus


async def test_parallel_tool_calls_run_together_but_their_handlers_never_overlap(
    bus: HookBus,
) -> None:
    bodies_active = 0
    bodies_peak = 0
    handlers_active = 0
    handlers_peak = 0

    @function_tool
    async def fetch(url: str) -> str:
        """Fetch a URL."""
        nonlocal bodies_active, bodies_peak
        bodies_active += 1
        bodies_peak = max(bodies_peak, bodies_active)
        await asyncio.sleep(0.1)
        bodies_active -= 1
        return f"page {url}"

    async def slow_handler(ctx: Any) -> None:
        nonlocal handlers_active, handlers_peak
        handlers_active += 1
        handlers_peak = max(handlers_peak, handlers_active)
        await asyncio.sleep(0.005)
        handlers_active -= 1

    for event in ("pre_tool_call", "on_tool_call_result", "on_message", "on_tool_call_error"):
        bus.on(event, slow_handler)
    urls = [f"https://example.com/{i}" for i in range(4)]
    agent, model = scripted_agent(
        [
            [function_call("fetch", {"url": u}, call_id=f"c{i}") for i, u in enumerate(urls)],
            [assistant_message("fetched")],
        ],
        tools=[fetch],
    )

    result = await AgentHooksRunner(bus).run(agent, "fetch them")

    assert result.final_output == "fetched"
    assert bodies_peak == 4  # the SDK ran the bodies together
    assert handlers_peak == 1  # the hooks, one at a time
    assert tool_outputs(model, 1) == {f"c{i}": f"page {u}" for i, u in enumerate(urls)}
