"""OpenAI Chat Completions answers, plain and streamed, read by one parser.

A plain ``chat.completion`` is folded as one chunk whose delta is the whole message, so both
paths accept and reject exactly the same shapes:

- ``content`` is a string, null, or a list of text parts (``{"type": "text", "text": ...}``),
  which are joined. A number, an object or a part of another type is an error. Empty text
  reads as no content (``None``), on both paths.
- A tool call's ``arguments`` are JSON text (streamed in pieces) or an object, kept as given.
  Text that is not a JSON object is the model's mistake, not the server's: the call keeps it
  in ``raw_arguments`` with ``arguments={}``, for the runtime to answer with a tool error.
  Arguments of any other type are an error.
- A streamed tool-call delta that brings a new ``id`` on an index already in use starts a
  second call beside the first, never replaces it. Calls keep the order they first appeared
  in; a call without an id is named ``call_<position>``. Two calls with one id, a call
  without a name, and a call whose name changes are errors.
- Only choice 0 is read, and another choice index is an error: one choice is asked for.
- Every field that is read has its type checked; fields that are not read are ignored.
- A body with a non-null ``error`` is the server's error, whatever else it holds.

Shape errors raise ``ShapeError`` naming the field; the provider adds where, the status and
the raw bytes. ``parse_completion`` and ``parse_usage`` raise ``ProviderResponseError``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..errors import ProviderResponseError
from ..messages import ProviderResponse, ToolCall, Usage
from .error_text import clip, server_message

JSONObject = dict[str, Any]


class ShapeError(ValueError):
    """A completion or chunk that does not have the Chat Completions shape."""


class ServerErrorBody(ShapeError):
    """The body is the server's own ``{"error": ...}`` instead of a completion."""


def parse_completion(payload: Any, *, where: str = "openai") -> ProviderResponse:
    """A decoded ``chat.completion`` body as a ``ProviderResponse`` (``raw`` = payload).

    Raises ``ProviderResponseError`` (``raw`` = payload) when it is not a complete completion.
    """
    try:
        return read_completion(payload)
    except ShapeError as exc:
        raise ProviderResponseError(f"{where}: {exc}", raw=payload) from None


def read_completion(payload: Any) -> ProviderResponse:
    """``parse_completion`` raising ``ShapeError``."""
    assembler = Assembler()
    assembler.add_completion(payload)
    return assembler.response(raw=payload)


def parse_usage(usage: Any) -> Usage:
    """OpenAI ``usage`` (prompt/completion/total tokens) as a ``Usage``; zeros when absent.

    Raises ``ProviderResponseError`` when it is not an object of non-negative integer counts.
    """
    try:
        return read_usage(usage)
    except ShapeError as exc:
        raise ProviderResponseError(str(exc), raw=usage) from None


def read_usage(usage: Any) -> Usage:
    """``parse_usage`` raising ``ShapeError``."""
    if usage is None:
        return Usage()
    if not isinstance(usage, dict):
        raise ShapeError(f"usage is {clip(usage)}, expected an object")
    counts: dict[str, int | None] = {}
    for key in ("prompt_tokens", "completion_tokens", "total_tokens"):
        value = usage.get(key)
        if value is not None and (not _is_int(value) or value < 0):
            raise ShapeError(f"usage.{key} is {clip(value)}, expected a non-negative integer")
        counts[key] = value
    input_tokens = counts["prompt_tokens"] or 0
    output_tokens = counts["completion_tokens"] or 0
    total = counts["total_tokens"]
    return Usage(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        total_tokens=total if total is not None else input_tokens + output_tokens,
    )


@dataclass
class _Call:
    """One tool call as its pieces arrive: id and name once, arguments in pieces."""

    index: int
    id: str = ""
    name: str = ""
    pieces: list[str] = field(default_factory=list)
    obj: JSONObject | None = None


