"""Errors of a tool call the model is told about."""

from __future__ import annotations

from .base import AgentHooksError


class ToolError(AgentHooksError):
    """A tool call failed in a way the model is told about (unknown, disabled, bad arguments)."""


class UnknownToolError(ToolError):
    """The model called a tool that no agent scope offers."""


class DisabledToolError(ToolError):
    """The model called a tool whose scope is disabled."""


class ToolValidationError(ToolError):
    """The arguments of a tool call do not validate against the tool's signature."""


class TruncatedCallError(ToolError):
    """A tool call of an answer the token limit cut off (finish reason ``length``): the call
    may be incomplete, so it was not run; the model reads this error as its tool message."""


__all__ = [
    "DisabledToolError",
    "ToolError",
    "ToolValidationError",
    "TruncatedCallError",
    "UnknownToolError",
]
