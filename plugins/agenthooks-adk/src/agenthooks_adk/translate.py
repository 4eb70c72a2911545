"""ADK's model requests and responses read as agenthooks' types, and a handler's rewrite
written back.

ADK speaks google-genai: an ``LlmRequest`` holds ``Content`` turns made of ``Part`` objects
(text, function calls and responses, thoughts, inline data, files, executable code ...);
hooks see ``ProviderRequest`` / ``ProviderResponse`` / ``ChatMessage`` / ``ToolCall`` /
``Usage``. Reading keeps, for every message, the parts it came from; writing back patches
those parts: a message a handler left alone keeps its very ``Content`` object, a changed one
keeps every part our types cannot express (images, files, code, thought signatures) and
only what the handler changed is replaced. A round trip with no handler is the identity.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types

from agenthooks.messages import (
    ChatMessage,
    ProviderRequest,
    ProviderResponse,
    ThinkingBlock,
    ToolCall,
    Usage,
)

_FINISH_REASONS = {
    types.FinishReason.STOP: "stop",
    types.FinishReason.MAX_TOKENS: "length",
    types.FinishReason.SAFETY: "content_filter",
    types.FinishReason.PROHIBITED_CONTENT: "content_filter",
    types.FinishReason.BLOCKLIST: "content_filter",
    types.FinishReason.SPII: "content_filter",
}


# --- values ---------------------------------------------------------------------------------


def result_text(value: Any) -> str:
    """A tool's value as the text a model reads (a string as it is, anything else as JSON)."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def function_response_text(response: dict[str, Any] | None) -> tuple[str, bool]:
    """A ``FunctionResponse.response`` as a tool message's text, and whether it is an error.

    ADK wraps a tool's plain value as ``{"result": value}`` and reports failures as
    ``{"error": text}``; both read as the value alone, as on our runtime."""
    response = response or {}
    if len(response) == 1:
        if "result" in response:
            return result_text(response["result"]), False
        if "error" in response:
            return result_text(response["error"]), True
    return result_text(response), False


def tool_response(value: Any) -> dict[str, Any]:
    """A result as ADK's function response dict (``{"result": value}`` unless a dict)."""
    return value if isinstance(value, dict) else {"result": value}


def usage_of(metadata: types.GenerateContentResponseUsageMetadata | None) -> Usage:
    """ADK's (Gemini's) token counts as ``Usage``."""
    if metadata is None:
        return Usage()
    prompt = metadata.prompt_token_count or 0
    output = (metadata.candidates_token_count or 0) + (metadata.thoughts_token_count or 0)
    return Usage(
        input_tokens=prompt,
        output_tokens=output,
        total_tokens=metadata.total_token_count or prompt + output,
        cache_read_tokens=metadata.cached_content_token_count or 0,
    )


def usage_metadata(usage: Usage) -> types.GenerateContentResponseUsageMetadata | None:
    """``Usage`` as ADK's token counts (``None`` for an empty one)."""
    if usage == Usage():
        return None
    return types.GenerateContentResponseUsageMetadata(
        prompt_token_count=usage.input_tokens,
        candidates_token_count=usage.output_tokens,
        total_token_count=usage.total_tokens,
        cached_content_token_count=usage.cache_read_tokens or None,
    )


def text_of(content: types.Content | None) -> str | None:
    """The visible text of a turn (thoughts excluded), or ``None`` when it has none."""
    if content is None or not content.parts:
        return None
    texts = [p.text for p in content.parts if p.text is not None and not p.thought]
    return "".join(texts) if texts else None


# --- parts ----------------------------------------------------------------------------------


def _is_text(part: types.Part) -> bool:
    return part.text is not None and not part.thought


def _is_thought(part: types.Part) -> bool:
    return bool(part.thought) and part.text is not None


def _calls_of(parts: Iterable[types.Part]) -> list[ToolCall]:
    return [
        ToolCall(id=fc.id or "", name=fc.name or "", arguments=dict(fc.args or {}))
        for p in parts
        if (fc := p.function_call) is not None
    ]


def _thinking_of(parts: Iterable[types.Part]) -> list[ThinkingBlock]:
    return [
        ThinkingBlock(
            thinking=p.text or "",
            signature=base64.b64encode(p.thought_signature).decode() if p.thought_signature else "",
        )
        for p in parts
        if _is_thought(p)
    ]


def _join_text(parts: Iterable[types.Part]) -> str | None:
    texts = [p.text or "" for p in parts if _is_text(p)]
    return "".join(texts) if texts else None


