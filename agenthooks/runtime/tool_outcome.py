"""What one tool call carries on its way (``Flight``) and what it ends with (``ToolOutcome``):
exactly one tool message is written from the outcome, or none when the call waits for a
human."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import structlog

from ..decisions import Ask
from ..errors import AgentHooksError
from ..messages import ToolCall
from ..tools import Tool

if TYPE_CHECKING:
    from .batch import Batch
    from .run import Run

log = structlog.get_logger("agenthooks")
FLIGHT = "_flight"
"""Where a call's context keeps its ``Flight`` (not a field: hooks never see it)."""


@dataclass(slots=True)
class ToolOutcome:
    """The final outcome of one tool call: exactly one tool message is written from it."""

    call: ToolCall
    result: Any = None
    error: BaseException | str | None = None
    source: str | None = None
    denied: bool = False
    terminate: bool = False
    duration: float = 0.0
    short_circuit: bool = False
    text: str | None = None
    """The result as the tool message will carry it, once written down."""
    asked: str | None = None
    """An ``Ask``'s reason: the call waits for a human (no tool message, the run pauses)."""

    @property
    def is_error(self) -> bool:
        return self.error is not None

    def error_text(self) -> str:
        """The error as the model reads it: a tool's own exception with its type
        (``FileNotFoundError: /tmp/a.txt``); agenthooks' own errors are worded for the model
        already."""
        err = self.error
        if isinstance(err, BaseException):
            text = str(err)
            if self.source == "handler" and not isinstance(err, AgentHooksError):
                return f"{type(err).__name__}: {text}" if text else type(err).__name__
            return text or type(err).__name__
        return str(err)


@dataclass(slots=True)
class Flight:
    """One call on its way: the tool, the validated arguments and any outcome decided before
    the hooks (unknown tool, disabled scope, invalid arguments), its batch and its place."""

    run: Run
    call: ToolCall
    batch: Batch | None
    index: int
    tool: Tool[Any] | None = None
    scope: Any = None
    arguments: dict[str, Any] | None = None
    outcome: ToolOutcome | None = None


def asked(call: ToolCall, ask: Ask, in_subagent: bool) -> ToolOutcome:
    """The outcome of a call a hook asked about: it waits for a human, except in a
    sub-agent's run, which cannot pause (its parent's tool is running): there the ask is a
    deny with the same reason, which the sub-agent's model reads."""
    reason = ask.text(call.name)
    if in_subagent:
        log.warning("ask_in_subagent_denied", tool=call.name, tool_call_id=call.id)
        return ToolOutcome(call, error=reason, source="denied", denied=True)
    return ToolOutcome(call, asked=reason)


__all__ = ["FLIGHT", "Flight", "ToolOutcome", "asked"]
