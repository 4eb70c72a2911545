"""Fixtures of the MCP tests (the helpers live in ``mcp_support``)."""

from mcp_support import no_leaked_children, weather

__all__ = ["no_leaked_children", "weather"]
