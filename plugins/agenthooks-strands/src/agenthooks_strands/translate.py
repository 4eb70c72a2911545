"""Strands values <-> agenthooks values, both ways.

Strands speaks Bedrock's shapes: a message is a role and a list of content blocks (``text``,
``toolUse``, ``toolResult``, ``reasoningContent``, ``image``, ``document``, ``cachePoint``, ...).
agenthooks speaks ``ChatMessage`` (one role, one text, tool calls, thinking blocks). Going to
agenthooks, the blocks our types can say are read; going back, every message is rebuilt from the
Strands message it came from, so what our types cannot say (images, documents, cache points,
citations, signatures, metadata) passes through untouched, a rewrite changes only what the
handler changed, and a round trip with no change returns the very same objects.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from agenthooks import ChatMessage, ProviderRequest, ProviderResponse, ToolCall, Usage
from agenthooks.messages import ThinkingBlock

StrandsMessage = dict[str, Any]
"""A Strands ``Message`` (``{"role": ..., "content": [blocks]}``), as plain data."""

Readable = Mapping[str, Any]
"""A Strands value being read (a ``Message``, ``ToolSpec``, ``ToolResult``, ``Usage``)."""

Block = dict[str, Any]

_FINISH_FROM_STOP = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "content_filtered": "content_filter",
    "guardrail_intervened": "content_filter",
}
_STOP_FROM_FINISH = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "length": "max_tokens",
    "content_filter": "content_filtered",
}
_STRANDS_STOP_REASONS = frozenset(
    {
        "cancelled",
        "content_filtered",
        "end_turn",
        "guardrail_intervened",
        "interrupt",
        "max_tokens",
        "stop_sequence",
        "tool_use",
        "model_context_window_exceeded",
    }
)


# --- blocks -------------------------------------------------------------------------------


def _texts(blocks: Sequence[Readable]) -> str | None:
    parts = [b["text"] for b in blocks if "text" in b and isinstance(b["text"], str)]
    return "".join(parts) if parts else None


def message_text(message: Readable) -> str | None:
    """The text of a Strands message: its text blocks joined, ``None`` when it has none."""
    return _texts(message.get("content", []))


def tool_result_text(result: Readable) -> str:
    """What a model reads of a Strands ``ToolResult``: its text and JSON parts, in order."""
    parts: list[str] = []
    for block in result.get("content", []):
        if "text" in block:
            parts.append(str(block["text"]))
        elif "json" in block:
            parts.append(json.dumps(block["json"], ensure_ascii=False))
    return "".join(parts)


def _thinking(block: Readable) -> ThinkingBlock | None:
    reasoning = block.get("reasoningContent")
    if not isinstance(reasoning, dict):
        return None
    if "reasoningText" in reasoning:
        text = reasoning["reasoningText"]
        return ThinkingBlock(
            type="thinking", thinking=text.get("text", ""), signature=text.get("signature") or ""
        )
    if "redactedContent" in reasoning:
        data = reasoning["redactedContent"]
        raw = data.decode("latin-1") if isinstance(data, bytes | bytearray) else str(data)
        return ThinkingBlock(type="redacted_thinking", data=raw)
    return None


def _reasoning_block(block: ThinkingBlock) -> Block:
    if block.type == "redacted_thinking":
        return {"reasoningContent": {"redactedContent": block.data.encode("latin-1")}}
    text: dict[str, Any] = {"text": block.thinking}
    if block.signature:
        text["signature"] = block.signature
    return {"reasoningContent": {"reasoningText": text}}


# --- messages: Strands -> agenthooks ------------------------------------------------------


@dataclass(frozen=True)
class Translated:
    """A transcript read into agenthooks messages, with where each one came from.

    Attributes:
        messages: The agenthooks messages, in order.
        origins: Per message, the index of the Strands message it was read from.
        source: The Strands messages, as given (never copied or changed).
    """

    messages: list[ChatMessage]
    origins: list[int]
    source: Sequence[Readable]


Known = dict[str, tuple[Readable, list[ChatMessage]]]
"""Messages read before, by Strands tracking id: the message as read and what it read as."""


def to_chat_messages(messages: Sequence[Readable], known: Known | None = None) -> Translated:
    """Read a Strands transcript: a user message's ``toolResult`` blocks become one ``tool``
    message each (then its text, if any, one ``user`` message); an assistant message becomes one
    ``assistant`` message with its text, tool calls and thinking blocks.

    ``known`` spares reading a message again: one equal to the message read before under its
    tracking id reads as it did (a model call's transcript is the last one and a few more);
    it is updated with what was read. Give it only messages nobody changes afterwards (the
    copies Strands makes for each model call).
    """
    out: list[ChatMessage] = []
    origins: list[int] = []
    for index, message in enumerate(messages):
        chats: list[ChatMessage] | None = None
        tracking = message.get("tracking_id") if known is not None else None
        if tracking is not None and known is not None:
            seen = known.get(tracking)
            if seen is not None and seen[0] == message:
                chats = seen[1]
            else:
                chats = message_to_chat(message)
                known[tracking] = (message, chats)
        for chat in chats if chats is not None else message_to_chat(message):
            out.append(chat)
            origins.append(index)
    return Translated(out, origins, messages)


def message_to_chat(message: Readable) -> list[ChatMessage]:
    """One Strands message as the agenthooks messages it holds (see ``to_chat_messages``)."""
    blocks: list[Block] = list(message.get("content", []))
    if message.get("role") == "assistant":
        calls = [
            ToolCall(
                id=str(b["toolUse"]["toolUseId"]),
                name=str(b["toolUse"]["name"]),
                arguments=_arguments(b["toolUse"].get("input")),
            )
            for b in blocks
            if "toolUse" in b
        ]
        thinking = [t for t in (_thinking(b) for b in blocks) if t is not None]
        return [
            ChatMessage(
                role="assistant",
                content=_texts(blocks),
                tool_calls=calls,
                thinking_blocks=thinking,
            )
        ]
    out: list[ChatMessage] = []
    for block in blocks:
        if "toolResult" in block:
            result = block["toolResult"]
            out.append(
                ChatMessage(
                    role="tool",
                    content=tool_result_text(result),
                    tool_call_id=str(result.get("toolUseId")),
                    is_error=result.get("status") == "error",
                )
            )
    rest = [b for b in blocks if "toolResult" not in b]
    if rest or not out:
        out.append(ChatMessage(role="user", content=_texts(rest)))
    return out


def _arguments(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str) and raw:
        try:
            parsed = json.loads(raw)
        except ValueError:
            return {}
        return parsed if isinstance(parsed, dict) else {}
    return {}


# --- messages: agenthooks -> Strands ------------------------------------------------------


def from_chat_messages(new: Sequence[ChatMessage], old: Translated) -> list[StrandsMessage]:
    """Write agenthooks messages back as a Strands transcript.

    A Strands message whose agenthooks messages all came back unchanged and together is
    returned as the same object; a changed one is rebuilt from the Strands message it came
    from (its template), keeping every block our types cannot say; a new one is built afresh.
    Tool messages next to each other become one user message of ``toolResult`` blocks, as
    Strands keeps them.
    """
    if list(new) == old.messages:
        return cast("list[StrandsMessage]", list(old.source))
    # match each new message to the old one it keeps (equal, in order) or replaces
    groups: list[tuple[int | None, bool, list[ChatMessage]]] = []
    cursor = 0
    for message in new:
        found = _find(old.messages, message, cursor)
        if found is not None:
            origin: int | None = old.origins[found]
            unchanged = True
            cursor = found + 1
        else:
            origin = None
            if cursor < len(old.messages) and _kind(old.messages[cursor]) == _kind(message):
                origin = old.origins[cursor]
                cursor += 1
            unchanged = False
        last = groups[-1] if groups else None
        if last is not None and origin is not None and last[0] == origin:
            groups[-1] = (origin, last[1] and unchanged, [*last[2], message])
        else:
            groups.append((origin, unchanged, [message]))
    out: list[StrandsMessage] = []
    for origin, unchanged, chats in groups:
        if origin is not None:
            template = old.source[origin]
            whole = [m for m, o in zip(old.messages, old.origins, strict=True) if o == origin]
            if unchanged and chats == whole:
                out.append(cast("StrandsMessage", template))
                continue
            out.append(_build(chats, template))
            continue
        built = _build(chats, None)
        if out and _only_tool_results(out[-1]) and _only_tool_results(built):
            out[-1] = {**out[-1], "content": [*out[-1]["content"], *built["content"]]}
        else:
            out.append(built)
    return out


def _find(old: list[ChatMessage], message: ChatMessage, start: int) -> int | None:
    for index in range(start, len(old)):
        if old[index] is message or old[index] == message:
            return index
    return None


def _kind(message: ChatMessage) -> str:
    return "user" if message.role in ("user", "tool", "system") else "assistant"


def _only_tool_results(message: StrandsMessage) -> bool:
    content = message.get("content", [])
    return (
        message.get("role") == "user" and bool(content) and all("toolResult" in b for b in content)
    )


def _build(chats: Sequence[ChatMessage], template: Readable | None) -> StrandsMessage:
    blocks: list[Block] = list(template.get("content", [])) if template is not None else []
    base: StrandsMessage = (
        {k: v for k, v in template.items() if k != "content"} if template is not None else {}
    )
    role = "assistant" if chats and chats[0].role == "assistant" else "user"
    base["role"] = role
    if role == "assistant":
        base["content"] = _assistant_blocks(chats[0], blocks)
        return base
    results = [c for c in chats if c.role == "tool"]
    texts = [c for c in chats if c.role != "tool"]
    by_id = {str(b["toolResult"].get("toolUseId")): b for b in blocks if "toolResult" in b}
    content: list[Block] = [_tool_result_block(c, by_id.get(c.tool_call_id or "")) for c in results]
    rest = [b for b in blocks if "toolResult" not in b]
    if texts:
        text = "".join(c.content or "" for c in texts) if any(c.content for c in texts) else None
        content.extend(_replace_text(rest, text))
    elif not results:
        content.extend(rest)
    base["content"] = content
    return base


def _replace_text(blocks: list[Block], text: str | None) -> list[Block]:
    """``blocks`` with their text set to ``text``: the first text block carries it, the other
    text blocks go, every other block stays where it was."""
    if _texts(blocks) == text:
        return list(blocks)
    out: list[Block] = []
    placed = False
    for block in blocks:
        if "text" in block:
            if not placed and text is not None:
                out.append({"text": text})
            placed = True
            continue
        out.append(block)
    if not placed and text is not None:
        out.insert(_text_position(out), {"text": text})
    return out


def _text_position(blocks: list[Block]) -> int:
    # text goes after leading reasoning blocks and before tool uses, where models put it
    for index, block in enumerate(blocks):
        if "reasoningContent" not in block:
            return index
    return len(blocks)


def _tool_result_block(chat: ChatMessage, template: Readable | None) -> Block:
    status = "error" if chat.is_error else "success"
    if template is not None:
        result = dict(template["toolResult"])
        if tool_result_text(result) != (chat.content or ""):
            kept = [b for b in result.get("content", []) if "text" not in b and "json" not in b]
            result["content"] = [{"text": chat.content or ""}, *kept]
        result["status"] = status
        if result == template["toolResult"]:
            return dict(template)
        return {**template, "toolResult": result}
    return {
        "toolResult": {
            "toolUseId": chat.tool_call_id or "",
            "status": status,
            "content": [{"text": chat.content or ""}],
        }
    }


def _assistant_blocks(chat: ChatMessage, blocks: list[Block]) -> list[Block]:
    old = message_to_chat({"role": "assistant", "content": blocks})[0]
    out = _replace_text(blocks, chat.content)
    if chat.thinking_blocks != old.thinking_blocks:
        out = [b for b in out if "reasoningContent" not in b]
        out[0:0] = [_reasoning_block(t) for t in chat.thinking_blocks]
    if chat.tool_calls != old.tool_calls:
        uses = {str(b["toolUse"]["toolUseId"]): b for b in out if "toolUse" in b}
        out = [b for b in out if "toolUse" not in b]
        for call in chat.tool_calls:
            block = uses.get(call.id)
            if (
                block is not None
                and block["toolUse"]["name"] == call.name
                and _arguments(block["toolUse"].get("input")) == call.arguments
            ):
                out.append(block)
                continue
            use = dict(block["toolUse"]) if block is not None else {}
            use.update({"toolUseId": call.id, "name": call.name, "input": dict(call.arguments)})
            out.append({"toolUse": use})
    return out


# --- system prompt, tools, usage ----------------------------------------------------------


def system_text(system_prompt: Any) -> str | None:
    """The instructions as one text (a list of system blocks: their text blocks joined)."""
    if system_prompt is None or isinstance(system_prompt, str):
        return system_prompt
    parts = [b["text"] for b in system_prompt if "text" in b]
    return "\n".join(parts) if parts else None


def system_back(text: str | None, original: Any) -> Any:
    """The system prompt to send for ``text``: ``original`` itself when the text is unchanged;
    for a list of blocks, the text blocks replaced and the cache points kept."""
    if text == system_text(original):
        return original
    if isinstance(original, list):
        kept = [b for b in original if "text" not in b]
        return ([{"text": text}] if text is not None else []) + kept
    return text


def tool_schemas(tool_specs: Sequence[Readable]) -> list[dict[str, Any]]:
    """Strands tool specs as the OpenAI-style function schemas a ``ProviderRequest`` carries."""
    return [
        {
            "type": "function",
            "function": {
                "name": spec["name"],
                "description": spec.get("description", ""),
                "parameters": spec.get("inputSchema", {}).get("json", {}),
            },
        }
        for spec in tool_specs
    ]


def tool_specs_back(
    schemas: Sequence[Readable], original: Sequence[Readable]
) -> list[dict[str, Any]]:
    """Function schemas back as Strands tool specs, the original spec wherever it is unchanged."""
    by_name = {spec["name"]: spec for spec in original}
    mine = dict(zip((s["name"] for s in original), tool_schemas(original), strict=True))
    out: list[dict[str, Any]] = []
    for schema in schemas:
        function = schema.get("function", schema)
        name = function["name"]
        if name in by_name and mine[name] == schema:
            out.append(cast("dict[str, Any]", by_name[name]))
            continue
        spec = dict(by_name.get(name, {}))
        spec.update(
            {
                "name": name,
                "description": function.get("description", ""),
                "inputSchema": {"json": function.get("parameters", {})},
            }
        )
        out.append(spec)
    return out


def to_usage(usage: Readable | None) -> Usage:
    """A Strands ``Usage`` as ours."""
    if not usage:
        return Usage()
    return Usage(
        input_tokens=int(usage.get("inputTokens", 0)),
        output_tokens=int(usage.get("outputTokens", 0)),
        total_tokens=int(usage.get("totalTokens", 0)),
        cache_read_tokens=int(usage.get("cacheReadInputTokens", 0)),
        cache_write_tokens=int(usage.get("cacheWriteInputTokens", 0)),
    )


def usage_back(usage: Usage) -> dict[str, Any]:
    """Our ``Usage`` as a Strands ``Usage``."""
    out: dict[str, Any] = {
        "inputTokens": usage.input_tokens,
        "outputTokens": usage.output_tokens,
        "totalTokens": usage.total_tokens,
    }
    if usage.cache_read_tokens:
        out["cacheReadInputTokens"] = usage.cache_read_tokens
    if usage.cache_write_tokens:
        out["cacheWriteInputTokens"] = usage.cache_write_tokens
    return out


# --- requests and responses ---------------------------------------------------------------


@dataclass(frozen=True)
class RequestView:
    """A model call's input read as a ``ProviderRequest``, with what it was read from."""

    request: ProviderRequest
    transcript: Translated
    system_prompt: Any
    tool_specs: list[Readable]


def to_request(
    messages: Sequence[Readable],
    system_prompt: Any,
    tool_specs: Sequence[Readable],
    tool_choice: Any,
    model_id: str,
    known: Known | None = None,
) -> RequestView:
    """A Strands model call's input as a ``ProviderRequest`` (``known``: see
    ``to_chat_messages``)."""
    transcript = to_chat_messages(messages, known)
    request = ProviderRequest(
        model=model_id,
        system=system_text(system_prompt),
        messages=transcript.messages,
        tools=tool_schemas(tool_specs),
        tool_choice=_choice(tool_choice),
    )
    return RequestView(request, transcript, system_prompt, list(tool_specs))


def _choice(tool_choice: Any) -> str | dict[str, Any] | None:
    if not tool_choice:
        return None
    if "auto" in tool_choice:
        return "auto"
    if "any" in tool_choice:
        return "required"
    if "tool" in tool_choice:
        return {"type": "function", "function": {"name": tool_choice["tool"]["name"]}}
    return None


def to_response(
    stop_reason: str, message: Readable, usage: Readable | None, chat: ChatMessage | None = None
) -> ProviderResponse:
    """A finished Strands model call (its stop reason, message and usage) as a
    ``ProviderResponse``; ``chat``: the message as already read, if it was."""
    if chat is None:
        chat = message_to_chat(message)[0]
    return ProviderResponse(
        content=chat.content,
        tool_calls=chat.tool_calls,
        thinking_blocks=chat.thinking_blocks,
        finish_reason=_FINISH_FROM_STOP.get(stop_reason, stop_reason),
        usage=to_usage(usage),
    )


def response_back(
    response: ProviderResponse, template: Readable | None
) -> tuple[str, StrandsMessage]:
    """A ``ProviderResponse`` as the stop reason and assistant message Strands acts on, built
    from ``template`` (the model's own message, when the model ran) so blocks our types cannot
    say stay."""
    chat = ChatMessage(
        role="assistant",
        content=response.content,
        tool_calls=response.tool_calls,
        thinking_blocks=response.thinking_blocks,
    )
    message = _build([chat], template or {"role": "assistant", "content": []})
    if response.tool_calls:
        stop = "tool_use"
    else:
        stop = _STOP_FROM_FINISH.get(response.finish_reason, response.finish_reason)
        if stop not in _STRANDS_STOP_REASONS or stop == "tool_use":
            stop = "end_turn"
    return stop, message


__all__ = [
    "Known",
    "RequestView",
    "StrandsMessage",
    "Translated",
    "from_chat_messages",
    "message_text",
    "message_to_chat",
    "response_back",
    "system_back",
    "system_text",
    "to_chat_messages",
    "to_request",
    "to_response",
    "to_usage",
    "tool_result_text",
    "tool_schemas",
    "tool_specs_back",
    "usage_back",
]
