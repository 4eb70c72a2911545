"""One worker process of the shared-budget test: CONCURRENT runs at a time until the budget
stops them, every model call costing $0.01 and asking for a tool call.

    python limits_worker.py URL PREFIX CONCURRENT

Prints how many model calls were made, how many tool calls ran, how many runs were stopped.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import structlog
from agenthooks_limits import Limits, RedisStore

from agenthooks import (
    Agent,
    HookBus,
    Middleware,
    ProviderRequest,
    ProviderResponse,
    ScriptedProvider,
    StopRun,
    ToolCall,
    Usage,
    tool,
)

COUNTS = {"model_calls": 0, "tool_runs": 0, "stopped": 0, "runs": 0}


@tool
def search(q: str) -> str:
    """Search."""
    COUNTS["tool_runs"] += 1
    return f"results for {q}"


class Slow(Middleware):
    """A model call takes a while, so calls of several processes are in flight at once."""

    stacks = ("provider",)

    async def wrap(self, ctx: Any, call_next: Any) -> Any:
        COUNTS["model_calls"] += 1
        await asyncio.sleep(0.02)
        return await call_next(ctx)


def reply(request: ProviderRequest) -> ProviderResponse:
    turn = sum(1 for m in request.messages if m.role == "assistant")
    usage = Usage(input_tokens=5, output_tokens=5, total_tokens=10, cost=0.01)
    if turn >= 4:
        return ProviderResponse(content="done", usage=usage)
    call = ToolCall(id=f"t{turn}", name="search", arguments={"q": str(turn)})
    return ProviderResponse(tool_calls=[call], usage=usage)


async def main(url: str, prefix: str, concurrent: int) -> None:
    store = RedisStore(url, prefix=prefix)
    bus = HookBus()
    bus.use(Limits(budget={"max_cost": 0.10, "max_tool_calls": 12}, store=store))
    bus.use(Slow())

    async def worker() -> None:
        while True:
            COUNTS["runs"] += 1
            agent = Agent(
                "w", provider=ScriptedProvider(reply, record=False), tools=[search], bus=bus
            )
            try:
                await agent.chat("go")
            except StopRun:
                COUNTS["stopped"] += 1
                return

    await asyncio.gather(*(worker() for _ in range(concurrent)))
    await store.aclose()
    print(json.dumps(COUNTS))


if __name__ == "__main__":
    structlog.configure(logger_factory=structlog.PrintLoggerFactory(sys.stderr))
    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