def _call_part(call: ToolCall, like: types.Part | None) -> types.Part:
    fc = types.FunctionCall(id=call.id or None, name=call.name, args=dict(call.arguments))
    if like is not None:
        # the part's other fields (a thought signature) belong to the call, not to its
        # arguments: they stay
        return like.model_copy(update={"function_call": fc})
    return types.Part(function_call=fc)


def patch_parts(
    parts: Sequence[types.Part],
    *,
    text: str | None,
    text_changed: bool,
    calls: Sequence[ToolCall] | None = None,
    thinking: Sequence[ThinkingBlock] | None = None,
) -> list[types.Part]:
    """``parts`` with the visible text, the function calls and the thoughts replaced where
    they changed; every other part (media, files, code, signatures) stays where it was."""
    out: list[types.Part] = []
    text_written = False
    by_id = {p.function_call.id: p for p in parts if p.function_call is not None}
    old_calls = _calls_of(parts)
    calls_changed = calls is not None and list(calls) != old_calls
    calls_written = False
    thinking_changed = thinking is not None and list(thinking) != _thinking_of(parts)
    for part in parts:
        if _is_text(part) and text_changed:
            if not text_written and text:
                out.append(part.model_copy(update={"text": text}))
            text_written = True
        elif part.function_call is not None and calls_changed:
            if not calls_written:
                out.extend(_call_part(c, by_id.get(c.id)) for c in calls or ())
            calls_written = True
        elif _is_thought(part) and thinking_changed:
            continue
        else:
            out.append(part)
    if thinking_changed:
        thoughts = [types.Part(text=b.thinking, thought=True) for b in thinking or ()]
        out[:0] = thoughts
    if text_changed and not text_written and text:
        # after the thoughts and any media, before the calls (the order a model writes)
        at = next((i for i, p in enumerate(out) if p.function_call is not None), len(out))
        out.insert(at, types.Part(text=text))
    if calls_changed and not calls_written:
        out.extend(_call_part(c, None) for c in calls or ())
    return out


# --- requests -------------------------------------------------------------------------------


@dataclass
class _Segment:
    """Where one message came from: a turn and the parts of it that make the message."""

    content: types.Content
    parts: list[types.Part]


@dataclass
class RequestView:
    """An ``LlmRequest`` read as a ``ProviderRequest``, with where each message came from."""

    request: ProviderRequest
    segments: list[_Segment]


def _system_text(instruction: Any) -> str | None:
    if instruction is None:
        return None
    if isinstance(instruction, str):
        return instruction
    if isinstance(instruction, types.Content):
        return _join_text(instruction.parts or ())
    if isinstance(instruction, types.Part):
        return instruction.text
    if isinstance(instruction, list):
        return "".join(_system_text(item) or "" for item in instruction)
    return str(instruction)


def _tool_specs(config: types.GenerateContentConfig) -> list[dict[str, Any]]:
    specs: list[dict[str, Any]] = []
    for tool in config.tools or ():
        if not isinstance(tool, types.Tool):
            continue
        for fd in tool.function_declarations or ():
            specs.append(function_spec(fd))
    return specs


def function_spec(fd: types.FunctionDeclaration) -> dict[str, Any]:
    if fd.parameters_json_schema is not None:
        parameters = dict(fd.parameters_json_schema)
    elif fd.parameters is not None:
        parameters = fd.parameters.json_schema.model_dump(mode="json", exclude_none=True)
    else:
        parameters = {"type": "object", "properties": {}}
    return {
        "type": "function",
        "function": {
            "name": fd.name or "",
            "description": fd.description or "",
            "parameters": parameters,
        },
    }


def _messages_of(content: types.Content) -> list[tuple[ChatMessage, _Segment]]:
    parts = list(content.parts or ())
    if content.role == "model":
        message = ChatMessage(
            role="assistant",
            content=_join_text(parts),
            tool_calls=_calls_of(parts),
            thinking_blocks=_thinking_of(parts),
        )
        return [(message, _Segment(content, parts))]
    out: list[tuple[ChatMessage, _Segment]] = []
    pending: list[types.Part] = []

    def flush() -> None:
        if pending:
            message = ChatMessage(role="user", content=_join_text(pending))
            out.append((message, _Segment(content, list(pending))))
            pending.clear()

    for part in parts:
        fr = part.function_response
        if fr is None:
            pending.append(part)
            continue
        flush()
        text, is_error = function_response_text(fr.response)
        message = ChatMessage(
            role="tool", content=text, tool_call_id=fr.id, name=fr.name, is_error=is_error
        )
        out.append((message, _Segment(content, [part])))
    flush()
    return out