class Assembler:
    """Folds a completion, or stream chunks one by one, into one ``ProviderResponse``."""

    def __init__(self) -> None:
        self.finish_reason: str | None = None
        self._text: list[str] = []
        self._calls: list[_Call] = []
        self._latest: dict[int, _Call] = {}  # the call a delta without a new id continues
        self._usage: Usage | None = None

    def add_completion(self, payload: Any) -> None:
        """Fold a whole ``chat.completion`` body (its tool calls are complete, by position)."""
        body = _object_body(payload)
        choices = body.get("choices")
        if choices is None or choices == []:
            raise ShapeError("response has no choices")
        self._fold(body, "message")

    def add_chunk(self, chunk: Any) -> str:
        """Fold one ``chat.completion.chunk``; return its text ("" when it carries none)."""
        return self._fold(_object_body(chunk), "delta")

    def response(self, raw: Any) -> ProviderResponse:
        """The folded response, once a finish reason arrived."""
        if self.finish_reason is None:
            raise ShapeError("choices[0] has no finish_reason: the response is incomplete")
        calls: list[ToolCall] = []
        ids: set[str] = set()
        for position, call in enumerate(self._calls):
            if not call.name:
                raise ShapeError(f"tool call {call.index} has no function name")
            call_id = call.id or f"call_{position}"
            if call_id in ids:
                raise ShapeError(f"two tool calls have the id {call_id!r}")
            ids.add(call_id)
            arguments, raw_arguments = _arguments(call)
            calls.append(
                ToolCall(
                    id=call_id, name=call.name, arguments=arguments, raw_arguments=raw_arguments
                )
            )
        return ProviderResponse(
            content="".join(self._text) or None,
            tool_calls=calls,
            finish_reason=self.finish_reason,
            usage=self._usage or Usage(),
            raw=raw,
        )

    def _fold(self, body: JSONObject, key: str) -> str:
        if "usage" in body:
            usage = read_usage(body["usage"])
            if body["usage"] is not None:
                self._usage = usage
        choices = body.get("choices")
        if choices is None:
            return ""
        if not isinstance(choices, list):
            raise ShapeError(f"choices is {clip(choices)}, expected a list")
        return "".join(
            self._choice(choice, position, key) for position, choice in enumerate(choices)
        )

    def _choice(self, choice: Any, position: int, key: str) -> str:
        if not isinstance(choice, dict):
            raise ShapeError(f"choices[{position}] is {clip(choice)}, expected an object")
        index = choice.get("index")
        index = position if index is None else index
        if not _is_int(index):
            raise ShapeError(f"choices[{position}].index is {clip(index)}, expected an integer")
        if index != 0:
            raise ShapeError(f"choice index {index} arrived, but one choice was asked for")
        finish_reason = choice.get("finish_reason")
        if finish_reason is not None and not isinstance(finish_reason, str):
            raise ShapeError(f"finish_reason is {clip(finish_reason)}, expected a string")
        message = choice.get(key)
        if message is None and key == "delta":
            message = {}  # a finish-only chunk may carry no delta
        if not isinstance(message, dict):
            raise ShapeError(f"choices[{position}].{key} is {clip(message)}, expected an object")
        text = _content(message.get("content"))
        calls = message.get("tool_calls")
        if calls is not None and not isinstance(calls, list):
            raise ShapeError(f"tool_calls is {clip(calls)}, expected a list")
        for call_position, call in enumerate(calls or []):
            self._call(call, call_position, streamed=key == "delta")
        if text:
            self._text.append(text)
        if finish_reason:
            self.finish_reason = finish_reason
        return text

    def _call(self, delta: Any, position: int, *, streamed: bool) -> None:
        if not isinstance(delta, dict):
            raise ShapeError(f"tool_calls[{position}] is {clip(delta)}, expected an object")
        index = delta.get("index") if streamed else None
        index = position if index is None else index
        if not _is_int(index):
            raise ShapeError(f"tool_calls[{position}].index is {clip(index)}, expected an integer")
        call_id = _optional_str(delta.get("id"), f"tool call {index} id")
        function = delta.get("function")
        function = {} if function is None else function
        if not isinstance(function, dict):
            raise ShapeError(f"tool call {index} function is {clip(function)}, expected an object")
        name = _optional_str(function.get("name"), f"tool call {index} function.name")
        arguments = function.get("arguments")
        if arguments is not None and not isinstance(arguments, (str, dict)):
            raise ShapeError(
                f"tool call {index} function.arguments is {clip(arguments)}, "
                "expected a string of JSON or an object"
            )
        call = self._latest.get(index) if streamed else None
        if call is None or (call_id and call.id and call_id != call.id):
            call = _Call(index)
            self._calls.append(call)
            self._latest[index] = call
        call.id = call_id or call.id
        if name and call.name and name != call.name:
            raise ShapeError(f"tool call {index} was named {call.name!r}, then {name!r}")
        call.name = name or call.name
        if isinstance(arguments, dict) and (call.pieces or call.obj is not None):
            raise ShapeError(f"tool call {index} sent arguments as an object after other pieces")
        if isinstance(arguments, str) and arguments and call.obj is not None:
            raise ShapeError(f"tool call {index} sent arguments text after an arguments object")
        if isinstance(arguments, dict):
            call.obj = arguments
        elif arguments:
            call.pieces.append(arguments)


def _object_body(payload: Any) -> JSONObject:
    if not isinstance(payload, dict):
        raise ShapeError(f"expected a JSON object, got {clip(payload)}")
    if payload.get("error") is not None:
        raise ServerErrorBody(server_message(payload) or clip(payload["error"]))
    return payload


def _content(value: Any) -> str:
    if value is None or isinstance(value, str):
        return value or ""
    if not isinstance(value, list):
        raise ShapeError(
            f"content is {clip(value)}, expected a string, a list of text parts or null"
        )
    texts = []
    for position, part in enumerate(value):
        text = part.get("text") if isinstance(part, dict) and part.get("type") == "text" else None
        if not isinstance(text, str):
            raise ShapeError(
                f'content[{position}] is {clip(part)}, expected a text part {{"type": "text", '
                '"text": "..."}'
            )
        texts.append(text)
    return "".join(texts)


def _arguments(call: _Call) -> tuple[JSONObject, str | None]:
    """The call's arguments, and its raw text when that text is not a JSON object."""
    if call.obj is not None:
        return call.obj, None
    text = "".join(call.pieces)
    if not text.strip():
        return {}, None
    try:
        decoded = json.loads(text)
    except (ValueError, RecursionError):
        return {}, text
    return (decoded, None) if isinstance(decoded, dict) else ({}, text)


def _optional_str(value: Any, what: str) -> str:
    if value is not None and not isinstance(value, str):
        raise ShapeError(f"{what} is {clip(value)}, expected a string")
    return value or ""


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


__all__ = [
    "Assembler",
    "ServerErrorBody",
    "ShapeError",
    "parse_completion",
    "parse_usage",
    "read_completion",
    "read_usage",
]
