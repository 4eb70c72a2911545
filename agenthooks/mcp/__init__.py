"""MCP servers as tools: ``Agent(..., mcp_servers=[MCPServerStdio(...), MCPServerHTTP(...)])``.

Needs the ``mcp`` extra (``pip install 'agenthooks[mcp]'``). A server's tools are offered to
the model under their own names and input schemas, beside the local tools, and every tool
event fires for them as for local tools. Servers connect at the first run that needs them,
each as a scope named after it (``on_scope_register``), and close on ``await agent.aclose()``
or at the end of ``async with agent:`` (``on_scope_unregister``). A call waits at most
``call_timeout`` seconds (default 60; ``MCPTimeoutError``); a server whose connection ended
is started again at its next call, at most ``max_restarts`` times in a row (default 3;
``MCPServerDownError``).
"""

from .errors import (
    MCPConnectionError,
    MCPServerDownError,
    MCPServerError,
    MCPTimeoutError,
    MCPToolError,
)
from .server import BaseMCPServer, MCPServerHTTP, MCPServerStdio
from .tool import MCPTool

__all__ = [
    "BaseMCPServer",
    "MCPConnectionError",
    "MCPServerDownError",
    "MCPServerError",
    "MCPServerHTTP",
    "MCPServerStdio",
    "MCPTimeoutError",
    "MCPTool",
    "MCPToolError",
]
