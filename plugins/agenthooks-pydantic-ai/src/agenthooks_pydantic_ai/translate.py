"""Pydantic AI's messages, requests, responses and usage <-> agenthooks' types, both ways.

The way in (``chat_messages``, ``provider_request``, ``provider_response``) keeps a record of
which Pydantic AI part each agenthooks value came from. The way back (``model_messages``,
``model_response``) reuses every part a handler left alone, the very object, so a round trip
with no handler is the identity, and rebuilds only what a handler changed. Parts agenthooks'
types cannot express (images, files, audio, native tool calls, compaction, instruction deltas,
provider-specific fields) ride along with the message they were in, untouched.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic_ai.exceptions import (
    ModelAPIError,
    ModelConnectionError,
    ModelHTTPError,
    ModelRateLimitError,
    ModelRequestTimeout,
    ModelServerError,
    ModelTimeoutError,
    ModelUnavailableError,
)
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryFeedbackPart,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models import ModelRequestContext, ModelRequestParameters
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.usage import RequestUsage

from agenthooks.bridges import UnsupportedReturnError
from agenthooks.errors import (
    ProviderConnectionError,
    ProviderError,
    ProviderHTTPError,
    ProviderTimeout,
)
from agenthooks.messages import (
    ChatMessage,
    ProviderRequest,
    ProviderResponse,
    ThinkingBlock,
    ToolCall,
    Usage,
)


@dataclass(frozen=True, slots=True)
class Origin:
    """Where one ChatMessage came from: message ``index`` of the source list, and the
    positions of the parts it expresses (an assistant message expresses several)."""

    index: int
    parts: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Transcript:
    """A Pydantic AI message list read as ChatMessages, with the origin of each."""

    source: Sequence[ModelMessage]
    messages: list[ChatMessage]
    origins: list[Origin]


FRAMEWORK = "Pydantic AI"

# ---------------------------------------------------------------- the way in

# Built through their validating constructors: pydantic's model_construct re-inspects the
# default factories on every call, which costs far more than validating these small values
_chat = ChatMessage
_call = ToolCall
_thinking = ThinkingBlock
_usage = Usage
_request = ProviderRequest
_response = ProviderResponse


Read = list[tuple[ChatMessage, tuple[int, ...]]]
"""What one Pydantic AI message reads as: its ChatMessages and the parts each expresses."""

ReadCache = dict[int, tuple[ModelMessage, Read]]
"""Per run: what each message of the history read as, by identity (a history's messages are
the same objects from one request to the next, so each is read once)."""


def chat_messages(source: Sequence[ModelMessage], cache: ReadCache | None = None) -> Transcript:
    """Read Pydantic AI messages as agenthooks ChatMessages (parts it cannot express are left
    out here and kept by ``model_messages``)."""
    messages: list[ChatMessage] = []
    origins: list[Origin] = []
    for index, message in enumerate(source):
        hit = cache.get(id(message)) if cache is not None else None
        if hit is not None and hit[0] is message:
            read = hit[1]
        else:
            read = _read(message)
            if cache is not None:
                cache[id(message)] = (message, read)
        for chat, parts in read:
            messages.append(chat)
            origins.append(Origin(index, parts))
    return Transcript(source, messages, origins)


def _read(message: ModelMessage) -> Read:
    if isinstance(message, ModelResponse):
        chat = assistant_message(message)
        return [] if chat is None else [(chat, _expressed_response_parts(message.parts))]
    read: Read = []
    for position, part in enumerate(message.parts):
        chat = _request_part_message(part)
        if chat is not None:
            read.append((chat, (position,)))
    return read


def _request_part_message(part: Any) -> ChatMessage | None:
    if isinstance(part, SystemPromptPart):
        return _chat(role="system", content=part.content)
    if isinstance(part, UserPromptPart):
        return _chat(role="user", content=user_text(part))
    if isinstance(part, ToolReturnPart):
        return _chat(
            role="tool",
            content=part.model_response_str(),
            tool_call_id=part.tool_call_id,
            name=part.tool_name,
            is_error=part.outcome != "success",
        )
    if isinstance(part, RetryPromptPart):
        return _chat(
            role="tool" if part.tool_name else "user",
            content=_feedback_text(part.content),
            tool_call_id=part.tool_call_id if part.tool_name else None,
            name=part.tool_name,
            is_error=True,
        )
    if isinstance(part, RetryFeedbackPart):
        return _chat(role="user", content=_feedback_text(part.content))
    return None


def user_text(part: UserPromptPart) -> str | None:
    """The text of a user prompt (its text items joined; images and files are not text)."""
    if isinstance(part.content, str):
        return part.content
    texts = [item for item in part.content if isinstance(item, str)]
    return "\n".join(texts) if texts else None


def _feedback_text(content: Any) -> str:
    return content if isinstance(content, str) else json.dumps(content, default=str)


def _expressed_response_parts(parts: Sequence[Any]) -> tuple[int, ...]:
    return tuple(
        position
        for position, part in enumerate(parts)
        if isinstance(part, (TextPart, ToolCallPart, ThinkingPart))
    )


def _response_content(
    response: ModelResponse,
) -> tuple[str | None, list[ToolCall], list[ThinkingBlock]]:
    texts: list[str] = []
    calls: list[ToolCall] = []
    thinking: list[ThinkingBlock] = []
    for part in response.parts:
        if isinstance(part, TextPart):
            texts.append(part.content)
        elif isinstance(part, ToolCallPart):
            calls.append(tool_call(part))
        elif isinstance(part, ThinkingPart):
            thinking.append(_thinking(thinking=part.content, signature=part.signature or ""))
    return ("".join(texts) if texts else None), calls, thinking


def assistant_message(response: ModelResponse) -> ChatMessage | None:
    """The assistant ChatMessage of a model response (``None`` when nothing in it is text,
    a tool call or thinking)."""
    content, calls, thinking = _response_content(response)
    if content is None and not calls and not thinking:
        return None
    return _chat(role="assistant", content=content, tool_calls=calls, thinking_blocks=thinking)


def tool_call(part: ToolCallPart) -> ToolCall:
    """A Pydantic AI tool call part as an agenthooks ToolCall (argument text that is not a
    JSON object is kept in ``raw_arguments``)."""
    args = part.args
    if isinstance(args, dict):
        return _call(id=part.tool_call_id, name=part.tool_name, arguments=dict(args))
    try:
        parsed = json.loads(args) if args else {}
    except ValueError:
        parsed = None
    if isinstance(parsed, dict):
        return _call(id=part.tool_call_id, name=part.tool_name, arguments=parsed)
    return _call(id=part.tool_call_id, name=part.tool_name, raw_arguments=args)


def usage(request_usage: RequestUsage) -> Usage:
    """The token counts of one model response."""
    return _usage(
        input_tokens=request_usage.input_tokens,
        output_tokens=request_usage.output_tokens,
        total_tokens=request_usage.input_tokens + request_usage.output_tokens,
        cache_read_tokens=request_usage.cache_read_tokens,
        cache_write_tokens=request_usage.cache_write_tokens,
    )


def tool_schema(tool_def: ToolDefinition) -> dict[str, Any]:
    """A tool definition as the OpenAI-style function schema agenthooks requests carry."""
    return {
        "type": "function",
        "function": {
            "name": tool_def.name,
            "description": tool_def.description or "",
            "parameters": tool_def.parameters_json_schema,
        },
    }


def instructions(parameters: ModelRequestParameters) -> str | None:
    """The instructions a request starts with, as one text."""
    parts = parameters.instruction_parts
    if not parts:
        return None
    return "\n\n".join(part.content for part in parts)


@dataclass(frozen=True, slots=True)
class RequestView:
    """A ProviderRequest and what it was read from, for applying a handler's rewrite."""

    request: ProviderRequest
    transcript: Transcript


