"""Anthropic Messages API requests: a ``ProviderRequest`` as the JSON body of
``POST /v1/messages``. Pure functions; ``AnthropicProvider`` does the HTTP."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import ProviderError
from ..messages import ChatMessage, ProviderRequest, ThinkingBlock
from .anthropic_output import add_output_tool
from .anthropic_response import JSONObject, clip

THINKING_BUDGETS = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384}
"""``ProviderRequest.reasoning_effort`` → extended thinking's ``budget_tokens``."""

_TOOL_CHOICES = {"auto": "auto", "any": "any", "required": "any", "none": "none"}


def request_body(
    request: ProviderRequest, model: str, max_tokens: int, *, stream: bool = False
) -> JSONObject:
    """The JSON body of ``POST /v1/messages`` for ``request`` (``model`` if it names none).

    System messages of the transcript join the top-level ``system`` after the instructions.
    A ``reasoning_effort`` turns extended thinking on (``minimal``/``low``/``medium``/``high``
    or a token budget as digits; ``none`` leaves it off); ``max_tokens`` grows by the budget
    when the budget would not leave it room. A ``response_format`` becomes the output tool
    (``anthropic_output``).
    """
    system = [request.system] if request.system else []
    system += [m.content for m in request.messages if m.role == "system" and m.content]
    body: JSONObject = {"model": request.model or model, "max_tokens": max_tokens}
    if system:
        body["system"] = "\n\n".join(system)
    body["messages"] = messages_to_wire(request.messages)
    if request.tools:
        body["tools"] = [tool_to_wire(tool, index) for index, tool in enumerate(request.tools)]
    if request.tool_choice is not None:
        body["tool_choice"] = tool_choice_to_wire(request.tool_choice)
    if request.temperature is not None:
        body["temperature"] = request.temperature
    budget = thinking_budget(request.reasoning_effort)
    if budget is not None:
        body["thinking"] = {"type": "enabled", "budget_tokens": budget}
        if budget >= max_tokens:
            body["max_tokens"] = budget + max_tokens
    if request.response_format is not None:
        add_output_tool(body, request, request.response_format)
    if stream:
        body["stream"] = True
    return body


def messages_to_wire(messages: list[ChatMessage]) -> list[JSONObject]:
    """The transcript as Messages API turns.

    Tool messages become ``tool_result`` blocks of a user turn; adjacent messages of one
    role share one turn, in which tool results come first (the parallel results of one
    assistant turn go back together) and thinking blocks lead an assistant turn. A turn of
    one text block is sent as a plain string.
    """
    turns: list[JSONObject] = []
    for message in messages:
        if message.role == "system":
            continue
        role = "assistant" if message.role == "assistant" else "user"
        blocks = _blocks(message)
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})
    lead = {"user": "tool_result", "assistant": "thinking"}
    for turn in turns:
        first = lead[turn["role"]]
        content = sorted(turn["content"], key=lambda b: not b["type"].endswith(first))
        if not content:
            turn["content"] = ""
        elif len(content) == 1 and content[0]["type"] == "text":
            turn["content"] = content[0]["text"]
        else:
            turn["content"] = content
    return turns


def _blocks(message: ChatMessage) -> list[JSONObject]:
    if message.role == "tool":
        result: JSONObject = {
            "type": "tool_result",
            "tool_use_id": message.tool_call_id,
            "content": message.content or "",
        }
        if message.is_error:
            result["is_error"] = True
        return [result]
    blocks = [thinking_to_wire(block) for block in message.thinking_blocks]
    if message.content:
        blocks.append({"type": "text", "text": message.content})
    blocks += [
        {"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments}
        for call in message.tool_calls
    ]
    return blocks


def thinking_to_wire(block: ThinkingBlock) -> JSONObject:
    """A thinking block exactly as the API sent it."""
    if block.type == "redacted_thinking":
        return {"type": "redacted_thinking", "data": block.data}
    return {"type": "thinking", "thinking": block.thinking, "signature": block.signature}


def tool_to_wire(tool: Mapping[str, Any], index: int = 0) -> JSONObject:
    """A tool as ``{"name", "description", "input_schema"}``.

    Takes the Chat Completions form ``{"type": "function", "function": {...}}`` (what
    ``Tool.schema`` gives), a bare function schema, or an Anthropic tool (one with an
    ``input_schema``, or a server tool whose ``type`` is not ``function``) as is.
    """
    if "input_schema" in tool or tool.get("type", "function") != "function":
        return dict(tool)
    function = tool.get("function", tool)
    name = function.get("name") if isinstance(function, Mapping) else None
    if not isinstance(name, str) or not name:
        raise ProviderError(f"anthropic: tools[{index}] has no name: {clip(dict(tool))}")
    wire: JSONObject = {"name": name}
    if function.get("description"):
        wire["description"] = function["description"]
    wire["input_schema"] = function.get("parameters") or {"type": "object", "properties": {}}
    return wire


def tool_choice_to_wire(choice: str | Mapping[str, Any]) -> JSONObject:
    """``auto`` / ``required`` (or ``any``) / ``none``, a named function, or the API's own form."""
    if isinstance(choice, str):
        if choice not in _TOOL_CHOICES:
            raise ProviderError(
                f"anthropic: tool_choice {choice!r} is not one of auto, required, any, none"
            )
        return {"type": _TOOL_CHOICES[choice]}
    function = choice.get("function")
    if choice.get("type") == "function" and isinstance(function, Mapping):
        return {"type": "tool", "name": function.get("name")}
    return dict(choice)


def thinking_budget(effort: str | None) -> int | None:
    """The thinking budget for a ``reasoning_effort`` (None: no thinking)."""
    if effort is None or effort == "none":
        return None
    if effort.isdigit():
        return int(effort)
    if effort not in THINKING_BUDGETS:
        raise ProviderError(
            f"anthropic: reasoning_effort {effort!r} is not one of none, "
            + ", ".join(THINKING_BUDGETS)
            + ", or a token budget"
        )
    return THINKING_BUDGETS[effort]


__all__ = [
    "THINKING_BUDGETS",
    "messages_to_wire",
    "request_body",
    "thinking_budget",
    "thinking_to_wire",
    "tool_choice_to_wire",
    "tool_to_wire",
]
