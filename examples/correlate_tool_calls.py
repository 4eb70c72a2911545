"""Correlate the start and end of tool calls by their id while they run in parallel.

Seed 001: a ``pendingTools`` map keyed by ``toolCallId``, filled in ``BeforeTool`` and emptied
in ``AfterTool`` / ``ToolError``; the id is the same in all three events (and in the tool
message), which is what makes this safe when calls overlap.

Output:
    [a] Starting fetch_page
    [b] Starting fetch_page
    [c] Starting fetch_page
    [a] fetch_page succeeded in 11 ms
    [b] fetch_page error: 404 for https://example.com/missing
    [c] fetch_page succeeded in 11 ms
    still pending: {}
    the pages ran at the same time: True
"""

import asyncio
import time

from agenthooks import Agent, ProviderResponse, ScriptedProvider, ToolCall, tool
from agenthooks.events import PreToolCallContext, ToolErrorContext, ToolResultContext

pending: dict[str, tuple[str, float]] = {}
running = 0
overlapped = False


@tool
async def fetch_page(url: str) -> str:
    """Fetch a web page."""
    global running, overlapped
    running += 1
    await asyncio.sleep(0.01)
    overlapped = overlapped or running > 1
    running -= 1
    if url.endswith("missing"):
        raise LookupError(f"404 for {url}")
    return "<html>...</html>"


def before_tool(ctx: PreToolCallContext) -> None:
    pending[ctx.tool_call_id] = (ctx.call.name, time.monotonic())
    print(f"[{ctx.tool_call_id}] Starting {ctx.call.name}")


def after_tool(ctx: ToolResultContext) -> None:
    name, started = pending.pop(ctx.tool_call_id)
    print(f"[{ctx.tool_call_id}] {name} succeeded in {(time.monotonic() - started) * 1000:.0f} ms")


def tool_error(ctx: ToolErrorContext) -> None:
    pending.pop(ctx.tool_call_id, None)
    print(f"[{ctx.tool_call_id}] {ctx.call.name} error: {ctx.error}")


async def main() -> None:
    urls = {
        "a": "https://example.com/",
        "b": "https://example.com/missing",
        "c": "https://example.com/about",
    }
    model = ScriptedProvider(
        [
            ProviderResponse(
                tool_calls=[
                    ToolCall(id=i, name="fetch_page", arguments={"url": u}) for i, u in urls.items()
                ]
            ),
            "Two pages fetched.",
        ]
    )
    agent = Agent("crawler", provider=model, tools=[fetch_page], parallel_tool_calls=True)
    agent.on("BeforeTool", before_tool)
    agent.on("AfterTool", after_tool)
    agent.on("ToolError", tool_error)
    await agent.chat("Fetch three pages")
    print("still pending:", pending)
    print("the pages ran at the same time:", overlapped)


if __name__ == "__main__":
    asyncio.run(main())