def provider_request(
    request_context: ModelRequestContext, cache: ReadCache | None = None
) -> RequestView:
    """What one Pydantic AI model request sends, as an agenthooks ProviderRequest."""
    transcript = chat_messages(request_context.messages, cache)
    parameters = request_context.model_request_parameters
    settings = request_context.model_settings or {}
    request = _request(
        model=request_context.model.model_name,
        system=instructions(parameters),
        messages=list(transcript.messages),
        tools=[tool_schema(tool_def) for tool_def in parameters.function_tools],
        temperature=settings.get("temperature"),
    )
    return RequestView(request, transcript)


def assistant_of(response: ProviderResponse) -> ChatMessage:
    """The assistant message of a ProviderResponse."""
    return _chat(
        role="assistant",
        content=response.content,
        tool_calls=list(response.tool_calls),
        thinking_blocks=list(response.thinking_blocks),
    )


def provider_response(response: ModelResponse) -> ProviderResponse:
    """A Pydantic AI model response as an agenthooks ProviderResponse (``raw`` keeps it)."""
    content, calls, thinking = _response_content(response)
    return _response(
        content=content,
        tool_calls=calls,
        thinking_blocks=thinking,
        finish_reason=response.finish_reason or "stop",
        usage=usage(response.usage),
        raw=response,
    )


