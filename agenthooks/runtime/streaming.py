"""The typed items ``chat_stream()`` yields."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..messages import AgentResponse, ToolCall


@dataclass(frozen=True, slots=True)
class TextDelta:
    """A piece of assistant text (withheld until ``post_agent`` allowed it when gated)."""

    text: str


@dataclass(frozen=True, slots=True)
class ToolCallStart:
    """A tool call is about to run."""

    call: ToolCall


@dataclass(frozen=True, slots=True)
class ToolCallEnd:
    """A tool call finished: ``result`` or ``error`` (the error text the model sees)."""

    call: ToolCall
    result: Any = None
    error: str | None = None


@dataclass(frozen=True, slots=True)
class FinalResponse:
    """The last item: the run's ``AgentResponse``."""

    response: AgentResponse


StreamEvent = TextDelta | ToolCallStart | ToolCallEnd | FinalResponse

__all__ = ["FinalResponse", "StreamEvent", "TextDelta", "ToolCallEnd", "ToolCallStart"]
