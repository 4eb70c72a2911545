"""The Agents SDK's model boundary as agenthooks' types, and back.

A model call of the SDK is ``(system_instructions, input items, model settings, tools,
handoffs)`` in, a ``ModelResponse`` (Responses-API output items and usage) out. Here that
becomes a ``ProviderRequest`` and a ``ProviderResponse``; what a handler changed goes back as
the SDK's own items. Items our types cannot express (images and files in a message, reasoning
items, hosted tool calls, developer messages) are kept as they are and put back where they
were, and a message a handler left alone keeps its original item, so a round trip with no
change is the identity.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agents.handoffs import Handoff
from agents.items import ModelResponse
from agents.model_settings import ModelSettings
from agents.tool import FunctionTool, Tool
from agents.usage import Usage as SDKUsage
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)
from openai.types.responses.response_usage import InputTokensDetails, OutputTokensDetails

from agenthooks.messages import ChatMessage, ProviderRequest, ProviderResponse, ToolCall, Usage

_TEXT_PARTS = frozenset({"input_text", "output_text", "text"})


# --- usage ---------------------------------------------------------------------------------


def to_usage(usage: SDKUsage) -> Usage:
    """The SDK's usage as agenthooks' (``cached_tokens`` read from the prompt cache)."""
    details = usage.input_tokens_details
    return Usage(
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        total_tokens=usage.total_tokens,
        cache_read_tokens=(details.cached_tokens or 0) if details is not None else 0,
        cache_write_tokens=(getattr(details, "cache_write_tokens", 0) or 0)
        if details is not None
        else 0,
    )


def from_usage(usage: Usage, requests: int = 1) -> SDKUsage:
    """The usage of agenthooks as the SDK's (a response a hook supplied counts no request)."""
    return SDKUsage(
        requests=requests,
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        total_tokens=usage.total_tokens,
        input_tokens_details=InputTokensDetails(
            cached_tokens=usage.cache_read_tokens, cache_write_tokens=usage.cache_write_tokens
        ),
        output_tokens_details=OutputTokensDetails(reasoning_tokens=0),
    )


# --- text inside message content -----------------------------------------------------------


def _get(item: Any, key: str, default: Any = None) -> Any:
    if isinstance(item, dict):
        return item.get(key, default)
    return getattr(item, key, default)


def content_text(content: Any) -> str | None:
    """The text of a message's content: a string as is, the text parts of a list joined."""
    if content is None or isinstance(content, str):
        return content
    texts = [_get(part, "text", "") for part in content if _get(part, "type") in _TEXT_PARTS]
    return "".join(texts) if texts else None


def _with_text(content: Any, text: str | None, part_type: str) -> Any:
    """``content`` with its text replaced by ``text``: the first text part takes it, the other
    text parts go, every other part (an image, a file, a refusal) stays where it was."""
    if content is None or isinstance(content, str):
        return text
    parts: list[Any] = []
    placed = False
    for part in content:
        if _get(part, "type") not in _TEXT_PARTS:
            parts.append(part)
        elif not placed:
            placed = True
            if text:
                parts.append(_replace(part, text=text))
    if not placed and text:
        parts.append({"type": part_type, "text": text})
    return parts


def _replace(item: Any, **changes: Any) -> Any:
    if isinstance(item, dict):
        return {**item, **changes}
    return item.model_copy(update=changes)


# --- tool calls ----------------------------------------------------------------------------


def parse_arguments(text: str | None) -> tuple[dict[str, Any], str | None]:
    """A call's argument text as ``(arguments, raw_arguments)``: ``raw_arguments`` is set only
    when the text is not a JSON object (as agenthooks' ``ToolCall`` keeps it)."""
    if not text or not text.strip():
        return {}, None
    try:
        value = json.loads(text)
    except ValueError:
        return {}, text
    if isinstance(value, dict):
        return value, None
    return {}, text


