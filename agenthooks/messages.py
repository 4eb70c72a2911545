"""Messages, calls and responses: the typed values that flow through a run.

Every model has a default for every field that is not essential, so
``ProviderResponse(content="hi")`` is valid. ``ChatMessage`` and ``ToolCall`` are frozen:
hooks replace them (``{"call": ...}``), they never mutate them in place.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Role = Literal["system", "user", "assistant", "tool"]
FinishReason = Literal[
    "stop", "length", "content_filter", "denied", "stopped", "terminated", "paused", "pause_turn"
]
"""How a run ended; a reason the runtime does not act on is reported as the provider sent it
(``AgentResponse.finish_reason`` may hold another string)."""


class ToolCall(BaseModel):
    """One tool call the model asked for: ``id``, tool ``name`` and parsed ``arguments``.

    ``raw_arguments`` is set only when the model's argument text is not a JSON object (not
    JSON at all, or JSON of another shape): it keeps that text as sent and ``arguments`` is
    ``{}``. The runtime answers such a call with a validation tool error the model can read.
    """

    model_config = ConfigDict(frozen=True)

    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    raw_arguments: str | None = None
    """Set only when the model's argument text is not a JSON object; ``arguments`` is then
    ``{}`` and the runtime answers the call with a validation tool error the model can read."""


class ThinkingBlock(BaseModel):
    """One block of the model's extended thinking, kept exactly as the provider sent it.

    ``type="thinking"`` carries the reasoning ``thinking`` text and its ``signature``;
    ``type="redacted_thinking"`` carries only the encrypted ``data``. Providers that need them
    (Anthropic, with tool use) send them back unchanged at the head of their assistant turn.
    """

    model_config = ConfigDict(frozen=True)

    type: Literal["thinking", "redacted_thinking"] = "thinking"
    thinking: str = ""
    signature: str = ""
    data: str = ""


class ChatMessage(BaseModel):
    """One message of a transcript.

    ``tool_calls`` is set on assistant messages that ask for tools; ``tool_call_id`` and
    ``is_error`` on tool messages. ``thinking_blocks`` are the model's thinking blocks of an
    assistant turn, in the order it produced them (empty for providers without thinking).
    """

    model_config = ConfigDict(frozen=True)

    role: Role
    content: str | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)
    tool_call_id: str | None = None
    is_error: bool = False
    name: str | None = None
    thinking_blocks: list[ThinkingBlock] = Field(default_factory=list)


class Usage(BaseModel):
    """Token counts and cost; ``+`` adds two usages (how a run accumulates them).

    ``input_tokens`` counts every prompt token, cached or not; ``cache_read_tokens`` and
    ``cache_write_tokens`` are the part of them read from and written to the provider's
    prompt cache.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    cost: float = 0.0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            total_tokens=self.total_tokens + other.total_tokens,
            cost=self.cost + other.cost,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
        )


class ResponseFormat(BaseModel):
    """The shape a final answer must have: a JSON schema and its name.

    A provider that reads it (``supports_response_format = True``) asks the model for it in
    its native way (OpenAI ``response_format``, an Anthropic forced tool); for any other
    provider the runtime states it in the instructions.
    """

    model_config = ConfigDict(frozen=True)

    name: str
    """The schema's name (letters, digits, ``_`` and ``-``; at most 64 characters)."""
    json_schema: dict[str, Any] = Field(default_factory=dict)
    strict: bool = False
    """Ask the provider to enforce the schema exactly (OpenAI ``strict``; the schema must then
    follow that mode's rules)."""


class ProviderRequest(BaseModel):
    """What one provider call sends. The instructions travel in ``system`` only;
    ``response_format`` is set when the agent has an ``output_type``."""

    model: str = ""
    system: str | None = None
    messages: list[ChatMessage] = Field(default_factory=list)
    tools: list[dict[str, Any]] = Field(default_factory=list)
    tool_choice: str | dict[str, Any] | None = None
    temperature: float | None = None
    reasoning_effort: str | None = None
    response_format: ResponseFormat | None = None


class ProviderResponse(BaseModel):
    """One complete provider answer: text, tool calls, finish reason and usage.

    ``thinking_blocks`` are the answer's thinking blocks in order; the runtime copies them onto
    the assistant message it commits, so the next request sends them back.
    """

    content: str | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)
    thinking_blocks: list[ThinkingBlock] = Field(default_factory=list)
    finish_reason: str = "stop"
    usage: Usage = Field(default_factory=Usage)
    raw: Any = None


class PendingCall(BaseModel):
    """A tool call a paused run waits on: a hook returned ``Ask(reason)`` for it.

    ``call_id`` is the id ``resume()`` answers; ``tool`` the tool's name; ``arguments`` what
    the tool would get (validated); ``reason`` the ``Ask``'s reason.
    """

    model_config = ConfigDict(frozen=True)

    call_id: str
    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    reason: str = ""


class AgentResponse(BaseModel):
    """What ``chat()`` returns.

    ``messages`` are the messages this run added to history; ``agent`` names the agent that
    answered last (differs from the called agent after a handoff). ``output`` is the
    validated final answer (an instance of the agent's ``output_type``), else ``None``. A
    paused run (``finish_reason="paused"``) lists the calls it waits on in ``pending``; a resumed run's
    response covers the whole run (its messages, usage and iterations since it started).
    ``finish_reason`` is never rewritten: ``"pause_turn"`` (Anthropic: a server-side tool paused
    the turn; continue it with another ``chat()``) and any other reason the provider sent are
    reported as sent.
    """

    content: str | None = None
    finish_reason: FinishReason | str = "stop"
    messages: list[ChatMessage] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    iterations: int = 0
    agent: str | None = None
    output: Any = None
    pending: list[PendingCall] = Field(default_factory=list)


__all__ = [
    "AgentResponse",
    "ChatMessage",
    "FinishReason",
    "PendingCall",
    "ProviderRequest",
    "ProviderResponse",
    "ResponseFormat",
    "Role",
    "ThinkingBlock",
    "ToolCall",
    "Usage",
]