def read_request(llm_request: LlmRequest) -> RequestView:
    """``llm_request`` as the ``ProviderRequest`` hooks see, keeping where each message came
    from so that a rewrite can be written back (``write_request``)."""
    config = llm_request.config
    messages: list[ChatMessage] = []
    segments: list[_Segment] = []
    for content in llm_request.contents:
        for message, segment in _messages_of(content):
            messages.append(message)
            segments.append(segment)
    request = ProviderRequest(
        model=llm_request.model or "",
        system=_system_text(config.system_instruction) if config else None,
        messages=messages,
        tools=_tool_specs(config) if config else [],
        temperature=config.temperature if config else None,
    )
    return RequestView(request, segments)


def _fresh_parts(message: ChatMessage) -> list[types.Part]:
    if message.role == "tool":
        key = "error" if message.is_error else "result"
        fr = types.FunctionResponse(
            id=message.tool_call_id, name=message.name or "", response={key: message.content}
        )
        return [types.Part(function_response=fr)]
    return patch_parts(
        [],
        text=message.content,
        text_changed=True,
        calls=message.tool_calls,
        thinking=message.thinking_blocks,
    )


def _patched_parts(message: ChatMessage, was: ChatMessage, segment: _Segment) -> list[types.Part]:
    if message == was:
        return segment.parts
    if message.role == "tool":
        part = segment.parts[0]
        fr = part.function_response
        if fr is None:  # pragma: no cover - a tool message is read from a function response
            return _fresh_parts(message)
        key = "error" if message.is_error else "result"
        update = {
            "response": {key: message.content},
            "id": message.tool_call_id,
            "name": message.name or fr.name,
        }
        return [part.model_copy(update={"function_response": fr.model_copy(update=update)})]
    return patch_parts(
        segment.parts,
        text=message.content,
        text_changed=message.content != was.content,
        calls=message.tool_calls,
        thinking=message.thinking_blocks,
    )


def _role(message: ChatMessage) -> str:
    return "model" if message.role == "assistant" else "user"


def _contents(
    pieces: list[tuple[str, list[types.Part], types.Content | None, bool]],
) -> list[types.Content]:
    """Join the pieces into turns: pieces of one original turn back into it (the very object
    when all its parts are there, unchanged), adjacent function responses into one turn."""
    out: list[types.Content] = []
    groups: list[tuple[str, list[types.Part], types.Content | None, bool]] = []
    for role, parts, source, is_tool in pieces:
        if groups:
            last_role, last_parts, last_source, last_tool = groups[-1]
            same_source = source is not None and source is last_source
            both_tools = is_tool and last_tool and role == last_role
            if same_source or both_tools:
                joined = last_source if same_source else None
                groups[-1] = (role, last_parts + parts, joined, is_tool)
                continue
        groups.append((role, list(parts), source, is_tool))
    for role, parts, source, _ in groups:
        if source is not None and _same_parts(parts, source.parts or []):
            out.append(source)
        elif source is not None:
            out.append(source.model_copy(update={"parts": parts}))
        else:
            out.append(types.Content(role=role, parts=parts))
    return out


def _same_parts(a: Sequence[types.Part], b: Sequence[types.Part]) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


def _matches(new: list[ChatMessage], old: list[ChatMessage]) -> list[int | None]:
    """For each new message, the index of the original it stands for (``None``: new)."""
    if len(new) == len(old):
        return [i if m.role == o.role else None for i, (m, o) in enumerate(zip(new, old))]
    out: list[int | None] = []
    start = 0
    for message in new:
        found = next((i for i in range(start, len(old)) if old[i] == message), None)
        out.append(found)
        if found is not None:
            start = found + 1
    return out


def write_request(view: RequestView, new: ProviderRequest, llm_request: LlmRequest) -> None:
    """Write a handler's rewrite of ``view.request`` back into ``llm_request``, in place:
    only what changed is replaced."""
    old = view.request
    if new is old or new == old:
        return
    config = llm_request.config
    if new.system != old.system:
        config.system_instruction = new.system
    if new.model != old.model:
        llm_request.model = new.model or None
    if new.temperature != old.temperature:
        config.temperature = new.temperature
    if new.tools != old.tools:
        _write_tools(config, old.tools, new.tools)
    if new.messages != old.messages:
        pieces: list[tuple[str, list[types.Part], types.Content | None, bool]] = []
        for message, index in zip(new.messages, _matches(new.messages, old.messages)):
            is_tool = message.role == "tool"
            if index is None:
                pieces.append((_role(message), _fresh_parts(message), None, is_tool))
            else:
                segment = view.segments[index]
                parts = _patched_parts(message, old.messages[index], segment)
                pieces.append((segment.content.role or "user", parts, segment.content, is_tool))
        llm_request.contents = _contents(pieces)


