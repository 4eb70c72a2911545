"""A worker to try the stream with: ``python -m agenthooks_redis [--runs N]``.

Runs N scripted agent runs (user → a tool call → an answer, no model needed) with the ``redis``
entry point's publisher (``AGENTHOOKS_REDIS_*``), then closes it; watch them with
``agenthooks tail redis://127.0.0.1:6379/0`` from another terminal.
"""

from __future__ import annotations

import argparse
import asyncio
import os

from agenthooks import Agent, HookBus, ProviderResponse, ScriptedProvider, ToolCall, tool

from .publisher import RedisEventPublisher


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


async def work(runs: int) -> RedisEventPublisher:
    """``runs`` runs published to the configured stream."""
    publisher = RedisEventPublisher.from_env()
    bus = HookBus()
    bus.use(publisher)
    for n in range(runs):
        call = ToolCall(id="c1", name="add", arguments={"a": n, "b": 3})
        provider = ScriptedProvider([ProviderResponse(tool_calls=[call]), f"{n + 3}"])
        agent = Agent(f"worker-{os.getpid()}", provider=provider, tools=[add], bus=bus)
        await agent.chat(f"{n}+3?")
        await asyncio.sleep(0.2)  # a pace a human can follow in `agenthooks tail`
    await publisher.aclose()
    return publisher


def main() -> None:
    """Parse ``--runs`` and run."""
    parser = argparse.ArgumentParser(prog="python -m agenthooks_redis", description=__doc__)
    parser.add_argument("--runs", type=int, default=3, help="how many runs (default 3)")
    args = parser.parse_args()
    publisher = asyncio.run(work(args.runs))
    stats = publisher.stats
    print(f"{args.runs} runs, {stats.sent} events to {publisher.stream} at {publisher.url}")
    if stats.dropped:
        print(f"{stats.dropped} events dropped (Redis unreachable?)")


if __name__ == "__main__":
    main()