def dump_arguments(arguments: dict[str, Any]) -> str:
    """Arguments as the argument text of a function call (compact, as models send it)."""
    return json.dumps(arguments, ensure_ascii=False, separators=(",", ":"), default=str)


def to_tool_call(item: Any) -> ToolCall:
    """A ``function_call`` item (a dict or the SDK's model) as a ``ToolCall``."""
    arguments, raw = parse_arguments(_get(item, "arguments"))
    return ToolCall(
        id=_get(item, "call_id"), name=_get(item, "name"), arguments=arguments, raw_arguments=raw
    )


def _call_arguments_text(call: ToolCall) -> str:
    return call.raw_arguments if call.raw_arguments is not None else dump_arguments(call.arguments)


# --- input items <-> messages --------------------------------------------------------------


@dataclass(slots=True)
class _Segment:
    """Input items and the message they make (``None``: items our types cannot express)."""

    message: ChatMessage | None
    items: list[Any]


@dataclass(slots=True)
class Transcript:
    """The messages of a model input and how each came from its items."""

    source: str | list[Any]
    messages: list[ChatMessage]
    segments: list[_Segment] = field(default_factory=list)


def _is_message(item: Any) -> bool:
    return _get(item, "role") is not None and _get(item, "type", "message") == "message"


def read_input(source: str | list[Any]) -> Transcript:
    """The SDK's model input (a string or input items) as messages."""
    if isinstance(source, str):
        message = ChatMessage(role="user", content=source)
        return Transcript(source, [message], [_Segment(message, [source])])
    segments: list[_Segment] = []
    for item in source:
        kind = _get(item, "type")
        role = _get(item, "role")
        if _is_message(item) and role in ("user", "assistant"):
            message = ChatMessage(role=role, content=content_text(_get(item, "content")))
            segments.append(_Segment(message, [item]))
        elif kind == "function_call":
            call = to_tool_call(item)
            last = segments[-1] if segments else None
            if (
                last is not None and last.message is not None and last.message.role == "assistant"
            ):  # one assistant turn: its text and the calls right after it
                last.message = last.message.model_copy(
                    update={"tool_calls": [*last.message.tool_calls, call]}
                )
                last.items.append(item)
            else:
                segments.append(_Segment(ChatMessage(role="assistant", tool_calls=[call]), [item]))
        elif kind == "function_call_output":
            output = _get(item, "output")
            text = output if isinstance(output, str) else content_text(output)
            message = ChatMessage(role="tool", content=text, tool_call_id=_get(item, "call_id"))
            segments.append(_Segment(message, [item]))
        else:
            segments.append(_Segment(None, [item]))
    messages = [s.message for s in segments if s.message is not None]
    return Transcript(source, messages, segments)


def write_input(transcript: Transcript, messages: Sequence[ChatMessage]) -> str | list[Any]:
    """``messages`` (as a handler left them) as the SDK's model input: unchanged messages keep
    their items, changed ones are rewritten in place, new ones are new items, and items our
    types cannot express stay where they were."""
    original = transcript.messages
    if len(messages) == len(original) and all(a is b or a == b for a, b in zip(messages, original)):
        return transcript.source
    segments = transcript.segments
    out: list[Any] = []
    position = 0  # the next segment not yet written or skipped

    def flush_until(index: int) -> None:
        # items our types cannot express are kept; the messages a handler removed are not
        nonlocal position
        for seg in segments[position:index]:
            if seg.message is None:
                out.extend(seg.items)
        position = max(position, index)

    for message in messages:
        found = _find(segments, position, message)
        if found is not None:
            flush_until(found)
            out.extend(segments[found].items)
            position = found + 1
            continue
        nxt = _next_message(segments, position)
        if nxt is not None and _same_slot(segments[nxt].message, message):
            flush_until(nxt)
            out.extend(_rewrite_items(segments[nxt], message))
            position = nxt + 1
        else:
            out.extend(_new_items(message))
    flush_until(len(segments))
    if isinstance(transcript.source, str) and len(out) == 1 and isinstance(out[0], str):
        return out[0]
    return [{"role": "user", "content": item} if isinstance(item, str) else item for item in out]


