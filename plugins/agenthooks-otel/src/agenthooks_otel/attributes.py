"""Attribute names (OpenTelemetry GenAI semantic conventions, plus ``agenthooks.*`` extras) and
the JSON forms of captured content.

The names are spelled out rather than imported from ``opentelemetry.semconv._incubating``:
that module is private and renamed between releases.
"""

from __future__ import annotations

import json
import traceback
from collections.abc import Callable
from typing import Any

from agenthooks import ChatMessage, ProviderResponse

Redact = Callable[[Any], Any]
"""What content passes through before it becomes an attribute (``agenthooks.redaction``)."""


def _same(value: Any) -> Any:
    return value


OPERATION = "gen_ai.operation.name"
PROVIDER = "gen_ai.provider.name"
AGENT_NAME = "gen_ai.agent.name"
CONVERSATION_ID = "gen_ai.conversation.id"
REQUEST_MODEL = "gen_ai.request.model"
REQUEST_TEMPERATURE = "gen_ai.request.temperature"
REQUEST_STREAM = "gen_ai.request.stream"
RESPONSE_MODEL = "gen_ai.response.model"
RESPONSE_ID = "gen_ai.response.id"
FINISH_REASONS = "gen_ai.response.finish_reasons"
INPUT_TOKENS = "gen_ai.usage.input_tokens"
OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
TOOL_NAME = "gen_ai.tool.name"
TOOL_CALL_ID = "gen_ai.tool.call.id"
TOOL_TYPE = "gen_ai.tool.type"
TOOL_DESCRIPTION = "gen_ai.tool.description"
TOOL_ARGUMENTS = "gen_ai.tool.call.arguments"
TOOL_RESULT = "gen_ai.tool.call.result"
INPUT_MESSAGES = "gen_ai.input.messages"
OUTPUT_MESSAGES = "gen_ai.output.messages"
SYSTEM_INSTRUCTIONS = "gen_ai.system_instructions"
ERROR_TYPE = "error.type"

RUN_ID = "agenthooks.run_id"
PARENT_RUN_ID = "agenthooks.parent_run_id"
BRANCH = "agenthooks.branch"
DENIED = "agenthooks.denied"
DENIED_REASON = "agenthooks.denied.reason"
RECOVERED = "agenthooks.recovered"
ERROR_SOURCE = "agenthooks.tool.error_source"
SUBAGENT = "agenthooks.subagent"
ABORT_REASON = "agenthooks.abort.reason"
RESPONSE_AGENT = "agenthooks.response.agent"
RESUMED = "agenthooks.resumed"
"""On a resumed run's ``invoke_agent`` span: the part of a paused run after ``resume()``."""

DENIED_TYPE = "denied"
"""``error.type`` of a tool call a hook denied."""


def dumps(value: Any) -> str:
    """``value`` as compact JSON; anything JSON cannot encode becomes its ``str``."""
    return json.dumps(value, default=str, ensure_ascii=False, separators=(",", ":"))


def _parts(message: ChatMessage) -> list[dict[str, Any]]:
    if message.role == "tool":
        return [
            {"type": "tool_call_response", "id": message.tool_call_id, "response": message.content}
        ]
    parts: list[dict[str, Any]] = []
    if message.content:
        parts.append({"type": "text", "content": message.content})
    for call in message.tool_calls:
        parts.append(
            {"type": "tool_call", "id": call.id, "name": call.name, "arguments": call.arguments}
        )
    return parts


def input_messages(messages: list[ChatMessage], redact: Redact = _same) -> str:
    """``gen_ai.input.messages``: the conversation as the semantic conventions' JSON."""
    return dumps(redact([{"role": m.role, "parts": _parts(m)} for m in messages]))


def output_messages(response: ProviderResponse, redact: Redact = _same) -> str:
    """``gen_ai.output.messages`` of a model call."""
    message = ChatMessage(
        role="assistant", content=response.content, tool_calls=list(response.tool_calls)
    )
    return dumps(
        redact(
            [
                {
                    "role": "assistant",
                    "parts": _parts(message),
                    "finish_reason": response.finish_reason,
                }
            ]
        )
    )


def text_messages(
    role: str, content: str | None, finish_reason: str | None = None, redact: Redact = _same
) -> str:
    """One text message in the conventions' JSON (an agent run's input or final answer)."""
    message: dict[str, Any] = {
        "role": role,
        "parts": [{"type": "text", "content": content}] if content else [],
    }
    if finish_reason is not None:
        message["finish_reason"] = finish_reason
    return dumps(redact([message]))


def system_instructions(system: str, redact: Redact = _same) -> str:
    """``gen_ai.system_instructions``."""
    return dumps(redact([{"type": "text", "content": system}]))


def exception_attributes(error: BaseException, redact: Redact) -> dict[str, str]:
    """The ``exception.*`` event attributes of ``error``, redacted (its message, and the
    traceback, which repeats the message)."""
    return {
        "exception.type": type(error).__qualname__,
        "exception.message": str(redact(str(error))),
        "exception.stacktrace": str(
            redact("".join(traceback.format_exception(type(error), error, error.__traceback__)))
        ),
    }


def error_type(error: object) -> str:
    """``error.type``: the exception's qualified class name."""
    if isinstance(error, BaseException):
        return type(error).__qualname__
    return "ToolError"


def error_text(error: object) -> str:
    """An error as one line of text (its message, else its type)."""
    if isinstance(error, BaseException):
        return str(error) or type(error).__qualname__
    return str(error)
