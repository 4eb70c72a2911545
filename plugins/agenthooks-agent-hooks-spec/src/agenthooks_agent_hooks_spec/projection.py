"""Projections between agenthooks' objects and the JSON of AGENT-HOOKS-0.1 contexts.

Each ``*_to_wire`` builds the JSON value a context carries; each ``*_from_wire`` writes a
(possibly transformed) value back into the object the run uses. A value that cannot be
represented either way raises ``ProjectionError``, which the adapter turns into a fail-closed
deny. Without a transform every projection round-trips exactly (tested).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, get_args

from pydantic import BaseModel

from agenthooks import ChatMessage, ProviderRequest, ProviderResponse, ToolCall, Usage
from agenthooks.messages import Role
from agenthooks.plugins import serialize_result

_ROLES: frozenset[str] = frozenset(get_args(Role))
_MESSAGE_KEYS = frozenset({"role", "content", "tool_calls", "tool_call_id", "name", "is_error"})
_CALL_KEYS = frozenset({"id", "name", "args"})
_RESPONSE_KEYS = frozenset({"content", "tool_calls", "finish_reason"})


class ProjectionError(ValueError):
    """A value could not be projected to, or written back from, the standard's JSON.

    The message is payload-free (a path and a type name, never content), so it may go on an
    interception record."""


def to_json(value: Any, path: str = "$") -> Any:
    """``value`` as a JSON value (pydantic models dumped); ``ProjectionError`` otherwise."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise ProjectionError(f"{path}: object key of type {type(key).__name__}")
            out[key] = to_json(item, f"{path}.{key}")
        return out
    if isinstance(value, (list, tuple)):
        return [to_json(item, f"{path}[{i}]") for i, item in enumerate(value)]
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    raise ProjectionError(f"{path}: {type(value).__name__} is not JSON")


def result_to_wire(result: Any) -> Any:
    """A tool result as ``tool_result.value``: its JSON form, or else the text the model
    would read (``serialize_result``)."""
    try:
        return to_json(result)
    except ProjectionError:
        return serialize_result(result)


def error_to_wire(error: BaseException | str | None) -> str:
    """A tool error as ``tool_result.value``: the text the model reads."""
    if isinstance(error, BaseException):
        return str(error) or type(error).__name__
    return "" if error is None else str(error)


def error_from_wire(value: Any) -> str:
    """A transformed ``tool_result.value`` of a failed call as the error text the model reads."""
    if isinstance(value, str):
        return value
    return json.dumps(to_json(value, "$target"), ensure_ascii=False)


def text_from_wire(value: Any, path: str, *, nullable: bool = False) -> str | None:
    """A transformed value that lands in a text field (a message, an answer)."""
    if isinstance(value, str) or (nullable and value is None):
        return value
    want = "a string or null" if nullable else "a string"
    raise ProjectionError(f"{path}: expected {want}, got {type(value).__name__}")


def call_to_wire(call: ToolCall, path: str = "$") -> dict[str, Any]:
    """One tool call as ``{"id", "name", "args"}``."""
    return {"id": call.id, "name": call.name, "args": to_json(call.arguments, f"{path}.args")}


def call_from_wire(value: Any, path: str) -> ToolCall:
    """``{"id", "name", "args"}`` as a ``ToolCall``; the id must be kept (tool messages
    answer it)."""
    if not isinstance(value, dict):
        raise ProjectionError(f"{path}: expected an object, got {type(value).__name__}")
    unknown = set(value) - _CALL_KEYS
    if unknown:
        raise ProjectionError(f"{path}: unknown members {sorted(unknown)}")
    call_id, name, args = value.get("id"), value.get("name"), value.get("args")
    if not isinstance(call_id, str) or not call_id:
        raise ProjectionError(f"{path}.id: expected a non-empty string")
    if not isinstance(name, str) or not name:
        raise ProjectionError(f"{path}.name: expected a non-empty string")
    if not isinstance(args, dict):
        raise ProjectionError(f"{path}.args: expected an object, got {type(args).__name__}")
    return ToolCall(id=call_id, name=name, arguments=args)


def args_from_wire(call: ToolCall, args: Any) -> ToolCall:
    """``call`` with transformed arguments (its id and name stay)."""
    if not isinstance(args, dict):
        raise ProjectionError(f"$target: expected an object, got {type(args).__name__}")
    return call.model_copy(update={"arguments": args})


def message_to_wire(message: ChatMessage, path: str = "$") -> dict[str, Any]:
    """A ``ChatMessage`` as ``{"role", "content"}`` plus the members it sets."""
    out: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        out["tool_calls"] = [
            call_to_wire(c, f"{path}.tool_calls[{i}]") for i, c in enumerate(message.tool_calls)
        ]
    if message.tool_call_id is not None:
        out["tool_call_id"] = message.tool_call_id
    if message.name is not None:
        out["name"] = message.name
    if message.is_error:
        out["is_error"] = True
    return out


