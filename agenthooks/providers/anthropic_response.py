"""Anthropic Messages API answers: a message body or a stream of events as a
``ProviderResponse``, and the errors they stand for. No I/O; ``AnthropicProvider`` does it."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import ProviderHTTPError, ProviderResponseError
from ..messages import ProviderResponse, ThinkingBlock, ToolCall, Usage

JSONObject = dict[str, Any]

FINISH_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "refusal": "content_filter",
}
"""``stop_reason`` → ``finish_reason``; any other reason (``pause_turn``) is kept as is."""

ERROR_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "billing_error": 402,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "overloaded_error": 529,
}
"""The HTTP status each error type stands for (an ``error`` event inside a stream has none)."""

RETRYABLE = frozenset({"rate_limit_error", "overloaded_error", "api_error", "timeout_error"})
"""Error types whose errors are marked ``retryable``, in a stream or not."""


def parse_message(
    payload: JSONObject, *, where: str = "anthropic", status: int = 200
) -> ProviderResponse:
    """A non-streamed ``message`` body as a ``ProviderResponse`` (``raw`` = payload)."""
    content = payload.get("content")
    if payload.get("type") != "message" or not isinstance(content, list):
        raise bad(
            where, f"expected a message with a content list, got {clip(payload)}", payload, status
        )
    stop_reason = payload.get("stop_reason")
    if not isinstance(stop_reason, str) or not stop_reason:
        raise bad(where, "message has no stop_reason: the response is incomplete", payload, status)
    parts = _Parts(where, status, payload)
    for index, block in enumerate(content):
        if not isinstance(block, dict):
            raise bad(where, f"content[{index}] is not an object: {clip(block)}", payload, status)
        parts.add_block(block, index)
    return parts.response(stop_reason, parse_usage(payload.get("usage")))


def parse_usage(usage: Any, base: Usage | None = None) -> Usage:
    """Anthropic ``usage`` as a ``Usage``; fields it leaves out (or null) keep ``base``'s.

    ``input_tokens`` counts every prompt token: the API's uncached ``input_tokens`` plus
    those read from and written to the cache.
    """
    base = base or Usage()
    if not isinstance(usage, dict):
        return base
    uncached = base.input_tokens - base.cache_read_tokens - base.cache_write_tokens
    uncached = _int(usage.get("input_tokens"), uncached)
    read = _int(usage.get("cache_read_input_tokens"), base.cache_read_tokens)
    write = _int(usage.get("cache_creation_input_tokens"), base.cache_write_tokens)
    output = _int(usage.get("output_tokens"), base.output_tokens)
    return Usage(
        input_tokens=uncached + read + write,
        output_tokens=output,
        total_tokens=uncached + read + write + output,
        cache_read_tokens=read,
        cache_write_tokens=write,
    )


def error_from_event(
    event: JSONObject, where: str, raw: Any, headers: Mapping[str, str] | None = None
) -> ProviderHTTPError:
    """The error an ``error`` event mid-stream stands for (status from its error type)."""
    error = event.get("error")
    kind = error.get("type") if isinstance(error, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    kind = kind if isinstance(kind, str) else None
    return ProviderHTTPError(
        f"{where}: error event mid-stream: {kind or 'error'}: {message or clip(event)}",
        raw=raw,
        status=ERROR_STATUS.get(kind or ""),
        headers=headers,
        error_type=kind,
        retryable=kind in RETRYABLE,
    )


@dataclass
class _Block:
    """One content block as its events arrive."""

    type: str
    data: JSONObject
    pieces: list[str] = field(default_factory=list)


class _Parts:
    """Content blocks folded into text, tool calls and thinking blocks, in order."""

    def __init__(self, where: str, status: int, raw: Any) -> None:
        self.where, self.status, self.raw = where, status, raw
        self.text: list[str] | None = None
        self.calls: list[ToolCall] = []
        self.thinking: list[ThinkingBlock] = []

    def add_block(self, block: JSONObject, index: int) -> None:
        problem = block_problem(block)
        if problem is not None:
            raise bad(self.where, f"content[{index}] is {problem}", self.raw, self.status)
        kind = block.get("type")
        if kind == "text":
            self.text = [*(self.text or []), block.get("text") or ""]
        elif kind == "thinking":
            self.thinking.append(
                ThinkingBlock(
                    thinking=block.get("thinking") or "", signature=block.get("signature") or ""
                )
            )
        elif kind == "redacted_thinking":
            self.thinking.append(
                ThinkingBlock(type="redacted_thinking", data=block.get("data") or "")
            )
        elif kind == "tool_use":
            self.calls.append(self._tool_call(block, index))
        # server tool blocks and blocks of later API versions carry nothing we model

    def _tool_call(self, block: JSONObject, index: int) -> ToolCall:
        call_id, name = block.get("id"), block.get("name")
        if not isinstance(call_id, str) or not call_id or not isinstance(name, str) or not name:
            raise bad(
                self.where,
                f"content[{index}] is a tool_use block without id or name",
                self.raw,
                self.status,
            )
        arguments = block.get("input")
        if isinstance(arguments, str):  # a streamed block: the joined input_json_delta text
            text = arguments
            try:
                arguments = json.loads(text) if text.strip() else {}
            except ValueError:
                arguments = None
        else:
            text = json.dumps(arguments)
        if isinstance(arguments, dict):
            return ToolCall(id=call_id, name=name, arguments=arguments)
        return ToolCall(id=call_id, name=name, arguments={}, raw_arguments=text)

    def response(self, stop_reason: str, usage: Usage) -> ProviderResponse:
        return ProviderResponse(
            content=None if self.text is None else "".join(self.text),
            tool_calls=self.calls,
            thinking_blocks=self.thinking,
            finish_reason=FINISH_REASONS.get(stop_reason, stop_reason),
            usage=usage,
            raw=self.raw,
        )


_TEXT_FIELDS = {
    "text": ("text",),
    "thinking": ("thinking", "signature"),
    "redacted_thinking": ("data",),
}
"""The string fields of each block type we model (absent or null reads as "")."""

_DELTAS = {
    "text_delta": ("text", frozenset({"text"})),
    "input_json_delta": ("partial_json", frozenset({"tool_use"})),
    "thinking_delta": ("thinking", frozenset({"thinking"})),
    "signature_delta": ("signature", frozenset({"thinking"})),
}
"""Each delta type we fold: the field it carries and the block types it extends. Other delta
types (later API versions, ``citations_delta``) and the deltas of block types we do not model
(server tools) carry nothing we keep."""


def block_problem(block: JSONObject) -> str | None:
    """What is wrong with a content block we model (a text field that is not a string), or
    None."""
    kind = block.get("type")
    for name in _TEXT_FIELDS.get(kind, ()):  # type: ignore[arg-type]
        value = block.get(name)
        if value is not None and not isinstance(value, str):
            return f"a {kind} block whose {name} is {clip(value)}, expected a string"
    return None


class StreamAssembler:
    """Folds Messages API stream events into one ``ProviderResponse``.

    Read as strictly as a message body: a ``content_block_start`` on an index already in use,
    a delta on an index not open (never started, or stopped), a delta whose type does not fit
    its block (``input_json_delta`` on a text block) and a text field that is not a string
    are errors naming the event, never merged into the answer.
    """

    def __init__(
        self, where: str, status: int = 200, headers: Mapping[str, str] | None = None
    ) -> None:
        self.where = where
        self.status = status
        self.headers = headers
        self.events: list[JSONObject] = []  # every decoded event, in order: the response's raw
        self.stopped = False
        self._started = False
        self._blocks: dict[int, _Block] = {}
        self._stopped_blocks: set[int] = set()
        self._stop_reason: str | None = None
        self._usage = Usage()

    def add(self, event: JSONObject) -> str:
        """Fold in one event; return its text delta ("" when it carries none)."""
        self.events.append(event)
        kind = event.get("type")
        if kind == "error":
            raise error_from_event(event, self.where, self.events, self.headers)
        if kind == "message_start":
            message = event.get("message")
            self._started = True
            if isinstance(message, dict):
                self._usage = parse_usage(message.get("usage"))
        elif kind == "content_block_start":
            block, index = event.get("content_block"), _index(event)
            if not isinstance(block, dict) or index is None:
                raise self._bad(f"{self._event()}: malformed: {clip(event)}")
            if index in self._blocks:
                raise self._bad(f"{self._event()}: index {index} is already in use")
            problem = block_problem(block)
            if problem is not None:
                raise self._bad(f"{self._event()}: index {index} starts {problem}")
            self._blocks[index] = _Block(str(block.get("type")), dict(block))
        elif kind == "content_block_delta":
            return self._delta(event)
        elif kind == "content_block_stop":
            index = _index(event)
            if index is None or index not in self._blocks or index in self._stopped_blocks:
                raise self._bad(
                    f"{self._event()}: content_block_stop for no open content block: {clip(event)}"
                )
            self._stopped_blocks.add(index)
        elif kind == "message_delta":
            delta = event.get("delta")
            if isinstance(delta, dict) and isinstance(delta.get("stop_reason"), str):
                self._stop_reason = delta["stop_reason"]
            self._usage = parse_usage(event.get("usage"), self._usage)  # cumulative counts
        elif kind == "message_stop":
            self.stopped = True
        return ""  # ping and event types of later API versions

    def _delta(self, event: JSONObject) -> str:
        index = _index(event)
        block = self._blocks.get(index) if index is not None else None
        delta = event.get("delta")
        if block is None or index in self._stopped_blocks or not isinstance(delta, dict):
            raise self._bad(f"{self._event()}: delta for no open content block: {clip(event)}")
        kind = delta.get("type")
        fold = _DELTAS.get(kind)  # type: ignore[arg-type]
        if fold is None:
            return ""  # a delta type of a later API version: nothing we model
        name, fits = fold
        if block.type not in fits:
            if block.type not in _TEXT_FIELDS and block.type != "tool_use":
                return ""  # a block we do not model (a server tool's): its deltas neither
            raise self._bad(
                f"{self._event()}: {kind} does not fit the {block.type} block at index {index}"
            )
        value = delta.get(name)
        if value is not None and not isinstance(value, str):
            raise self._bad(
                f"{self._event()}: {kind} whose {name} is {clip(value)}, expected a string"
            )
        text = value or ""
        if kind == "signature_delta":  # carries the whole signature, as the SDK reads it
            block.data["signature"] = text
            return ""
        block.pieces.append(text)
        return text if kind == "text_delta" else ""

    def _event(self) -> str:
        """The event being folded, for errors: its type and number (from 1)."""
        event = self.events[-1]
        return f"{event.get('type')} (event {len(self.events)})"

    def response(self) -> ProviderResponse:
        """The assembled response; raises if the stream ended before ``message_stop``."""
        if not self.stopped or not self._started or self._stop_reason is None:
            missing = "message_stop" if not self.stopped else "message_start or a stop_reason"
            raise self._bad(
                f"stream ended without {missing} after {len(self.events)} events: "
                "the response is incomplete"
            )
        parts = _Parts(self.where, self.status, self.events)
        for index in sorted(self._blocks):
            block = self._blocks[index]
            data = block.data
            if block.type == "text":
                data["text"] = (data.get("text") or "") + "".join(block.pieces)
            elif block.type == "thinking":
                data["thinking"] = (data.get("thinking") or "") + "".join(block.pieces)
            elif block.type == "tool_use" and block.pieces:
                data["input"] = "".join(block.pieces)
            parts.add_block(data, index)
        return parts.response(self._stop_reason, self._usage)

    def _bad(self, what: str) -> ProviderResponseError:
        return bad(self.where, what, self.events, self.status)


# ------------------------------------------------------------------------------ helpers


def server_message(body: Any) -> tuple[str | None, str | None]:
    """(error type, message) from ``{"type": "error", "error": {"type", "message"}}``."""
    if isinstance(body, (bytes, str)):
        try:
            body = json.loads(body)
        except ValueError:
            text = body.decode(errors="replace") if isinstance(body, bytes) else body
            return None, clip(text.strip()) or None
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return None, None
    kind, message = error.get("type"), error.get("message")
    return (kind if isinstance(kind, str) else None), (
        message if isinstance(message, str) else None
    )


def bad(where: str, what: str, raw: Any, status: int | None) -> ProviderResponseError:
    """A ``ProviderResponseError`` saying where and what."""
    return ProviderResponseError(f"{where}: {what}", raw=raw, status=status)


def clip(value: Any, limit: int = 200) -> str:
    """``value`` as text, cut to ``limit`` characters."""
    if isinstance(value, bytes):
        text = value.decode(errors="replace")
    elif isinstance(value, str):
        text = value
    else:
        text = json.dumps(value, default=str)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} chars)"


def _index(event: JSONObject) -> int | None:
    index = event.get("index")
    return index if isinstance(index, int) and not isinstance(index, bool) else None


def _int(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


__all__ = [
    "ERROR_STATUS",
    "FINISH_REASONS",
    "RETRYABLE",
    "JSONObject",
    "StreamAssembler",
    "bad",
    "block_problem",
    "clip",
    "error_from_event",
    "parse_message",
    "parse_usage",
    "server_message",
]
