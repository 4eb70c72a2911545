"""The errors of MCP servers: one that cannot be started or broke, and a tool that failed."""

from __future__ import annotations

from ..errors import AgentHooksError, ToolError


class MCPServerError(AgentHooksError):
    """An MCP server failed: it cannot be reached, or it broke while in use. The message names
    the server."""


class MCPConnectionError(MCPServerError):
    """An MCP server could not be started or reached (spawn, connection or handshake)."""


class MCPToolError(ToolError):
    """An MCP tool answered with an error result (``isError``); the message is its text."""


__all__ = ["MCPConnectionError", "MCPServerError", "MCPToolError"]
