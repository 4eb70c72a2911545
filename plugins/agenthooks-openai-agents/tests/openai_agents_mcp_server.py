"""A small MCP server written with the ``mcp`` SDK's server API, for the bridge's MCP tests.

Run as a script it speaks stdio: ``python openai_agents_mcp_server.py CALLS.jsonl`` appends one
JSON line ``{"tool": ..., "arguments": ...}`` per call that reaches it, so a test proves which
calls ran (a denied call never reaches the server).
"""

from __future__ import annotations

import json
import sys
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError


def build(log: str) -> MCPServer:
    """The files server: ``read_note`` and ``erase_note`` (which records and succeeds), and
    ``broken`` (which always fails)."""
    server = MCPServer("files", log_level="ERROR")

    def record(tool: str, arguments: dict[str, Any]) -> None:
        with open(log, "a", encoding="utf-8") as out:
            out.write(json.dumps({"tool": tool, "arguments": arguments}) + "\n")

    @server.tool()
    def read_note(name: str) -> str:
        """Read a note."""
        record("read_note", {"name": name})
        return f"note {name}: buy milk"

    @server.tool()
    def erase_note(name: str) -> str:
        """Erase a note."""
        record("erase_note", {"name": name})
        return f"erased {name}"

    @server.tool()
    def broken(name: str) -> str:
        """Always fails."""
        record("broken", {"name": name})
        raise ToolError(f"the disk holding {name} is offline")

    return server


if __name__ == "__main__":
    build(sys.argv[1]).run("stdio")
