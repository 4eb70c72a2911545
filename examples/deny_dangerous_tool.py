"""Deny a dangerous tool: the tool never runs and the model reads the reason as its error.

Seed 002: ``BeforeToolCall`` blocking ``delete_file`` with "file deletion is disabled in this
session". Seed 003: ``PreToolUse`` returning ``HookDeny`` for ``dangerous_tool`` with "this
tool is not allowed". ``Deny(reason)`` is both; the run goes on.

Output:
    delete_file -> file deletion is disabled in this session (error: True)
    dangerous_tool -> this tool is not allowed (error: True)
    list_files -> notes.txt, todo.txt (error: False)
    tools that ran: ['list_files']
    answer: I can only list files here.
"""

import asyncio

from agenthooks import Agent, Deny, HookBus, ProviderResponse, ScriptedProvider, ToolCall, tool
from agenthooks.events import PreToolCallContext

ran: list[str] = []
bus = HookBus()


@tool
def delete_file(path: str) -> str:
    """Delete a file."""
    ran.append("delete_file")
    return "deleted"


@tool
def dangerous_tool() -> str:
    """Something dangerous."""
    ran.append("dangerous_tool")
    return "boom"


@tool
def list_files() -> str:
    """List the files."""
    ran.append("list_files")
    return "notes.txt, todo.txt"


@bus.on("BeforeToolCall", match="delete_file")  # seed 002
def no_deletes(ctx: PreToolCallContext) -> Deny:
    return Deny("file deletion is disabled in this session")


@bus.on("PreToolUse")  # seed 003
def no_dangerous_tool(ctx: PreToolCallContext) -> Deny | None:
    if ctx.call.name == "dangerous_tool":
        return Deny("this tool is not allowed")
    return None


async def main() -> None:
    model = ScriptedProvider(
        [
            ProviderResponse(
                tool_calls=[
                    ToolCall(id="c1", name="delete_file", arguments={"path": "notes.txt"}),
                    ToolCall(id="c2", name="dangerous_tool"),
                    ToolCall(id="c3", name="list_files"),
                ]
            ),
            "I can only list files here.",
        ]
    )
    agent = Agent("files", provider=model, tools=[delete_file, dangerous_tool, list_files], bus=bus)
    response = await agent.chat("Clean up my files")
    for message in response.messages:
        if message.role == "tool":
            print(f"{message.name} -> {message.content} (error: {message.is_error})")
    print("tools that ran:", ran)
    print("answer:", response.content)


if __name__ == "__main__":
    asyncio.run(main())