def provider_error(exc: ModelAPIError) -> ProviderError:
    """A Pydantic AI model API error as agenthooks' provider error of the same kind (what a
    retry middleware and ``on_model_error`` handlers read); ``raw`` and ``__cause__`` keep
    the original."""
    message = str(exc)
    if isinstance(exc, ModelHTTPError):
        return ProviderHTTPError(
            message, raw=exc, status=exc.status_code, headers=exc.headers or {}
        )
    if isinstance(exc, (ModelTimeoutError, ModelRequestTimeout)):
        return ProviderTimeout(message, raw=exc)
    if isinstance(exc, ModelConnectionError):
        return ProviderConnectionError(message, raw=exc)
    transient = isinstance(exc, (ModelRateLimitError, ModelUnavailableError, ModelServerError))
    return ProviderError(message, raw=exc, retryable=transient)


# ---------------------------------------------------------------- the way back


def apply_request(
    view: RequestView, request: ProviderRequest, request_context: ModelRequestContext
) -> ModelRequestContext:
    """The request context a handler's ``request`` asks for: ``request_context`` itself when
    nothing changed; else a copy whose messages and instructions say what the handler wrote."""
    original = view.request
    if request is original:
        return request_context
    changes: dict[str, Any] = {}
    if request.messages != original.messages:
        changes["messages"] = model_messages(view.transcript, request.messages)
    if request.system != original.system:
        parameters = request_context.model_request_parameters
        changes["model_request_parameters"] = dataclasses.replace(
            parameters, instruction_parts=_instruction_parts(parameters, request.system)
        )
    for field in ("model", "tool_choice", "reasoning_effort", "response_format"):
        if getattr(request, field) != getattr(original, field):
            raise UnsupportedReturnError(
                "pre_request",
                "request",
                FRAMEWORK,
                f"a request's {field} is the agent's to choose (its model, settings and "
                "output type); a handler may rewrite the messages, the instructions, the "
                "temperature and the tools (drop one, reword its description or schema)",
            )
    if request.tools != original.tools:
        parameters = changes.get(
            "model_request_parameters", request_context.model_request_parameters
        )
        changes["model_request_parameters"] = dataclasses.replace(
            parameters, function_tools=_function_tools(parameters.function_tools, request.tools)
        )
    if request.temperature != original.temperature:
        settings = dict(request_context.model_settings or {})
        if request.temperature is None:
            settings.pop("temperature", None)
        else:
            settings["temperature"] = request.temperature
        changes["model_settings"] = settings
    return dataclasses.replace(request_context, **changes) if changes else request_context