def _write_tools(
    config: types.GenerateContentConfig,
    old: list[dict[str, Any]],
    new: list[dict[str, Any]],
) -> None:
    declarations: dict[str, types.FunctionDeclaration] = {}
    kept: list[Any] = []
    for tool in config.tools or ():
        if isinstance(tool, types.Tool) and tool.function_declarations:
            for fd in tool.function_declarations:
                declarations[fd.name or ""] = fd
            if any(value is not None for key, value in tool if key != "function_declarations"):
                kept.append(tool.model_copy(update={"function_declarations": None}))
        else:
            kept.append(tool)
    chosen: list[types.FunctionDeclaration] = []
    for spec in new:
        function = spec.get("function", spec)
        name = function.get("name", "")
        known = declarations.get(name)
        if known is not None and spec in old:
            chosen.append(known)
        else:
            chosen.append(
                types.FunctionDeclaration(
                    name=name,
                    description=function.get("description", ""),
                    parameters_json_schema=function.get("parameters"),
                )
            )
    tools: list[Any] = [types.Tool(function_declarations=chosen)] if chosen else []
    config.tools = tools + kept


# --- responses ------------------------------------------------------------------------------


def read_response(llm_response: LlmResponse) -> ProviderResponse:
    """``llm_response`` as the ``ProviderResponse`` hooks see (``raw`` is the response)."""
    parts = list(llm_response.content.parts or ()) if llm_response.content else []
    calls = _calls_of(parts)
    reason = llm_response.finish_reason
    if calls:
        finish = "tool_calls"
    elif reason is None:
        finish = "stop"
    else:
        finish = _FINISH_REASONS.get(reason, str(reason.value).lower())
    return ProviderResponse(
        content=_join_text(parts),
        tool_calls=calls,
        thinking_blocks=_thinking_of(parts),
        finish_reason=finish,
        usage=usage_of(llm_response.usage_metadata),
        raw=llm_response,
    )


def write_response(new: ProviderResponse, base: LlmResponse | None = None) -> LlmResponse:
    """``new`` as the ``LlmResponse`` ADK goes on with.

    ``base`` is the framework's own response it stands for (``None``: a short-circuit or a
    recovery); a response a handler built from an ``LlmResponse`` (``raw``) starts from that
    one. Only what differs from the starting response is replaced."""
    start = base if base is not None else new.raw if isinstance(new.raw, LlmResponse) else None
    if start is None:
        parts = patch_parts(
            [],
            text=new.content,
            text_changed=True,
            calls=new.tool_calls,
            thinking=new.thinking_blocks,
        )
        return LlmResponse(
            content=types.Content(role="model", parts=parts),
            usage_metadata=usage_metadata(new.usage),
        )
    was = read_response(start)
    if new.model_copy(update={"raw": None}) == was.model_copy(update={"raw": None}):
        return start
    old_parts = list(start.content.parts or ()) if start.content else []
    parts = patch_parts(
        old_parts,
        text=new.content,
        text_changed=new.content != was.content,
        calls=new.tool_calls,
        thinking=new.thinking_blocks,
    )
    update: dict[str, Any] = {
        "content": types.Content(role=start.content.role if start.content else "model", parts=parts)
    }
    if new.usage != was.usage:
        update["usage_metadata"] = usage_metadata(new.usage)
    return start.model_copy(update=update)


def answer_content(text: str) -> types.Content:
    """A model turn saying ``text`` (a denial's reason, a rewritten answer)."""
    return types.Content(role="model", parts=[types.Part(text=text)])


def patch_text(content: types.Content, text: str | None) -> types.Content:
    """``content`` with its visible text replaced, every other part kept."""
    if text == text_of(content):
        return content
    parts = patch_parts(list(content.parts or ()), text=text, text_changed=True)
    return content.model_copy(update={"parts": parts})


__all__ = [
    "RequestView",
    "answer_content",
    "function_response_text",
    "patch_parts",
    "patch_text",
    "read_request",
    "read_response",
    "result_text",
    "text_of",
    "tool_response",
    "usage_metadata",
    "usage_of",
    "write_request",
    "write_response",
]