def _find(segments: list[_Segment], start: int, message: ChatMessage) -> int | None:
    for index in range(start, len(segments)):
        candidate = segments[index].message
        if candidate is not None and (candidate is message or candidate == message):
            return index
    return None


def _next_message(segments: list[_Segment], start: int) -> int | None:
    for index in range(start, len(segments)):
        if segments[index].message is not None:
            return index
    return None


def _same_slot(old: ChatMessage | None, new: ChatMessage) -> bool:
    """Whether ``new`` is ``old`` edited (same role; a tool message for the same call)."""
    return old is not None and old.role == new.role and old.tool_call_id == new.tool_call_id


def _rewrite_items(segment: _Segment, message: ChatMessage) -> list[Any]:
    """A changed message as the items of its segment, each changed only where it differs."""
    old = segment.message
    assert old is not None
    items: list[Any] = []
    calls = {c.id: c for c in old.tool_calls}
    wanted = {c.id: c for c in message.tool_calls}
    has_text_item = False
    for item in segment.items:
        if isinstance(item, str):  # the string input of a run
            items.append(message.content or "")
            has_text_item = True
        elif _get(item, "type") == "function_call":
            call_id = _get(item, "call_id")
            new = wanted.pop(call_id, None)
            if new is None:
                continue  # a handler removed this call
            if new != calls.get(call_id):
                item = _replace(item, name=new.name, arguments=_call_arguments_text(new))
            items.append(item)
        elif _get(item, "type") == "function_call_output":
            output = _get(item, "output")
            new_output = (
                message.content
                if isinstance(output, str) or output is None
                else _with_text(output, message.content, "input_text")
            )
            items.append(_replace(item, output=new_output if new_output is not None else ""))
            has_text_item = True
        else:
            has_text_item = True
            if message.content != old.content:
                part = "output_text" if message.role == "assistant" else "input_text"
                item = _replace(
                    item, content=_with_text(_get(item, "content"), message.content, part)
                )
            items.append(item)
    if not has_text_item and message.content:
        items.insert(0, {"role": message.role, "content": message.content})
    items.extend(_function_call_item(call) for call in wanted.values())
    return items


def _new_items(message: ChatMessage) -> list[Any]:
    if message.role == "tool":
        return [
            {
                "type": "function_call_output",
                "call_id": message.tool_call_id or "",
                "output": message.content or "",
            }
        ]
    items: list[Any] = []
    if message.content is not None or not message.tool_calls:
        items.append({"role": message.role, "content": message.content or ""})
    items.extend(_function_call_item(call) for call in message.tool_calls)
    return items


def _function_call_item(call: ToolCall) -> dict[str, Any]:
    return {
        "type": "function_call",
        "call_id": call.id,
        "name": call.name,
        "arguments": _call_arguments_text(call),
    }


def user_text(source: str | list[Any]) -> str:
    """The user message a run starts with: the string input, or the text of the last user
    message among the input items."""
    if isinstance(source, str):
        return source
    for item in reversed(source):
        if _is_message(item) and _get(item, "role") == "user":
            return content_text(_get(item, "content")) or ""
    return ""


def replace_user_text(source: str | list[Any], old: str, new: str) -> str | list[Any]:
    """``source`` with the user message ``old`` (the last one carrying it) saying ``new``."""
    if isinstance(source, str):
        return new if source == old else source
    items = list(source)
    for index in range(len(items) - 1, -1, -1):
        item = items[index]
        if (
            _is_message(item)
            and _get(item, "role") == "user"
            and content_text(_get(item, "content")) == old
        ):
            content = _with_text(_get(item, "content"), new, "input_text")
            items[index] = _replace(item, content=content)
            return items
    return source


