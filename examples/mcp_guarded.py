"""An MCP server guarded by a hook: its tools sit beside local ones, and a ``pre_tool_call``
deny keeps the model away from one of them, so that call never reaches the server.

This file is both sides: run with ``--serve`` it is a small MCP server (written with the SDK's
``MCPServer``, formerly FastMCP) speaking stdio; run plainly it starts an agent that takes its
tools from that server as a subprocess. The server connects at the first run (its tools form a
scope named after it) and ``async with agent:`` closes it. Needs the ``mcp`` extra.

Output:
    scope registered: notes ['list_notes', 'read_note', 'delete_note', 'calls_received']
    tool: list_notes (scope notes)
    tool: delete_note (scope notes)
    tool: read_note (scope notes)
    list_notes -> groceries, todo (error: False)
    delete_note -> notes are read-only here (error: True)
    read_note -> todo: water the plants (error: False)
    the server received: list_notes, read_note
    scope unregistered: notes
    answer: You have two notes; the todo says to water the plants.
"""

import asyncio
import sys
from pathlib import Path

from agenthooks import Agent, Deny, ProviderResponse, ScriptedProvider, ToolCall
from agenthooks.events import PreToolCallContext, ScopeContext
from agenthooks.mcp import MCPServerStdio

NOTES = {"groceries": "milk, bread", "todo": "water the plants"}


def serve() -> None:
    """The MCP server side: three tools over the notes."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("notes", log_level="ERROR")
    received: list[str] = []

    @server.tool()
    def list_notes() -> str:
        """The names of the notes."""
        received.append("list_notes")
        return ", ".join(NOTES)

    @server.tool()
    def read_note(name: str) -> str:
        """One note's text."""
        received.append("read_note")
        return f"{name}: {NOTES[name]}"

    @server.tool()
    def delete_note(name: str) -> str:
        """Delete a note."""
        received.append("delete_note")
        return f"deleted {name}"

    @server.tool()
    def calls_received() -> str:
        """What this server was asked, in order (for the demo's last line)."""
        return ", ".join(received)

    server.run("stdio")


async def main() -> None:
    model = ScriptedProvider(
        [
            ProviderResponse(tool_calls=[ToolCall(id="c1", name="list_notes")]),
            ProviderResponse(
                tool_calls=[ToolCall(id="c2", name="delete_note", arguments={"name": "groceries"})]
            ),
            ProviderResponse(
                tool_calls=[ToolCall(id="c3", name="read_note", arguments={"name": "todo"})]
            ),
            "You have two notes; the todo says to water the plants.",
        ]
    )
    notes = MCPServerStdio(sys.executable, [str(Path(__file__).resolve()), "--serve"])
    agent = Agent("assistant", provider=model, mcp_servers=[notes])

    @agent.on("on_scope_register")
    def registered(ctx: ScopeContext) -> None:
        assert ctx.scope is not None
        print("scope registered:", ctx.scope.name, list(ctx.scope.tools))

    @agent.on("on_scope_unregister")
    def unregistered(ctx: ScopeContext) -> None:
        assert ctx.scope is not None
        print("scope unregistered:", ctx.scope.name)

    @agent.on("pre_tool_call")
    def log_call(ctx: PreToolCallContext) -> None:
        print(f"tool: {ctx.call.name} (scope {ctx.scope.name})")

    @agent.on("pre_tool_call", match="delete_note")
    def read_only(ctx: PreToolCallContext) -> Deny:
        return Deny("notes are read-only here")

    async with agent:
        response = await agent.chat("What do my notes say? Clean them up.")
        for message in response.messages:
            if message.role == "tool":
                print(f"{message.name} -> {message.content} (error: {message.is_error})")
        received = await agent.scopes["notes"].tools["calls_received"].invoke({})
        print("the server received:", received)
    print("answer:", response.content)


if __name__ == "__main__":
    if sys.argv[1:] == ["--serve"]:
        serve()
    else:
        asyncio.run(main())
