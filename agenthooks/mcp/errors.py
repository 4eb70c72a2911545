"""The errors of MCP servers: one that cannot be started, broke, took too long or kept
stopping, and a tool that failed."""

from __future__ import annotations

from ..errors import AgentHooksError, ToolError


class MCPServerError(AgentHooksError):
    """An MCP server failed: it cannot be reached, or it broke while in use. The message names
    the server."""


class MCPConnectionError(MCPServerError):
    """An MCP server could not be started or reached (spawn, connection or handshake)."""


class MCPTimeoutError(MCPServerError):
    """An MCP tool call took longer than its server's ``call_timeout``: ``server``, ``tool``
    and ``timeout`` (seconds) say which. The model reads it as the call's tool error."""

    def __init__(self, message: str, *, server: str, tool: str, timeout: float) -> None:
        super().__init__(message)
        self.server = server
        self.tool = tool
        self.timeout = timeout


class MCPServerDownError(MCPServerError):
    """An MCP server kept stopping: it was started again ``max_restarts`` times in a row
    without answering a call, and stays down until it is closed."""


class MCPToolError(ToolError):
    """An MCP tool answered with an error result (``isError``); the message is its text."""


__all__ = [
    "MCPConnectionError",
    "MCPServerDownError",
    "MCPServerError",
    "MCPTimeoutError",
    "MCPToolError",
]
