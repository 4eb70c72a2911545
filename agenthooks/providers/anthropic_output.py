"""Structured output on the Anthropic Messages API, in its documented idiom: the response
format becomes a tool whose ``input_schema`` is the output schema, and the model is made to
call it; that call comes back as the answer's text (its input as JSON)."""

from __future__ import annotations

import json

from ..errors import ProviderError
from ..messages import ProviderRequest, ProviderResponse, ResponseFormat
from .anthropic_response import JSONObject

OUTPUT_TOOL = "Give your final answer with this tool: its input is the answer, a {name} object."
"""The description of the output tool."""

THINKING_NOTE = "Give your final answer by calling the {name} tool."
"""Added to ``system`` when extended thinking is on: the API forces no tool then."""


def add_output_tool(body: JSONObject, request: ProviderRequest, fmt: ResponseFormat) -> None:
    """Offer ``fmt`` as the output tool in ``body`` and make the model call it: that tool
    alone (``tool_choice: tool``), or any tool when the request has tools of its own. A
    ``tool_choice`` of the request stands; with extended thinking (which forces no tool) the
    system prompt asks for the tool instead."""
    tools: list[JSONObject] = body.setdefault("tools", [])
    if any(tool.get("name") == fmt.name for tool in tools):
        raise ProviderError(
            f"anthropic: the output type {fmt.name!r} has the name of one of the request's "
            "tools; rename the type or the tool"
        )
    tools.append(
        {
            "name": fmt.name,
            "description": OUTPUT_TOOL.format(name=fmt.name),
            "input_schema": fmt.json_schema,
        }
    )
    if request.tool_choice is not None:
        return
    if "thinking" in body:
        note = THINKING_NOTE.format(name=fmt.name)
        body["system"] = f"{body['system']}\n\n{note}" if body.get("system") else note
    elif len(tools) > 1:
        body["tool_choice"] = {"type": "any"}
    else:
        body["tool_choice"] = {"type": "tool", "name": fmt.name}


def answer_of(response: ProviderResponse, fmt: ResponseFormat) -> tuple[ProviderResponse, bool]:
    """``response`` with a call of the output tool turned into its answer: the call's input
    as JSON text in ``content``, no tool calls, ``finish_reason="stop"`` (``"length"`` stays:
    the answer was cut off); True when it was.
    Asked together with other tools, the output call is dropped (those tools run first and
    the model answers again)."""
    answers = [call for call in response.tool_calls if call.name == fmt.name]
    if not answers:
        return response, False
    others = [call for call in response.tool_calls if call.name != fmt.name]
    if others:
        return response.model_copy(update={"tool_calls": others}), False
    call = answers[-1]
    text = call.raw_arguments
    if text is None:
        text = json.dumps(call.arguments, ensure_ascii=False)
    # the call is the answer: "tool_calls" no longer says anything; a cut-off answer stays so
    finish = "stop" if response.finish_reason == "tool_calls" else response.finish_reason
    update = {"content": text, "tool_calls": [], "finish_reason": finish}
    return response.model_copy(update=update), True


__all__ = ["OUTPUT_TOOL", "THINKING_NOTE", "add_output_tool", "answer_of"]
