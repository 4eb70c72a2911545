"""Log tool calls before they run, after they complete (with their duration), and when they
fail, including a call to a tool that does not exist.

Seed 001: ``BeforeTool`` with the tool call id and input, ``AfterTool`` with the duration and
output, ``ToolError`` (where ``tool`` is missing when the tool was not found).

Output:
    [call_1] Executing search
    Input: {"query": "hooks"}
    [call_1] search completed
    Duration: 4 ms
    Output: 2 results for hooks
    [call_2] summarize failed
    Error: unknown tool "summarize"; the tools are: search
    tool found: False
"""

import asyncio
import json

from agenthooks import Agent, ProviderResponse, ScriptedProvider, ToolCall, tool
from agenthooks.events import PreToolCallContext, ToolErrorContext, ToolResultContext


@tool
def search(query: str) -> str:
    """Search the docs."""
    return f"2 results for {query}"


def before_tool(ctx: PreToolCallContext) -> None:
    print(f"[{ctx.tool_call_id}] Executing {ctx.call.name}")
    print(f"Input: {json.dumps(ctx.call.arguments)}")


def after_tool(ctx: ToolResultContext) -> None:
    print(f"[{ctx.tool_call_id}] {ctx.call.name} completed")
    print(f"Duration: {ctx.duration * 1000:.0f} ms")
    print(f"Output: {ctx.result}")


def tool_error(ctx: ToolErrorContext) -> None:
    print(f"[{ctx.tool_call_id}] {ctx.call.name} failed")
    print(f"Error: {ctx.error}")
    print(f"tool found: {ctx.tool is not None}")


async def main() -> None:
    model = ScriptedProvider(
        [
            ProviderResponse(
                tool_calls=[ToolCall(id="", name="search", arguments={"query": "hooks"})]
            ),
            ProviderResponse(tool_calls=[ToolCall(id="", name="summarize")]),
            "Done.",
        ]
    )
    agent = Agent("docs", provider=model, tools=[search])
    agent.on("BeforeTool", before_tool)
    agent.on("AfterTool", after_tool)
    agent.on("ToolError", tool_error)
    await agent.chat("Find hooks, then summarize")


if __name__ == "__main__":
    asyncio.run(main())
