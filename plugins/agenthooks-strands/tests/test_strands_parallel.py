"""Strands runs a turn's tool calls concurrently (its ``ConcurrentToolExecutor``); the run's
handlers still never overlap."""

from __future__ import annotations

import asyncio
from typing import Any

from agenthooks_strands.testing import tool_calls
from strands import tool
from strands.tools.executors import ConcurrentToolExecutor

from agenthooks import HookBus

RUNNING: list[str] = []
PEAK: list[int] = []


@tool
async def fetch(url: str) -> str:
    """Fetch a page."""
    RUNNING.append(url)
    PEAK.append(len(RUNNING))
    await asyncio.sleep(0.05)
    RUNNING.remove(url)
    return f"page {url}"


async def test_tool_bodies_overlap_but_handlers_never_do(make, bus: HookBus) -> None:
    RUNNING.clear()
    PEAK.clear()
    active = 0
    overlaps = 0
    seen: list[str] = []

    async def slow_handler(ctx: Any) -> None:
        nonlocal active, overlaps
        active += 1
        overlaps += active > 1
        seen.append(getattr(ctx, "tool_call_id", ""))
        await asyncio.sleep(0.01)  # yields to the other calls' tasks
        active -= 1

    for event in ("pre_tool_call", "on_tool_call_result"):
        bus.on(event, slow_handler)
    bus.on("on_message", slow_handler)
    urls = [f"u{i}" for i in range(4)]
    agent, model = make(
        [tool_calls(*[(f"c{i}", "fetch", {"url": u}) for i, u in enumerate(urls)]), "done"],
        tools=[fetch],
        tool_executor=ConcurrentToolExecutor(),
    )

    await agent.invoke_async("fetch all")

    assert max(PEAK) > 1  # Strands did run the bodies concurrently
    assert overlaps == 0
    assert sorted(i for i in seen if i) == sorted([f"c{i}" for i in range(4)] * 2)
    results = model.requests[1]["messages"][-1]["content"]
    assert [r["toolResult"]["content"][0]["text"] for r in results] == [f"page {u}" for u in urls]
