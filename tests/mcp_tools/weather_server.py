"""A small MCP server written with the SDK's server API (``MCPServer``, FastMCP's name in
mcp 2), for the MCP tests.

Run as a script it speaks stdio: ``python weather_server.py CALLS.jsonl`` appends one JSON line
``{"tool": ..., "arguments": ...}`` per call it receives, so a test can prove which calls
reached it. ``build(record)`` gives the same server for the streamable HTTP tests, recording
through ``record``.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

Record = Callable[[str, dict[str, Any]], None]


def build(record: Record, name: str = "weather", *, crash: bool = False) -> MCPServer:
    """The weather server: ``forecast``, ``alerts``, ``fail``, ``pid`` and, when ``crash``
    (a subprocess only), ``crash``."""
    server = MCPServer(name, log_level="ERROR")

    @server.tool()
    def forecast(city: str, days: int = 1) -> str:
        """The forecast for a city."""
        record("forecast", {"city": city, "days": days})
        return f"{city}: sunny for {days} day(s)"

    @server.tool()
    def alerts(region: str) -> list[str]:
        """The weather alerts of a region."""
        record("alerts", {"region": region})
        return [f"{region}: wind", f"{region}: rain"]

    @server.tool()
    def fail(reason: str) -> str:
        """Always fails with ``reason``."""
        record("fail", {"reason": reason})
        raise ToolError(f"the sensor is offline: {reason}")

    @server.tool()
    def pid() -> int:
        """The server's process id."""
        record("pid", {})
        return os.getpid()

    if crash:

        @server.tool()
        def crash() -> str:
            """Ends the server process at once."""
            record("crash", {})
            os._exit(3)

    return server


def _file_recorder(path: str) -> Record:
    def record(tool: str, arguments: dict[str, Any]) -> None:
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps({"tool": tool, "arguments": arguments}) + "\n")

    return record


if __name__ == "__main__":
    build(_file_recorder(sys.argv[1]), *sys.argv[2:], crash=True).run("stdio")