def _function_tools(
    tool_defs: Sequence[ToolDefinition], schemas: Sequence[dict[str, Any]]
) -> list[ToolDefinition]:
    """The tool definitions a handler's tool list keeps, in its order, with its descriptions
    and schemas. A tool the agent does not have cannot be offered: the agent could not run
    it."""
    by_name = {tool_def.name: tool_def for tool_def in tool_defs}
    kept: list[ToolDefinition] = []
    for schema in schemas:
        function = schema.get("function", schema)
        name = function.get("name")
        tool_def = by_name.get(name) if isinstance(name, str) else None
        if tool_def is None:
            raise UnsupportedReturnError(
                "pre_request",
                "request",
                FRAMEWORK,
                f"the request offers a tool {name!r} the agent does not have, so it could "
                "not run it",
            )
        if tool_schema(tool_def) != schema:
            tool_def = dataclasses.replace(
                tool_def,
                description=function.get("description") or None,
                parameters_json_schema=function.get("parameters", tool_def.parameters_json_schema),
            )
        kept.append(tool_def)
    return kept


def _instruction_parts(parameters: ModelRequestParameters, system: str | None) -> list[Any] | None:
    from pydantic_ai.messages import InstructionPart

    if system is None:
        return None
    return [InstructionPart(content=system, dynamic=True)]


def model_messages(transcript: Transcript, messages: Sequence[ChatMessage]) -> list[ModelMessage]:
    """Pydantic AI messages saying what ``messages`` say, reusing every message and part of
    ``transcript.source`` a handler left alone (and what agenthooks cannot express with them)."""
    old = transcript.messages
    if len(messages) == len(old) and all(a is b or a == b for a, b in zip(messages, old)):
        return list(transcript.source)
    by_identity = {id(chat): k for k, chat in enumerate(old)}
    builder = _HistoryBuilder(transcript)
    for position, chat in enumerate(messages):
        k = by_identity.get(id(chat))
        if k is None and position < len(old) and old[position] == chat:
            k = position
        if k is not None:
            builder.keep(k)
        elif position < len(old) and old[position].role == chat.role:
            builder.rewrite(position, chat)
        else:
            builder.add(chat)
    return builder.finish()


