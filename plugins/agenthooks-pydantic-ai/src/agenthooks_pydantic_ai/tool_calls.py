"""A Pydantic AI tool call as hooks see it, and the tool messages ``on_message`` announces.

``bridge_tool`` describes the tool (``ctx.tool``) and validates a handler's rewritten
arguments with the tool's own Pydantic AI validator, so a guard judges what will run.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError
from pydantic_ai.exceptions import ToolFailedError, ToolRetryError
from pydantic_ai.messages import ToolCallPart, ToolReturnPart
from pydantic_ai.tools import RunContext, ToolDefinition

from agenthooks import ChatMessage, ToolCall
from agenthooks.bridges import BridgeTool, invalid_arguments


def bridge_tool(ctx: RunContext[Any], tool_def: ToolDefinition) -> BridgeTool:
    """The tool as hooks see it, validating with the validator Pydantic AI runs it with."""
    manager = ctx.tool_manager
    tool = manager.tools.get(tool_def.name) if manager is not None and manager.tools else None
    validator = tool.args_validator if tool is not None else None

    def validate(arguments: dict[str, Any]) -> dict[str, Any]:
        if validator is None:
            return dict(arguments)
        try:
            validated = validator.validate_python(arguments, context=ctx.validation_context)
        except ValidationError as exc:
            raise invalid_arguments(tool_def.name, exc) from exc
        return dict(validated)

    return BridgeTool(
        tool_def.name,
        tool_def.description or "",
        tool_def.parameters_json_schema,
        validate=validate,
        original=tool_def,
    )


def result_text(result: Any) -> str:
    """A tool result as the text of its tool message."""
    if isinstance(result, str):
        return result
    try:
        return json.dumps(result, default=str)
    except (TypeError, ValueError):
        return str(result)


def tool_message(call: ToolCall, text: str, *, is_error: bool) -> ChatMessage:
    """The tool message of ``call``."""
    return ChatMessage(
        role="tool", content=text, tool_call_id=call.id, name=call.name, is_error=is_error
    )


def framework_text(exc: ToolRetryError | ToolFailedError) -> str:
    """What the model reads for a retry or failure the framework itself answers a call with."""
    part = exc.tool_retry if isinstance(exc, ToolRetryError) else exc.tool_failed
    if isinstance(part, ToolReturnPart):
        return part.model_response_str()
    content = part.content
    return content if isinstance(content, str) else result_text(content)


def framework_tool_message(
    call: ToolCallPart, exc: ToolRetryError | ToolFailedError
) -> ChatMessage:
    """The error tool message of ``call`` that the framework answered with a retry or failure."""
    return tool_message(
        ToolCall(id=call.tool_call_id, name=call.tool_name), framework_text(exc), is_error=True
    )


__all__ = ["bridge_tool", "framework_text", "framework_tool_message", "result_text", "tool_message"]
