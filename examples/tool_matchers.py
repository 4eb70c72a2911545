"""Scope tool hooks with matchers instead of testing the name inside each hook.

Seed 004 (matchers.ts): ``beforeToolCall`` entries matching ``/.*_file$/`` (log every file
operation) and ``"delete_file"`` (admins only), ``afterToolCall`` matching
``["read_file", "write_file"]``; before-hooks stop at the first deny, after-hooks all run.
``match=`` takes a name, a compiled regex (``re.search``) or a list of those.

Output:
    File operation: read_file
    read_file returned 11 chars
    File operation: write_file
    write_file returned 2 chars
    File operation: delete_file
    get_weather ran without file hooks
    delete_file -> Admin access required
"""

import asyncio
import re

from agenthooks import Agent, Deny, ProviderResponse, ScriptedProvider, ToolCall, tool
from agenthooks.events import PreToolCallContext, ToolResultContext


@tool
def read_file(path: str) -> str:
    """Read a file."""
    return "hello world"


@tool
def write_file(path: str, text: str) -> str:
    """Write a file."""
    return "ok"


@tool
def delete_file(path: str) -> str:
    """Delete a file."""
    return "deleted"


@tool
def get_weather(city: str) -> str:
    """The weather."""
    print("get_weather ran without file hooks")
    return "sunny"


def file_operation(ctx: PreToolCallContext) -> None:
    print(f"File operation: {ctx.call.name}")


def admin_only(ctx: PreToolCallContext) -> Deny:
    return Deny("Admin access required")


def report_length(ctx: ToolResultContext) -> None:
    print(f"{ctx.call.name} returned {len(ctx.result)} chars")


async def main() -> None:
    model = ScriptedProvider(
        [
            ProviderResponse(
                tool_calls=[
                    ToolCall(id="c1", name="read_file", arguments={"path": "a.txt"}),
                    ToolCall(id="c2", name="write_file", arguments={"path": "b.txt", "text": "hi"}),
                    ToolCall(id="c3", name="delete_file", arguments={"path": "a.txt"}),
                    ToolCall(id="c4", name="get_weather", arguments={"city": "Oslo"}),
                ]
            ),
            "Done.",
        ]
    )
    agent = Agent("files", provider=model, tools=[read_file, write_file, delete_file, get_weather])
    agent.on("beforeToolCall", file_operation, match=re.compile(r".*_file$"))
    agent.on("beforeToolCall", admin_only, match="delete_file")
    agent.on("afterToolCall", report_length, match=["read_file", "write_file"])
    response = await agent.chat("Tidy up")
    denied = [m for m in response.messages if m.role == "tool" and m.is_error]
    for message in denied:
        print(f"{message.name} -> {message.content}")


if __name__ == "__main__":
    asyncio.run(main())