class _HistoryBuilder:
    """Groups the parts of a rewritten transcript into Pydantic AI messages."""

    def __init__(self, transcript: Transcript) -> None:
        self.transcript = transcript
        self.groups: list[tuple[int | None, list[Any]]] = []
        self.taken: set[int] = set()
        # the source messages nothing was read from (only parts agenthooks cannot express):
        # they keep their place
        expressed = {origin.index for origin in transcript.origins}
        self.silent = [i for i in range(len(transcript.source)) if i not in expressed]

    def _flush_silent(self, before: int) -> None:
        while self.silent and self.silent[0] < before:
            index = self.silent.pop(0)
            self.groups.append((index, list(self.transcript.source[index].parts)))

    def _parts_with_companions(self, origin: Origin) -> list[Any]:
        """The parts of ``origin`` and the parts around it agenthooks cannot express (they
        belong to the nearest expressed part after them, the tail to the last one)."""
        message = self.transcript.source[origin.index]
        parts = message.parts
        if isinstance(message, ModelResponse):
            return list(parts)
        expressed = [o.parts[0] for o in self.transcript.origins if o.index == origin.index]
        position = origin.parts[0]
        k = expressed.index(position)
        start = expressed[k - 1] + 1 if k > 0 else 0
        end = expressed[k + 1] if k + 1 < len(expressed) else len(parts)
        return [*parts[start:position], parts[position], *parts[position + 1 : end]]

    def _append(self, index: int | None, parts: list[Any], response: bool) -> None:
        if index is not None:
            self._flush_silent(index)
            if self.groups and self.groups[-1][0] == index and not response:
                self.groups[-1][1].extend(parts)
                return
            self.groups.append((index, parts))
            return
        last = self.groups[-1] if self.groups else None
        if not response and last is not None and not self._is_response(last):
            last[1].extend(parts)
            return
        self.groups.append((None, parts) if not response else (-1, parts))

    def _is_response(self, group: tuple[int | None, list[Any]]) -> bool:
        index = group[0]
        if index is None:
            return False
        if index == -1:
            return True
        return isinstance(self.transcript.source[index], ModelResponse)

    def keep(self, k: int) -> None:
        origin = self.transcript.origins[k]
        response = isinstance(self.transcript.source[origin.index], ModelResponse)
        self._append(origin.index, self._parts_with_companions(origin), response)

    def rewrite(self, k: int, chat: ChatMessage) -> None:
        origin = self.transcript.origins[k]
        source = self.transcript.source[origin.index]
        if isinstance(source, ModelResponse):
            new = model_response(_as_response(chat), source)
            self._append(origin.index, list(new.parts), True)
            return
        companions = self._parts_with_companions(origin)
        original = source.parts[origin.parts[0]]
        replaced = [
            _rewritten_request_part(original, chat) if part is original else part
            for part in companions
        ]
        self._append(origin.index, replaced, False)

    def add(self, chat: ChatMessage) -> None:
        if chat.role == "assistant":
            self._append(None, list(model_response(_as_response(chat), None).parts), True)
        else:
            self._append(None, [_new_request_part(chat)], False)

    def finish(self) -> list[ModelMessage]:
        self._flush_silent(len(self.transcript.source))
        out: list[ModelMessage] = []
        for index, parts in self.groups:
            if index is None:
                out.append(ModelRequest(parts=parts))
                continue
            if index == -1:
                out.append(ModelResponse(parts=parts))
                continue
            source = self.transcript.source[index]
            same = len(parts) == len(source.parts) and all(
                a is b for a, b in zip(parts, source.parts)
            )
            out.append(source if same else dataclasses.replace(source, parts=parts))  # type: ignore[arg-type]
        return out


def _as_response(chat: ChatMessage) -> ProviderResponse:
    return ProviderResponse(
        content=chat.content,
        tool_calls=list(chat.tool_calls),
        thinking_blocks=list(chat.thinking_blocks),
    )


def _new_request_part(chat: ChatMessage) -> Any:
    if chat.role == "system":
        return SystemPromptPart(content=chat.content or "")
    if chat.role == "tool":
        return ToolReturnPart(
            tool_name=chat.name or "",
            content=chat.content or "",
            tool_call_id=chat.tool_call_id or "",
            outcome="failed" if chat.is_error else "success",
        )
    return UserPromptPart(content=chat.content or "")


def _rewritten_request_part(part: Any, chat: ChatMessage) -> Any:
    if isinstance(part, UserPromptPart) and chat.role == "user":
        if isinstance(part.content, str):
            return dataclasses.replace(part, content=chat.content or "")
        # images, audio and files stay where they were; the text is the handler's
        others = [item for item in part.content if not isinstance(item, str)]
        return dataclasses.replace(part, content=[chat.content or "", *others])
    if isinstance(part, SystemPromptPart) and chat.role == "system":
        return dataclasses.replace(part, content=chat.content or "")
    if isinstance(part, ToolReturnPart) and chat.role == "tool":
        outcome = part.outcome
        if chat.is_error and outcome == "success":
            outcome = "failed"
        elif not chat.is_error and outcome != "success":
            outcome = "success"
        return dataclasses.replace(part, content=chat.content or "", outcome=outcome)
    return _new_request_part(chat)