# --- the request ---------------------------------------------------------------------------


def tool_schema(tool: Tool | Handoff[Any, Any]) -> dict[str, Any] | None:
    """A function tool or a handoff as the OpenAI-style schema hooks see; ``None`` for a
    hosted tool (web search, code interpreter, ...), which requests keep as it is."""
    if isinstance(tool, FunctionTool):
        name, description, parameters = tool.name, tool.description, tool.params_json_schema
    elif isinstance(tool, Handoff):
        name, description = tool.tool_name, tool.tool_description
        parameters = tool.input_json_schema
    else:
        return None
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": parameters},
    }


def _tool_name(tool: Tool | Handoff[Any, Any]) -> str | None:
    schema = tool_schema(tool)
    return None if schema is None else str(schema["function"]["name"])


@dataclass(slots=True)
class ModelInput:
    """One model call of the SDK, as it was asked for."""

    system: str | None
    input: str | list[Any]
    settings: ModelSettings
    tools: list[Tool]
    handoffs: list[Handoff[Any, Any]]


@dataclass(slots=True)
class SentRequest:
    """The request hooks see, and what it was made from."""

    request: ProviderRequest
    transcript: Transcript
    call: ModelInput


def to_request(call: ModelInput, model: str) -> SentRequest:
    """The SDK's model call as a ``ProviderRequest``."""
    transcript = read_input(call.input)
    schemas = [s for s in map(tool_schema, [*call.tools, *call.handoffs]) if s is not None]
    settings = call.settings
    choice = settings.tool_choice
    reasoning = settings.reasoning
    request = ProviderRequest(
        model=model,
        system=call.system,
        messages=transcript.messages,
        tools=schemas,
        tool_choice=choice if isinstance(choice, str) or choice is None else str(choice),
        temperature=settings.temperature,
        reasoning_effort=reasoning.effort if reasoning is not None else None,
    )
    return SentRequest(request, transcript, call)


def from_request(sent: SentRequest, request: ProviderRequest) -> ModelInput:
    """The SDK's model call for ``request`` as a handler left it (only what changed)."""
    call = sent.call
    if request is sent.request:
        return call
    before = sent.request
    items = call.input
    if request.messages is not before.messages:
        items = write_input(sent.transcript, request.messages)
    tools, handoffs = call.tools, call.handoffs
    if request.tools != before.tools:
        names = {str(t.get("function", {}).get("name", t.get("name", ""))) for t in request.tools}
        tools = [t for t in tools if _tool_name(t) is None or _tool_name(t) in names]
        handoffs = [h for h in handoffs if h.tool_name in names]
    settings = call.settings
    changes: dict[str, Any] = {}
    if request.temperature != before.temperature:
        changes["temperature"] = request.temperature
    if request.tool_choice != before.tool_choice:
        changes["tool_choice"] = request.tool_choice
    if request.reasoning_effort != before.reasoning_effort:
        from openai.types.shared import Reasoning

        base = settings.reasoning or Reasoning()
        changes["reasoning"] = base.model_copy(update={"effort": request.reasoning_effort})
    if changes:
        settings = dataclasses.replace(settings, **changes)
    return ModelInput(request.system, items, settings, tools, handoffs)


# --- the response --------------------------------------------------------------------------


def to_response(response: ModelResponse) -> ProviderResponse:
    """The SDK's ``ModelResponse`` as a ``ProviderResponse`` (``raw`` keeps the original)."""
    texts: list[str] = []
    calls: list[ToolCall] = []
    for item in response.output:
        kind = _get(item, "type")
        if kind == "message":
            text = content_text(_get(item, "content"))
            if text:
                texts.append(text)
        elif kind == "function_call":
            calls.append(to_tool_call(item))
    return ProviderResponse(
        content="".join(texts) if texts else None,
        tool_calls=calls,
        finish_reason="tool_calls" if calls else "stop",
        usage=to_usage(response.usage),
        raw=response,
    )