def message_from_wire(value: Any, path: str) -> ChatMessage:
    """One ``messages`` item as a ``ChatMessage``; unknown members are refused."""
    if not isinstance(value, dict):
        raise ProjectionError(f"{path}: expected an object, got {type(value).__name__}")
    unknown = set(value) - _MESSAGE_KEYS
    if unknown:
        raise ProjectionError(f"{path}: unknown members {sorted(unknown)}")
    role = value.get("role")
    if role not in _ROLES:
        raise ProjectionError(f"{path}.role: expected one of {sorted(_ROLES)}")
    content = text_from_wire(value.get("content"), f"{path}.content", nullable=True)
    raw_calls = value.get("tool_calls", [])
    if not isinstance(raw_calls, list):
        raise ProjectionError(f"{path}.tool_calls: expected an array")
    calls = [call_from_wire(c, f"{path}.tool_calls[{i}]") for i, c in enumerate(raw_calls)]
    tool_call_id, name = value.get("tool_call_id"), value.get("name")
    for key, item in (("tool_call_id", tool_call_id), ("name", name)):
        if item is not None and not isinstance(item, str):
            raise ProjectionError(f"{path}.{key}: expected a string")
    is_error = value.get("is_error", False)
    if not isinstance(is_error, bool):
        raise ProjectionError(f"{path}.is_error: expected a boolean")
    return ChatMessage(
        role=role,
        content=content,
        tool_calls=calls,
        tool_call_id=tool_call_id,
        name=name,
        is_error=is_error,
    )


def request_to_wire(request: ProviderRequest) -> list[dict[str, Any]]:
    """``messages`` of ``pre_model_call``: the instructions (``ProviderRequest.system``) as a
    leading system message, then the request's messages."""
    out = [] if request.system is None else [{"role": "system", "content": request.system}]
    base = len(out)
    out.extend(message_to_wire(m, f"$target[{base + i}]") for i, m in enumerate(request.messages))
    return out


def request_from_wire(request: ProviderRequest, messages: Any) -> ProviderRequest:
    """``request`` with transformed ``messages``: a leading system message becomes
    ``system`` again (no leading system message: no instructions), the rest the messages."""
    if not isinstance(messages, list):
        raise ProjectionError(f"$target: expected an array, got {type(messages).__name__}")
    system: str | None = None
    rest = messages
    first = messages[0] if messages else None
    if (
        isinstance(first, dict)
        and first.get("role") == "system"
        and set(first) <= {"role", "content"}
    ):
        system = text_from_wire(first.get("content"), "$target[0].content")
        rest = messages[1:]
    offset = len(messages) - len(rest)
    converted = [message_from_wire(m, f"$target[{offset + i}]") for i, m in enumerate(rest)]
    return request.model_copy(update={"system": system, "messages": converted})


def tools_to_wire(request: ProviderRequest) -> list[dict[str, Any]]:
    """``tools`` of ``pre_model_call``: name, description and JSON schema of each tool offered."""
    out: list[dict[str, Any]] = []
    for schema in request.tools:
        function = schema.get("function", schema)
        decl: dict[str, Any] = {"name": str(function.get("name", ""))}
        if function.get("description"):
            decl["description"] = str(function["description"])
        if isinstance(function.get("parameters"), dict):
            decl["schema"] = to_json(function["parameters"])
        out.append(decl)
    return out


def response_to_wire(response: ProviderResponse) -> dict[str, Any]:
    """``response`` of ``post_model_call``: content, tool calls (always a list) and finish
    reason."""
    return {
        "content": response.content,
        "tool_calls": [
            call_to_wire(c, f"$target.tool_calls[{i}]") for i, c in enumerate(response.tool_calls)
        ],
        "finish_reason": response.finish_reason,
    }


def response_from_wire(response: ProviderResponse, value: Any) -> ProviderResponse:
    """``response`` with a transformed ``response`` written back (usage and raw stay)."""
    if not isinstance(value, dict):
        raise ProjectionError(f"$target: expected an object, got {type(value).__name__}")
    unknown = set(value) - _RESPONSE_KEYS
    if unknown:
        raise ProjectionError(f"$target: unknown members {sorted(unknown)}")
    content = text_from_wire(value.get("content"), "$target.content", nullable=True)
    raw_calls = value.get("tool_calls", [])
    if not isinstance(raw_calls, list):
        raise ProjectionError("$target.tool_calls: expected an array")
    calls = [call_from_wire(c, f"$target.tool_calls[{i}]") for i, c in enumerate(raw_calls)]
    finish = value.get("finish_reason", response.finish_reason)
    if not isinstance(finish, str):
        raise ProjectionError("$target.finish_reason: expected a string")
    return response.model_copy(
        update={"content": content, "tool_calls": calls, "finish_reason": finish}
    )


def usage_to_wire(usage: Usage) -> dict[str, int] | None:
    """``usage`` of ``post_model_call``, or None when the provider reported none."""
    if not (usage.input_tokens or usage.output_tokens):
        return None
    return {"prompt_tokens": usage.input_tokens, "completion_tokens": usage.output_tokens}


def fingerprint(value: Any) -> str:
    """A canonical text of a JSON value, to tell whether a transform changed it (``True`` and
    ``1`` differ here, unlike under ``==``)."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=repr)


__all__ = [
    "ProjectionError",
    "args_from_wire",
    "call_from_wire",
    "call_to_wire",
    "error_from_wire",
    "error_to_wire",
    "fingerprint",
    "message_from_wire",
    "message_to_wire",
    "request_from_wire",
    "request_to_wire",
    "response_from_wire",
    "response_to_wire",
    "result_to_wire",
    "text_from_wire",
    "to_json",
    "tools_to_wire",
    "usage_to_wire",
]