def model_response(response: ProviderResponse, original: ModelResponse | None) -> ModelResponse:
    """The Pydantic AI response a ProviderResponse says: ``original`` itself when it says the
    same; else ``original`` with its text, tool calls and thinking replaced, and everything
    agenthooks cannot express (files, native tool parts, provider fields) kept in place."""
    if original is None and isinstance(response.raw, ModelResponse):
        original = response.raw
    if original is not None:
        before = provider_response(original)
        if (
            response.content == before.content
            and response.tool_calls == before.tool_calls
            and response.thinking_blocks == before.thinking_blocks
        ):
            return original
        return dataclasses.replace(original, parts=_response_parts(response, original.parts))
    return ModelResponse(
        parts=_response_parts(response, ()),
        usage=RequestUsage(
            input_tokens=response.usage.input_tokens,
            output_tokens=response.usage.output_tokens,
            cache_read_tokens=response.usage.cache_read_tokens,
            cache_write_tokens=response.usage.cache_write_tokens,
        ),
    )


def _response_parts(response: ProviderResponse, parts: Sequence[Any]) -> list[Any]:
    old_calls = {part.tool_call_id: part for part in parts if isinstance(part, ToolCallPart)}
    old_thinking = [part for part in parts if isinstance(part, ThinkingPart)]
    calls = [_call_part(call, old_calls.get(call.id)) for call in response.tool_calls]
    thinking = _thinking_parts(response.thinking_blocks, old_thinking)
    text = [TextPart(content=response.content)] if response.content else []
    out: list[Any] = []
    placed = {"thinking": False, "text": False, "calls": False}
    for part in parts:
        if isinstance(part, ThinkingPart):
            if not placed["thinking"]:
                out.extend(thinking)
                placed["thinking"] = True
        elif isinstance(part, TextPart):
            if not placed["text"]:
                old_text = [p for p in parts if isinstance(p, TextPart)]
                same = len(old_text) == 1 and old_text[0].content == response.content
                out.extend(old_text if same else _with_text_fields(text, old_text))
                placed["text"] = True
        elif isinstance(part, ToolCallPart):
            if not placed["calls"]:
                out.extend(calls)
                placed["calls"] = True
        else:
            out.append(part)
    if not placed["thinking"]:
        out[0:0] = thinking
    if not placed["text"]:
        # text goes before the tool calls, as models write it
        at = next((i for i, p in enumerate(out) if isinstance(p, ToolCallPart)), len(out))
        out[at:at] = text
    if not placed["calls"]:
        out.extend(calls)
    return out


def _with_text_fields(text: list[TextPart], old: list[TextPart]) -> list[TextPart]:
    if not text or not old:
        return text
    return [dataclasses.replace(old[0], content=text[0].content)]


def _thinking_parts(blocks: Sequence[ThinkingBlock], old: list[ThinkingPart]) -> list[ThinkingPart]:
    if len(blocks) == len(old) and all(
        block.thinking == part.content and block.signature == (part.signature or "")
        for block, part in zip(blocks, old)
    ):
        return old
    return [
        ThinkingPart(content=block.thinking, signature=block.signature or None) for block in blocks
    ]


def _call_part(call: ToolCall, old: ToolCallPart | None) -> ToolCallPart:
    if old is not None and tool_call(old) == call:
        return old
    args: str | dict[str, Any] = (
        call.raw_arguments if call.raw_arguments is not None else dict(call.arguments)
    )
    if old is not None:
        return dataclasses.replace(old, tool_name=call.name, args=args)
    if call.id:
        return ToolCallPart(tool_name=call.name, args=args, tool_call_id=call.id)
    return ToolCallPart(tool_name=call.name, args=args)


__all__ = [
    "Origin",
    "ReadCache",
    "RequestView",
    "Transcript",
    "apply_request",
    "assistant_message",
    "assistant_of",
    "chat_messages",
    "instructions",
    "model_messages",
    "model_response",
    "provider_error",
    "provider_request",
    "provider_response",
    "tool_call",
    "tool_schema",
    "usage",
    "user_text",
]
