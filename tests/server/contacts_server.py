"""A small stdio MCP server written with the SDK, for the Claude Code redaction test: its one
tool answers with an email address the hook server's policy redacts."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

server = MCPServer("contacts", log_level="ERROR")


@server.tool()
def lookup(name: str) -> str:
    """A person's contact details."""
    return f"{name}: {name.lower()}@example.com, desk 4"


if __name__ == "__main__":
    server.run("stdio")
