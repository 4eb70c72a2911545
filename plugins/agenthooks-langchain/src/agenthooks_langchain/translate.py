"""LangChain's messages, requests, responses, tool calls and usage as agenthooks' types, and
back.

The way in keeps every LangChain object it read from; the way back starts from those objects
and changes only what a handler changed, so a round trip with no handler gives back the very
objects that went in, and what our types cannot express (images, files, provider blocks,
``additional_kwargs``, ids) stays where it was.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.messages import ToolCall as LCToolCall
from langchain_core.messages.tool import tool_call
from langchain_core.utils.function_calling import convert_to_openai_tool

from agenthooks.messages import ChatMessage, ProviderRequest, ProviderResponse, ToolCall, Usage

_ROLES: dict[str, str] = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool"}


# --- pieces ---------------------------------------------------------------------------------


def text_of(message: BaseMessage) -> str:
    """The text of a message: its string content, or its text blocks joined."""
    content = message.content
    return content if isinstance(content, str) else str(message.text)


def with_text(message: BaseMessage, text: str | None) -> BaseMessage:
    """``message`` with its text replaced by ``text``: string content is replaced; in block
    content the text blocks give way to one text block where the first was, every other block
    (an image, a file, a provider's part) stays where it was."""
    content = message.content
    if isinstance(content, str) or not content:
        return message.model_copy(update={"content": text or ""})
    blocks: list[Any] = []
    placed = False
    for block in content:
        is_text = isinstance(block, str) or (
            isinstance(block, dict) and block.get("type") == "text"
        )
        if not is_text:
            blocks.append(block)
        elif not placed:
            placed = True
            if text:
                blocks.append({"type": "text", "text": text})
    if not placed and text:
        blocks.append({"type": "text", "text": text})
    return message.model_copy(update={"content": blocks})


def tool_call_in(call: LCToolCall) -> ToolCall:
    """A LangChain tool call as ours (its id, name and arguments)."""
    return ToolCall(id=call.get("id") or "", name=call["name"], arguments=dict(call["args"]))


def tool_call_out(call: ToolCall) -> LCToolCall:
    """Our tool call as LangChain's."""
    return tool_call(name=call.name, args=dict(call.arguments), id=call.id or None)


def usage_in(message: BaseMessage) -> Usage:
    """An AI message's ``usage_metadata`` as our ``Usage`` (zero when it has none)."""
    meta = getattr(message, "usage_metadata", None)
    if not meta:
        return Usage()
    details = meta.get("input_token_details") or {}
    return Usage(
        input_tokens=meta.get("input_tokens", 0),
        output_tokens=meta.get("output_tokens", 0),
        total_tokens=meta.get("total_tokens", 0),
        cache_read_tokens=details.get("cache_read", 0) or 0,
        cache_write_tokens=details.get("cache_creation", 0) or 0,
    )


def usage_out(usage: Usage) -> dict[str, Any] | None:
    """Our ``Usage`` as LangChain's ``usage_metadata`` (``None`` for no usage)."""
    if not (usage.input_tokens or usage.output_tokens or usage.total_tokens):
        return None
    meta: dict[str, Any] = {
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "total_tokens": usage.total_tokens or usage.input_tokens + usage.output_tokens,
    }
    if usage.cache_read_tokens or usage.cache_write_tokens:
        meta["input_token_details"] = {
            "cache_read": usage.cache_read_tokens,
            "cache_creation": usage.cache_write_tokens,
        }
    return meta


# --- messages --------------------------------------------------------------------------------


def message_in(message: BaseMessage) -> ChatMessage:
    """A LangChain message as a ``ChatMessage`` (role, text, tool calls, tool call id)."""
    role = _ROLES.get(message.type, "user")
    text = text_of(message)
    if isinstance(message, AIMessage):
        return ChatMessage(
            role="assistant",
            content=text or None,
            tool_calls=[tool_call_in(c) for c in message.tool_calls],
            name=message.name,
        )
    if isinstance(message, ToolMessage):
        return ChatMessage(
            role="tool",
            content=text,
            tool_call_id=message.tool_call_id,
            is_error=message.status == "error",
            name=message.name,
        )
    return ChatMessage(role=role, content=text, name=message.name)  # type: ignore[arg-type]


def message_out(chat: ChatMessage, original: BaseMessage | None = None) -> BaseMessage:
    """A ``ChatMessage`` as a LangChain message. With ``original`` (the message it was read
    from), the result is ``original`` with only the parts that differ changed."""
    if original is not None and _ROLES.get(original.type) == chat.role:
        before = message_in(original)
        out: BaseMessage = original
        if chat.content != before.content:
            out = with_text(out, chat.content)
        update: dict[str, Any] = {}
        if chat.tool_calls != before.tool_calls:
            update["tool_calls"] = [tool_call_out(c) for c in chat.tool_calls]
        if chat.name != before.name:
            update["name"] = chat.name
        if chat.tool_call_id != before.tool_call_id:
            update["tool_call_id"] = chat.tool_call_id
        if chat.is_error != before.is_error:
            update["status"] = "error" if chat.is_error else "success"
        return out.model_copy(update=update) if update else out
    content = chat.content or ""
    if chat.role == "assistant":
        return AIMessage(
            content=content, tool_calls=[tool_call_out(c) for c in chat.tool_calls], name=chat.name
        )
    if chat.role == "tool":
        return ToolMessage(
            content=content,
            tool_call_id=chat.tool_call_id or "",
            name=chat.name,
            status="error" if chat.is_error else "success",
        )
    if chat.role == "system":
        return SystemMessage(content=content, name=chat.name)
    return HumanMessage(content=content, name=chat.name)


def messages_out(
    chats: Sequence[ChatMessage],
    read: Sequence[ChatMessage],
    originals: Sequence[BaseMessage],
) -> list[BaseMessage]:
    """The LangChain messages for ``chats`` (a handler's list), where ``read[i]`` was read from
    ``originals[i]``: a message a handler kept is its original object; one it replaced in the
    same place is that original with the changes; a new one is built."""
    kept = {id(c): o for c, o in zip(read, originals)}
    same_shape = len(chats) == len(read)
    out: list[BaseMessage] = []
    for i, chat in enumerate(chats):
        original = kept.get(id(chat))
        if original is not None:
            out.append(original)
        elif same_shape and chat.role == read[i].role:
            out.append(message_out(chat, originals[i]))
        else:
            out.append(message_out(chat))
    return out


# --- requests and responses ------------------------------------------------------------------


_MODEL_NAMES: dict[int, tuple[Any, str]] = {}


def model_name(model: Any) -> str:
    """The name a chat model calls its model (``gpt-4o``), else its class's name."""
    known = _MODEL_NAMES.get(id(model))
    if known is not None and known[0] is model:
        return known[1]
    # the class's name, not LangChain's private ``_llm_type``: what a chat model names its
    # model is public (``model_name``, ``model``, ``model_id``), its LangChain type is not
    name = type(model).__name__
    for attr in ("model_name", "model", "model_id"):
        value = getattr(model, attr, None)
        if isinstance(value, str) and value:
            name = value
            break
    _MODEL_NAMES[id(model)] = (model, name)
    return name


_SCHEMAS: dict[int, tuple[Any, dict[str, Any]]] = {}
"""Each tool object's schema, by ``id`` (the tool is kept beside it, so the id stays its own):
building one reads the tool's pydantic schema, too slow to repeat on every model call."""


def tool_schema(tool: Any) -> dict[str, Any]:
    """A LangChain tool (or tool dict) as the OpenAI-style function schema hooks read."""
    if isinstance(tool, dict):
        return convert_to_openai_tool(tool)
    known = _SCHEMAS.get(id(tool))
    if known is None or known[0] is not tool:
        known = _SCHEMAS[id(tool)] = (tool, convert_to_openai_tool(tool))
    return known[1]


def tool_name(schema: dict[str, Any]) -> str:
    """The name in an OpenAI-style tool schema."""
    function = schema.get("function")
    return str(function.get("name") if isinstance(function, dict) else schema.get("name"))


def response_in(message: AIMessage) -> ProviderResponse:
    """The model's ``AIMessage`` as a ``ProviderResponse``; ``raw`` holds the message itself,
    which the way back starts from."""
    meta = message.response_metadata or {}
    finish = meta.get("finish_reason") or meta.get("stop_reason") or "stop"
    return ProviderResponse(
        content=text_of(message) or None,
        tool_calls=[tool_call_in(c) for c in message.tool_calls],
        finish_reason=str(finish),
        usage=usage_in(message),
        raw=message,
    )


def response_out(response: ProviderResponse, original: AIMessage | None = None) -> AIMessage:
    """A ``ProviderResponse`` (a handler's, or the model's as a handler left it) as the
    ``AIMessage`` the agent acts on: the message it was read from, changed only where the
    response differs from it."""
    base = response.raw if isinstance(response.raw, AIMessage) else original
    if base is not None:
        before = response_in(base)
        out: BaseMessage = base
        if response.content != before.content:
            out = with_text(out, response.content)
        update: dict[str, Any] = {}
        if base is not original:  # a message of another call: a new message, not that one
            update["id"] = None
        if response.tool_calls != before.tool_calls:
            update["tool_calls"] = [tool_call_out(c) for c in response.tool_calls]
            update["invalid_tool_calls"] = []
        if response.usage != before.usage:
            update["usage_metadata"] = usage_out(response.usage)
        result = out.model_copy(update=update) if update else out
        assert isinstance(result, AIMessage)
        return result
    return AIMessage(
        content=response.content or "",
        tool_calls=[tool_call_out(c) for c in response.tool_calls],
        usage_metadata=usage_out(response.usage),
        response_metadata={"finish_reason": response.finish_reason},
    )


class Reader:
    """Reads LangChain messages as ``ChatMessage``s once each: a run's state hands the same
    message objects to every later model call, so each turn translates only its new ones.
    ``ChatMessage`` is frozen, so one translation may be shared. A message whose content or
    tool calls were replaced since (``HumanInTheLoopMiddleware`` assigns new tool calls to the
    model's message) is read again."""

    __slots__ = ("_read",)

    def __init__(self) -> None:
        self._read: dict[int, tuple[BaseMessage, Any, Any, ChatMessage]] = {}

    def __call__(self, message: BaseMessage) -> ChatMessage:
        """The ``ChatMessage`` of ``message``: its earlier translation while it is unchanged."""
        # (no getattr with a default: on a pydantic model a missing attribute costs an exception)
        content = message.content
        calls = message.tool_calls if isinstance(message, AIMessage) else None
        known = self._read.get(id(message))
        if (
            known is None
            or known[0] is not message
            or known[1] is not content
            or known[2] is not calls
        ):
            known = self._read[id(message)] = (message, content, calls, message_in(message))
        return known[3]


def request_in(
    messages: Sequence[BaseMessage],
    system: SystemMessage | None,
    tools: Sequence[Any],
    model: Any,
    tool_choice: Any,
    read: Callable[[BaseMessage], ChatMessage] = message_in,
) -> ProviderRequest:
    """A LangChain model request (its messages, system message, tools, model) as a
    ``ProviderRequest``; ``read`` translates each message."""
    return ProviderRequest.model_construct(
        model=model_name(model),
        system=text_of(system) if system is not None else None,
        messages=[read(m) for m in messages],
        tools=[tool_schema(t) for t in tools],
        tool_choice=tool_choice if isinstance(tool_choice, (str, dict)) else None,
        temperature=None,
        reasoning_effort=None,
        response_format=None,
    )


__all__ = [
    "Reader",
    "message_in",
    "message_out",
    "messages_out",
    "model_name",
    "request_in",
    "response_in",
    "response_out",
    "text_of",
    "tool_call_in",
    "tool_call_out",
    "tool_name",
    "tool_schema",
    "usage_in",
    "usage_out",
    "with_text",
]
