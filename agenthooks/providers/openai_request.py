"""The body of an OpenAI Chat Completions request, built from a ``ProviderRequest``."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..messages import ChatMessage, ProviderRequest, ResponseFormat, ToolCall

JSONObject = dict[str, Any]


def request_body(request: ProviderRequest, model: str, *, stream: bool = False) -> JSONObject:
    """The JSON body of a Chat Completions call for ``request`` (``model`` if it names none)."""
    messages = [message_to_wire(m) for m in request.messages]
    if request.system is not None:
        messages.insert(0, {"role": "system", "content": request.system})
    body: JSONObject = {"model": request.model or model, "messages": messages}
    if request.tools:
        body["tools"] = [tool_to_wire(tool) for tool in request.tools]
    if request.tool_choice is not None:
        body["tool_choice"] = request.tool_choice
    if request.temperature is not None:
        body["temperature"] = request.temperature
    if request.reasoning_effort is not None:
        body["reasoning_effort"] = request.reasoning_effort
    if request.response_format is not None:
        body["response_format"] = response_format_to_wire(request.response_format)
    if stream:
        body["stream"] = True
        body["stream_options"] = {"include_usage": True}
    return body


def message_to_wire(message: ChatMessage) -> JSONObject:
    """One ``ChatMessage`` as an OpenAI chat message."""
    if message.role == "tool":
        return {
            "role": "tool",
            "tool_call_id": message.tool_call_id,
            "content": message.content or "",
        }
    wire: JSONObject = {"role": message.role}
    if message.tool_calls:
        # null content is the API's own form for an assistant message that only calls tools
        wire["content"] = message.content
        wire["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": _arguments_text(call)},
            }
            for call in message.tool_calls
        ]
    else:
        wire["content"] = message.content or ""
    if message.name is not None:
        wire["name"] = message.name
    return wire


def tool_to_wire(tool: Mapping[str, Any]) -> JSONObject:
    """A tool schema in the Chat Completions form ``{"type": "function", "function": {...}}``.

    Accepts that form as is, a bare ``{"name", "description", "parameters"}`` function schema,
    or the flat ``{"type": "function", "name", ...}`` form, and wraps the last two.
    """
    if "function" in tool or ("type" in tool and tool["type"] != "function"):
        return dict(tool)
    function = {key: value for key, value in tool.items() if key != "type"}
    return {"type": "function", "function": function}


def response_format_to_wire(fmt: ResponseFormat) -> JSONObject:
    """The structured-output request: ``{"type": "json_schema", "json_schema": {...}}``."""
    return {
        "type": "json_schema",
        "json_schema": {"name": fmt.name, "schema": fmt.json_schema, "strict": fmt.strict},
    }


def _arguments_text(call: ToolCall) -> str:
    # the model sees the text it sent, even when that text was not a JSON object
    return call.raw_arguments if call.raw_arguments is not None else json.dumps(call.arguments)


__all__ = ["message_to_wire", "request_body", "response_format_to_wire", "tool_to_wire"]
