"""The agent runtime on the bus: Agent, Session, Memory and the stream items."""

from .agent import Agent, ScopeRegistry
from .memory import Memory
from .session import Session
from .streaming import FinalResponse, StreamEvent, TextDelta, ToolCallEnd, ToolCallStart

__all__ = [
    "Agent",
    "FinalResponse",
    "Memory",
    "ScopeRegistry",
    "Session",
    "StreamEvent",
    "TextDelta",
    "ToolCallEnd",
    "ToolCallStart",
]
