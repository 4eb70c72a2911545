"""LangChain runs the tool calls of one turn concurrently; the handlers of a run never
overlap all the same."""

from __future__ import annotations

import asyncio
from typing import Any

from langchain_scripted import agent, ask, calls, ran, script

from agenthooks import HookBus


async def test_parallel_tool_calls_run_together_but_their_handlers_never_overlap() -> None:
    bus = HookBus()
    inside = 0
    most = 0

    async def slow_handler(ctx: Any) -> None:
        nonlocal inside, most
        inside += 1
        most = max(most, inside)
        await asyncio.sleep(0.01)
        inside -= 1

    for event in ("pre_tool_call", "on_tool_call_result", "on_message"):
        bus.on(event, slow_handler)
    model = script(
        calls(
            ("c1", "slow_read", {"path": "/one"}),
            ("c2", "slow_read", {"path": "/two"}),
            ("c3", "slow_read", {"path": "/three"}),
        ),
        "done",
    )
    out = await agent(model, bus).ainvoke(ask())
    assert out["messages"][-1].content == "done"
    assert most == 1
    # the bodies did overlap (LangChain ran them concurrently)
    running = overlap = 0
    for kind, _ in ran:
        running += 1 if kind == "slow_read:start" else -1
        overlap = max(overlap, running)
    assert overlap >= 2
    assert sorted(a["path"] for k, a in ran if k == "slow_read:end") == ["/one", "/three", "/two"]