def has_tool_work(response: ModelResponse) -> bool:
    """Whether the SDK will act on more than text: a function call, a hosted or local tool
    call, a handoff. A response without any is the agent's answer."""
    return any(_get(item, "type") not in ("message", "reasoning") for item in response.output)


def from_response(response: ProviderResponse, original: ProviderResponse | None) -> ModelResponse:
    """``response`` (as hooks left it) as the SDK's ``ModelResponse``: the original response
    when nothing changed, else its items changed only where the hooks changed them."""
    raw = response.raw if isinstance(response.raw, ModelResponse) else None
    if raw is not None and original is not None and response is original:
        return raw
    base = raw if raw is not None else (original.raw if original is not None else None)
    base_output: list[Any] = list(base.output) if isinstance(base, ModelResponse) else []
    before = to_response(base) if isinstance(base, ModelResponse) else ProviderResponse()
    if response.content == before.content and response.tool_calls == before.tool_calls:
        output = base_output
    else:
        output = _rewrite_output(base_output, before, response)
    if isinstance(base, ModelResponse) and response.usage == before.usage:
        usage = base.usage
    else:
        usage = from_usage(response.usage, requests=1 if isinstance(base, ModelResponse) else 0)
    return ModelResponse(
        output=output,
        usage=usage,
        response_id=base.response_id if isinstance(base, ModelResponse) else None,
        request_id=base.request_id if isinstance(base, ModelResponse) else None,
    )


def _rewrite_output(
    output: list[Any], before: ProviderResponse, response: ProviderResponse
) -> list[Any]:
    rewritten: list[Any] = []
    text_changed = response.content != before.content
    placed = not text_changed
    wanted = {c.id: c for c in response.tool_calls}
    old_calls = {c.id: c for c in before.tool_calls}
    for item in output:
        kind = _get(item, "type")
        if kind == "message" and text_changed:
            content = _get(item, "content")
            if placed:  # the text went into the first message
                content = _with_text(content, None, "output_text")
            else:
                placed = True
                content = _with_text(content, response.content, "output_text")
            if content:
                rewritten.append(_replace(item, content=content))
        elif kind == "function_call":
            call_id = _get(item, "call_id")
            new = wanted.pop(call_id, None)
            if new is None:
                continue
            if new != old_calls.get(call_id):
                item = _replace(item, name=new.name, arguments=_call_arguments_text(new))
            rewritten.append(item)
        else:
            rewritten.append(item)
    if not placed and response.content:
        rewritten.insert(0, assistant_item(response.content))
    rewritten.extend(
        ResponseFunctionToolCall(
            type="function_call",
            id=call.id,
            call_id=call.id,
            name=call.name,
            arguments=_call_arguments_text(call),
        )
        for call in wanted.values()
    )
    return rewritten


def assistant_item(text: str) -> ResponseOutputMessage:
    """An assistant message output item carrying ``text``."""
    return ResponseOutputMessage(
        id="msg_agenthooks",
        type="message",
        role="assistant",
        status="completed",
        content=[ResponseOutputText(type="output_text", text=text, annotations=[])],
    )


def text_response(text: str) -> ModelResponse:
    """A model response that only says ``text`` (a denied call's reason)."""
    return ModelResponse(output=[assistant_item(text)], usage=SDKUsage(), response_id=None)


__all__ = [
    "ModelInput",
    "SentRequest",
    "Transcript",
    "assistant_item",
    "content_text",
    "dump_arguments",
    "from_request",
    "from_response",
    "from_usage",
    "has_tool_work",
    "parse_arguments",
    "read_input",
    "replace_user_text",
    "text_response",
    "to_request",
    "to_response",
    "to_tool_call",
    "to_usage",
    "tool_schema",
    "user_text",
    "write_input",
]
