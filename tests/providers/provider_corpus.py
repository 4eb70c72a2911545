"""A corpus of OpenAI-compatible answers, well-formed and malformed, for a loopback server.

Each ``Case`` holds the reply served to ``complete()`` (``json``) and the one served to
``stream()`` (``sse``), either of which may be absent, and what must come of them: a
``ProviderResponse`` that is exactly right, or a ``Failure`` (a typed error with the status,
a message fragment and the raw bytes). A case with both replies is one answer in its two
shapes, and the two paths must agree on it. The generators below cover each class; the
well-formed baselines are built with the official ``openai`` package's types, so they have
the shapes OpenAI itself sends.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from openai.types.chat import ChatCompletion, ChatCompletionChunk, ChatCompletionMessage
from openai.types.chat.chat_completion import Choice
from openai.types.chat.chat_completion_chunk import Choice as ChunkChoice
from openai.types.chat.chat_completion_chunk import (
    ChoiceDelta,
    ChoiceDeltaToolCall,
    ChoiceDeltaToolCallFunction,
)
from openai.types.chat.chat_completion_message_tool_call import (
    ChatCompletionMessageToolCall,
    Function,
)
from openai.types.completion_usage import CompletionUsage
from wire_server import (
    Reply,
    hang,
    json_reply,
    keepalives,
    raw_reply,
    raw_sse,
    sse_reply,
    trickle,
)

from agenthooks.errors import (
    ProviderConnectionError,
    ProviderError,
    ProviderHTTPError,
    ProviderResponseError,
    ProviderTimeout,
)
from agenthooks.messages import ProviderResponse, ToolCall, Usage

JSON = dict[str, Any]
UNSET: Any = object()
TIMEOUT = 0.2  # the provider's timeout in the timing cases: the whole response gets 0.6 s


@dataclass(frozen=True)
class Failure:
    """A typed error: exactly ``error``, with ``status``, a message containing ``says``, and
    ``raw`` equal to the body sent (``"body"``) or to a prefix of it (``"prefix"``: the
    answer was cut short or never finished). A stream stops at the event that failed, so
    there ``raw`` is the body up to that event at least: a prefix, never empty."""

    error: type[ProviderError]
    says: str
    status: int | None = 200
    raw: Literal["body", "prefix"] = "body"
    says_streamed: str | None = None  # the stream's wording, when it differs

    def fragment(self, path: str) -> str:
        """What the error message must contain on ``path`` ("json" or "sse")."""
        return self.says_streamed if path == "sse" and self.says_streamed else self.says


@dataclass(frozen=True)
class Case:
    """One answer, its replies for each path and the outcome both must reach."""

    name: str
    kind: str
    expect: ProviderResponse | Failure
    json: Reply | None = None
    sse: Reply | None = None
    sse_raw: Any = UNSET  # the streamed response's raw: its decoded chunks, when known
    timeout: float = 2.0

    @property
    def paths(self) -> list[tuple[str, Reply]]:
        """The (path, reply) pairs this case serves."""
        return [(path, r) for path, r in (("json", self.json), ("sse", self.sse)) if r]


@dataclass
class _Calls:
    """Tool calls in both shapes: complete (a completion) and as deltas with an index."""

    message: list[Any] = field(default_factory=list)
    deltas: list[Any] = field(default_factory=list)


def ok(
    content: str | None = None,
    calls: list[ToolCall] | None = None,
    finish: str = "stop",
    usage: tuple[int, int, int] | None = (12, 3, 15),
) -> ProviderResponse:
    """The response a case must give (``raw`` is checked apart)."""
    tokens = Usage()
    if usage is not None:
        tokens = Usage(input_tokens=usage[0], output_tokens=usage[1], total_tokens=usage[2])
    return ProviderResponse(
        content=content, tool_calls=calls or [], finish_reason=finish, usage=tokens
    )


def call(id: str, name: str, arguments: dict[str, Any], raw: str | None = None) -> ToolCall:
    """An expected tool call."""
    return ToolCall(id=id, name=name, arguments=arguments, raw_arguments=raw)


def bad(says: str) -> Failure:
    """A malformed answer: ``ProviderResponseError`` with status 200."""
    return Failure(ProviderResponseError, says)


# ------------------------------------------------------------- openai-typed baselines

_HEAD: JSON = {"id": "chatcmpl-corpus", "created": 1700000000, "model": "test-model"}
USAGE: JSON = {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15}


def typed_completion(
    content: str | None,
    calls: list[tuple[str, str, str]] = (),  # type: ignore[assignment]
    finish: Any = "stop",
    usage: bool = True,
) -> JSON:
    """A ``chat.completion`` body built with the ``openai`` types (every null field sent)."""
    tool_calls = [
        ChatCompletionMessageToolCall(
            id=id, type="function", function=Function(name=name, arguments=arguments)
        )
        for id, name, arguments in calls
    ]
    message = ChatCompletionMessage(
        role="assistant", content=content, tool_calls=tool_calls or None
    )
    return ChatCompletion(
        **_HEAD,
        object="chat.completion",
        choices=[Choice(index=0, message=message, finish_reason=finish, logprobs=None)],
        usage=CompletionUsage(**USAGE) if usage else None,
    ).model_dump(mode="json")


def typed_chunks(
    pieces: list[str] = (),  # type: ignore[assignment]
    calls: list[tuple[int, str | None, str | None, str | None]] = (),  # type: ignore[assignment]
    finish: Any = "stop",
    usage: bool = True,
) -> list[JSON]:
    """A stream built with the ``openai`` types: a role chunk, one chunk per text piece and
    per tool-call delta ``(index, id, name, arguments)``, the finish, then usage."""
    deltas = [ChoiceDelta(role="assistant", content="")]
    deltas += [ChoiceDelta(content=piece) for piece in pieces]
    for index, id, name, arguments in calls:
        function = ChoiceDeltaToolCallFunction(name=name, arguments=arguments)
        tool_call = ChoiceDeltaToolCall(
            index=index, id=id, type="function" if id else None, function=function
        )
        deltas.append(ChoiceDelta(tool_calls=[tool_call]))
    chunks = [
        ChatCompletionChunk(
            **_HEAD,
            object="chat.completion.chunk",
            choices=[ChunkChoice(index=0, delta=delta, finish_reason=None)],
        )
        for delta in deltas
    ]
    chunks.append(
        ChatCompletionChunk(
            **_HEAD,
            object="chat.completion.chunk",
            choices=[ChunkChoice(index=0, delta=ChoiceDelta(), finish_reason=finish)],
        )
    )
    if usage:
        chunks.append(
            ChatCompletionChunk(
                **_HEAD, object="chat.completion.chunk", choices=[], usage=CompletionUsage(**USAGE)
            )
        )
    return [chunk.model_dump(mode="json") for chunk in chunks]


def pair(name: str, kind: str, body: JSON, chunks: list[JSON], expect: ProviderResponse) -> Case:
    """A completion and a stream that must give the same response."""
    return Case(name, kind, expect, json_reply(body), sse_reply(chunks), sse_raw=chunks)


def well_formed() -> Iterator[Case]:
    """Baselines: each answer as OpenAI sends it, plain and streamed."""
    kind = "well-formed answers"
    yield pair(
        "plain text",
        kind,
        typed_completion("Hello there."),
        typed_chunks(["Hello", " there."]),
        ok("Hello there."),
    )
    yield pair(
        "unicode and escapes",
        kind,
        typed_completion('naïve 日本語 שלום 🎉\n\t"q"'),
        typed_chunks(["naïve 日本", "語 שלום 🎉", '\n\t"q"']),
        ok('naïve 日本語 שלום 🎉\n\t"q"'),
    )
    yield pair(
        "empty answer cut by length",
        kind,
        typed_completion("", finish="length", usage=False),
        typed_chunks([], finish="length", usage=False),
        ok(None, finish="length", usage=None),
    )
    yield pair(
        "content filter, no content",
        kind,
        typed_completion(None, finish="content_filter"),
        typed_chunks([], finish="content_filter"),
        ok(None, finish="content_filter"),
    )
    weather = ("call_a", "get_weather", '{"city": "Paris", "days": 2}')
    yield pair(
        "one tool call",
        kind,
        typed_completion(None, [weather], finish="tool_calls"),
        typed_chunks(
            [], [(0, "call_a", "get_weather", ""), (0, None, None, weather[2])], "tool_calls"
        ),
        ok(None, [call("call_a", "get_weather", {"city": "Paris", "days": 2})], "tool_calls"),
    )
    nested = '{"filter": {"tags": ["a", null], "min": 1.5, "deep": {"x": [[]]}}, "on": true}'
    yield pair(
        "text and two parallel calls, nested arguments",
        kind,
        typed_completion("Checking.", [weather, ("call_b", "search", nested)], "tool_calls"),
        typed_chunks(
            ["Checking."],
            [
                (0, "call_a", "get_weather", ""),
                (1, "call_b", "search", ""),
                (0, None, None, '{"city": "Paris", '),
                (1, None, None, nested[:20]),
                (0, None, None, '"days": 2}'),
                (1, None, None, nested[20:]),
            ],
            "tool_calls",
        ),
        ok(
            "Checking.",
            [
                call("call_a", "get_weather", {"city": "Paris", "days": 2}),
                call("call_b", "search", json.loads(nested)),
            ],
            "tool_calls",
        ),
    )
    yield pair(
        "a call with empty arguments",
        kind,
        typed_completion(None, [("call_n", "now", "")], finish="tool_calls"),
        typed_chunks([], [(0, "call_n", "now", "")], "tool_calls"),
        ok(None, [call("call_n", "now", {})], "tool_calls"),
    )
    letters = '{"text": "arguments one character at a time"}'
    yield pair(
        "arguments streamed one character at a time",
        kind,
        typed_completion(None, [("call_s", "say", letters)], finish="tool_calls"),
        typed_chunks(
            [], [(0, "call_s", "say", "")] + [(0, None, None, c) for c in letters], "tool_calls"
        ),
        ok(None, [call("call_s", "say", json.loads(letters))], "tool_calls"),
    )


# ------------------------------------------------------- the same answer in both shapes


def twin(
    name: str,
    kind: str,
    expect: ProviderResponse | Failure,
    *,
    message: Any = UNSET,
    calls: _Calls | None = None,
    finish: Any = "stop",
    usage: Any = USAGE,
    choice: JSON | None = None,
    top: JSON | None = None,
) -> Case:
    """One answer as a completion body and as a stream (the message as one delta, a finish
    chunk, a usage chunk). ``choice`` and ``top`` add or replace fields of the choice and of
    the body (the stream's first chunk)."""
    if message is UNSET:
        message = {"role": "assistant", "content": "ok"}
    delta = message
    if calls is not None:
        message = {"role": "assistant", "content": None, "tool_calls": calls.message}
        delta = {"role": "assistant", "tool_calls": calls.deltas}
    body = {
        **_HEAD,
        "object": "chat.completion",
        "choices": [{"index": 0, "message": message, "finish_reason": finish, **(choice or {})}],
        "usage": usage,
        **(top or {}),
    }
    head = {**_HEAD, "object": "chat.completion.chunk"}
    first = {
        **head,
        "choices": [{"index": 0, "delta": delta, "finish_reason": None, **(choice or {})}],
        **(top or {}),
    }
    last = {**head, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}
    chunks = [first, last, {**head, "choices": [], "usage": usage}]
    return Case(name, kind, expect, json_reply(body), sse_reply(chunks), sse_raw=chunks)


def calls(*entries: Any) -> _Calls:
    """Tool calls for ``twin``; a dict entry gets its position as the delta's ``index``."""
    deltas = [{"index": i, **e} if isinstance(e, dict) else e for i, e in enumerate(entries)]
    return _Calls(list(entries), deltas)


def function(name: Any = "lookup", arguments: Any = '{"key": 1}', id: Any = "call_1") -> JSON:
    """One complete tool call."""
    return {"id": id, "type": "function", "function": {"name": name, "arguments": arguments}}


def lenient() -> Iterator[Case]:
    """Shapes compatible servers send that are read, the same way on both paths."""
    kind = "compatible variants"
    parts = [{"type": "text", "text": "Hello "}, {"type": "text", "text": "there."}]
    yield twin("content as text parts", kind, ok("Hello there."), message={"content": parts})
    yield twin("empty list of parts", kind, ok(None), message={"content": []})
    yield twin(
        "object-shaped arguments kept as given",
        kind,
        ok(None, [call("call_1", "lookup", {"key": {"deep": [1]}})], "tool_calls"),
        calls=calls(function(arguments={"key": {"deep": [1]}})),
        finish="tool_calls",
    )
    yield twin(
        "null arguments",
        kind,
        ok(None, [call("call_1", "lookup", {})], "tool_calls"),
        calls=calls(function(arguments=None)),
        finish="tool_calls",
    )
    yield twin(
        "calls without ids",
        kind,
        ok(None, [call("call_0", "a", {}), call("call_1", "b", {"x": 1})], "tool_calls"),
        calls=calls(function("a", "{}", id=None), function("b", '{"x": 1}', id=None)),
        finish="tool_calls",
    )
    yield twin(
        "unknown fields everywhere",
        kind,
        ok("ok"),
        message={"role": "assistant", "content": "ok", "reasoning_content": "hm", "x": [1]},
        choice={"logprobs": None, "stop_reason": 42},
        top={"system_fingerprint": "fp", "service_tier": "default", "prompt_filter_results": []},
    )
    yield twin(
        "usage without total",
        kind,
        ok("ok", usage=(12, 3, 15)),
        usage={"prompt_tokens": 12, "completion_tokens": 3},
    )
    yield twin("null usage", kind, ok("ok", usage=None), usage=None)
    yield twin(
        "null error field",
        kind,
        ok("ok"),
        top={"error": None},
    )


def model_mistakes() -> Iterator[Case]:
    """Argument text that is not a JSON object: the call is kept with its raw text."""
    kind = "model's argument mistakes"
    for label, text in [
        ("not JSON", '{"key": '),
        ("a JSON list", "[1, 2]"),
        ("a JSON string", '"Paris"'),
        ("JSON null", "null"),
        ("a Python dict", "{'key': 1}"),
        ("trailing text", '{"key": 1} thanks'),
        ("deep nesting", "[" * 100_000),
    ]:
        yield twin(
            f"arguments {label}",
            kind,
            ok(None, [call("call_1", "lookup", {}, raw=text)], "tool_calls"),
            calls=calls(function(arguments=text)),
            finish="tool_calls",
        )
    yield twin(
        "whitespace arguments read as none",
        kind,
        ok(None, [call("call_1", "lookup", {})], "tool_calls"),
        calls=calls(function(arguments="  \n ")),
        finish="tool_calls",
    )


def malformed_fields() -> Iterator[Case]:
    """Every field read, with a value of the wrong shape: a typed error naming it."""
    kind = "malformed fields"
    for value, shown in [(1, "1"), ("abc", '"abc"'), ({"0": {}}, '{"0": {}}'), (True, "true")]:
        yield twin(
            f"choices {shown}",
            kind,
            bad(f"choices is {shown}, expected a list"),
            top={"choices": value},
        )
    for value, shown in [(1, "1"), ("x", '"x"'), (None, "null")]:
        yield twin(
            f"choice {shown}",
            kind,
            bad(f"choices[0] is {shown}, expected an object"),
            top={"choices": [value]},
        )
    for value, shown in [("0", '"0"'), (True, "true"), (1.5, "1.5"), ([0], "[0]")]:
        yield twin(
            f"choice index {shown}",
            kind,
            bad(f"choices[0].index is {shown}, expected an integer"),
            choice={"index": value},
        )
    yield twin(
        "a second choice",
        kind,
        bad("choice index 1 arrived, but one choice was asked for"),
        choice={"index": 1},
    )
    for value, shown in [("hi", '"hi"'), (5, "5"), ([], "[]")]:
        yield twin(
            f"message {shown}",
            kind,
            Failure(
                ProviderResponseError,
                f"choices[0].message is {shown}, expected an object",
                says_streamed=f"choices[0].delta is {shown}, expected an object",
            ),
            message=value,
        )
    for value, shown in [(5, "5"), ({"text": "x"}, '{"text": "x"}'), (True, "true")]:
        yield twin(
            f"content {shown}",
            kind,
            bad(f"content is {shown}, expected a string, a list of text parts or null"),
            message={"content": value},
        )
    part = '{"type": "text", "text": "..."}'
    image = {"type": "image_url", "image_url": {"url": "x"}}
    for value, shown in [
        (5, "5"),
        (image, json.dumps(image)),
        ({"type": "text", "text": 5}, '{"type": "text", "text": 5}'),
        ({"type": "text"}, '{"type": "text"}'),
    ]:
        yield twin(
            f"content part {shown}",
            kind,
            bad(f"content[0] is {shown}, expected a text part {part}"),
            message={"content": [value]},
        )
    for value, shown in [(5, "5"), (["stop"], '["stop"]')]:
        yield twin(
            f"finish_reason {shown}",
            kind,
            bad(f"finish_reason is {shown}, expected a string"),
            finish=value,
        )
    for value, shown in [("x", '"x"'), ({"0": {}}, '{"0": {}}')]:
        yield twin(
            f"tool_calls {shown}",
            kind,
            bad(f"tool_calls is {shown}, expected a list"),
            message={"content": None, "tool_calls": value},
            finish="tool_calls",
        )
    yield twin(
        "tool call 1",
        kind,
        bad("tool_calls[0] is 1, expected an object"),
        calls=calls(1),
        finish="tool_calls",
    )
    for value, shown in [(5, "5"), ({}, "{}")]:
        yield twin(
            f"tool call id {shown}",
            kind,
            bad(f"tool call 0 id is {shown}, expected a string"),
            calls=calls(function(id=value)),
            finish="tool_calls",
        )
    for value, shown in [("x", '"x"'), (5, "5")]:
        yield twin(
            f"function {shown}",
            kind,
            bad(f"tool call 0 function is {shown}, expected an object"),
            calls=calls({"id": "call_1", "type": "function", "function": value}),
            finish="tool_calls",
        )
    for value, shown in [(5, "5"), (["a"], '["a"]'), ({}, "{}")]:
        yield twin(
            f"function.name {shown}",
            kind,
            bad(f"tool call 0 function.name is {shown}, expected a string"),
            calls=calls(function(name=value)),
            finish="tool_calls",
        )
    yield twin(
        "a call without a name",
        kind,
        bad("tool call 0 has no function name"),
        calls=calls(function(name=None)),
        finish="tool_calls",
    )
    for value, shown in [(5, "5"), ([1], "[1]"), (True, "true")]:
        yield twin(
            f"arguments {shown}",
            kind,
            bad(
                f"tool call 0 function.arguments is {shown}, expected a string of JSON or an object"
            ),
            calls=calls(function(arguments=value)),
            finish="tool_calls",
        )
    yield twin(
        "two calls with one id",
        kind,
        bad("two tool calls have the id 'call_1'"),
        calls=calls(function("a"), function("b")),
        finish="tool_calls",
    )
    for value, shown in [
        ("x", '"x"'),
        (5, "5"),
        ({"prompt_tokens": "12"}, '"12"'),
        ({"completion_tokens": -1}, "-1"),
        ({"total_tokens": 1.5}, "1.5"),
        ({"prompt_tokens": True}, "true"),
    ]:
        field_name = next(iter(value)) if isinstance(value, dict) else None
        says = (
            f"usage.{field_name} is {shown}, expected a non-negative integer"
            if field_name
            else f"usage is {shown}, expected an object"
        )
        yield twin(f"usage {json.dumps(value)}", kind, bad(says), usage=value)


def server_errors() -> Iterator[Case]:
    """The server's own error object in a 200 answer, at the start or mid-stream."""
    kind = "server error bodies"
    for error, says in [
        ({"message": "model overloaded", "type": "server_error"}, "model overloaded"),
        ("overloaded", "overloaded"),
        ({"code": 500}, '{"code": 500}'),
    ]:
        failure = Failure(
            ProviderResponseError,
            f"server sent an error instead of a completion: {says}",
            says_streamed=f"server sent an error mid-stream: {says}",
        )
        yield twin(f"error {json.dumps(error)}", kind, failure, top={"error": error})
    mid = sse_reply([{"choices": [{"index": 0, "delta": {"content": "par"}}]}, {"error": "boom"}])
    yield Case("error after some text", kind, bad("server sent an error mid-stream: boom"), sse=mid)
    yield Case(
        "an error event",
        kind,
        bad("server sent an error mid-stream: quota exceeded"),
        sse=raw_sse('event: error\ndata: {"error": {"message": "quota exceeded"}}\n\n'),
    )
    yield Case(
        "an error event in plain text",
        kind,
        bad("server sent an error mid-stream: upstream reset"),
        sse=raw_sse("event: error\ndata: upstream reset\n\n"),
    )
    yield Case(
        "a JSON error where a stream belongs",
        kind,
        bad("stream ended without any event; the body was: rate limited"),
        sse=raw_sse('{"error": {"message": "rate limited"}}\n'),
    )


def http_statuses() -> Iterator[Case]:
    """Every status other than 2xx is an HTTP error with the server's message; redirects are
    not followed."""
    kind = "HTTP statuses"
    elsewhere = "https://elsewhere.example/v1/chat/completions"
    for status, reason in [
        (301, "Moved Permanently"),
        (302, "Found"),
        (307, "Temporary Redirect"),
        (308, "Permanent Redirect"),
    ]:
        reply = Reply(status=status, headers={"Location": elsewhere}, content_type=None)
        says = f"HTTP {status}: {reason} (a redirect to {elsewhere}, not followed: check base_url)"
        yield Case(
            f"{status} redirect", kind, Failure(ProviderHTTPError, says, status), reply, reply
        )
    for status, body, says in [
        (
            400,
            {"error": {"message": "Invalid 'messages'", "type": "invalid_request_error"}},
            "Invalid 'messages'",
        ),
        (401, {"error": {"message": "Incorrect API key provided"}}, "Incorrect API key provided"),
        (404, {"detail": "Not Found"}, "Not Found"),
        (429, {"error": {"message": "Rate limit reached"}}, "Rate limit reached"),
        (500, {"message": "internal"}, "internal"),
    ]:
        reply = json_reply(body, status)
        failure = Failure(ProviderHTTPError, f"HTTP {status}: {says}", status)
        yield Case(f"{status} with a JSON message", kind, failure, reply, reply)
    text = raw_reply("upstream unavailable", 503, "text/plain")
    failure = Failure(ProviderHTTPError, "HTTP 503: upstream unavailable", 503)
    yield Case("503 in plain text", kind, failure, text, text)
    empty = raw_reply(b"", 502)
    yield Case(
        "502 with no body", kind, Failure(ProviderHTTPError, "HTTP 502: Status", 502), empty, empty
    )
    no_content = Reply(status=204, content_type=None)
    failure = Failure(ProviderResponseError, "HTTP 204 with an empty body", 204)
    yield Case("204 no content", kind, failure, no_content, no_content)


def framing() -> Iterator[Case]:
    """Bodies that are not a completion at all."""
    kind = "body framing"
    sse_empty = raw_sse()
    yield Case("empty 200", kind, bad("HTTP 200 with an empty body"), raw_reply(b""), sse_empty)
    yield Case(
        "blank 200", kind, bad("HTTP 200 with an empty body"), raw_reply(b" \n "), raw_sse(" \n ")
    )
    for label, text in [
        ("truncated JSON", '{"choices": [ oops'),
        ("trailing text", '{"choices": []} and more'),
        ("deep nesting", "[" * 100_000),
        ("a 5000-digit number", "1" * 5000),
    ]:
        try:
            json.loads(text)
        except (ValueError, RecursionError) as exc:
            reason = str(exc)
        failure = Failure(
            ProviderResponseError,
            f"response is not valid JSON ({reason})",
            says_streamed=f"stream chunk is not valid JSON ({reason})",
        )
        yield Case(label, kind, failure, raw_reply(text), raw_sse(f"data: {text}\n\n"))
    for value in [[1, 2], "text", 5, None]:
        shown = json.dumps(value)
        yield Case(
            f"top-level {shown}",
            kind,
            bad(f"expected a JSON object, got {shown}"),
            json_reply(value),
            raw_sse(f"data: {shown}\n\n"),
        )
    yield Case(
        "a body that is not UTF-8",
        kind,
        bad("response is not valid JSON ('utf-8' codec can't decode byte 0xff in position 12"),
        json=raw_reply(b'{"content": \xff}'),
    )
    yield Case(
        "a stream that is not UTF-8",
        kind,
        bad("stream is not UTF-8 text ('utf-8' codec can't decode byte 0xff in position 13"),
        sse=raw_sse(b'data: {"a": "\xff"}\n\n'),
    )
    yield Case(
        "an HTML page",
        kind,
        bad("response is not valid JSON (Expecting value: line 1 column 1 (char 0)): <html>"),
        json=raw_reply("<html>gateway</html>", content_type="text/html"),
    )
    gzip = Reply(parts=[b"not gzip at all"], headers={"Content-Encoding": "gzip"})
    stream_gzip = Reply(
        parts=[b"not gzip at all"],
        headers={"Content-Encoding": "gzip"},
        content_type="text/event-stream",
    )
    failure = Failure(ProviderResponseError, "undecodable body (DecodingError", raw="prefix")
    yield Case("broken gzip", kind, failure, gzip, stream_gzip)
    yield Case(
        "no choices",
        kind,
        bad("response has no choices"),
        json=json_reply({**_HEAD, "object": "chat.completion", "choices": []}),
    )
    yield Case(
        "no finish reason",
        kind,
        bad("choices[0] has no finish_reason: the response is incomplete"),
        json=json_reply(_unfinished(typed_completion("half an ans"))),
    )


def _unfinished(body: JSON) -> JSON:
    body["choices"][0]["finish_reason"] = None
    return body


def _events(chunks: list[JSON], newline: str = "\n", done: bool = True) -> list[str]:
    datas = [json.dumps(chunk) for chunk in chunks] + (["[DONE]"] if done else [])
    return [f"data: {data}{newline}{newline}" for data in datas]


def sse_framing() -> Iterator[Case]:
    """Ways of framing one well-formed stream; each gives exactly the plain answer."""
    kind = "SSE framing"
    chunks = typed_chunks(["Hello", " there."])
    expect = ok("Hello there.")
    plain = json_reply(typed_completion("Hello there."))

    def case(name: str, reply: Reply) -> Case:
        return Case(name, kind, expect, plain, reply, sse_raw=chunks)

    yield case("CRLF line endings", raw_sse(*_events(chunks, "\r\n")))
    yield case("CR line endings", raw_sse(*_events(chunks, "\r")))
    yield case(
        "CRLF split between reads",
        raw_sse(*(p for e in _events(chunks, "\r\n") for p in (e[:-3], e[-3:]))),
    )
    yield case("comments and keepalives", raw_sse(*(": ping\n\n" + e for e in _events(chunks))))
    yield case("a byte order mark", raw_sse("\ufeff" + _events(chunks)[0], *_events(chunks)[1:]))
    yield case(
        "data: without a space", raw_sse(*(e.replace("data: ", "data:") for e in _events(chunks)))
    )
    yield case(
        "data split over lines",
        raw_sse(*(e.replace(", ", ",\ndata: ", 1) if "{" in e else e for e in _events(chunks))),
    )
    yield case("every event in one read", raw_sse("".join(_events(chunks))))
    body = "".join(_events(chunks)).encode()
    yield case("one byte per read", raw_sse(*(body[i : i + 1] for i in range(len(body)))))
    yield case(
        "id, retry and event fields",
        raw_sse("retry: 100\n\n", *("id: 7\nevent: message\n" + e for e in _events(chunks))),
    )
    yield case("no [DONE], a clean end", raw_sse(*_events(chunks, done=False)))
    last = _events(chunks, done=False)
    yield case("no blank line after the last event", raw_sse(*last[:-1], last[-1].rstrip("\n")))
    yield case("events after [DONE] are ignored", raw_sse(*_events(chunks), 'data: {"x": 1}\n\n'))
    yield case("no content type", replace_content_type(raw_sse(*_events(chunks)), None))
    yield Case(
        "a JSON completion to a stream request",
        kind,
        expect,
        plain,
        json_reply(typed_completion("Hello there.")),
        sse_raw=typed_completion("Hello there."),
    )
    azure = [{**_HEAD, "object": "", "choices": [], "prompt_filter_results": [{"prompt_index": 0}]}]
    yield Case(
        "a prelude chunk with no choices",
        kind,
        expect,
        plain,
        raw_sse(*_events(azure + chunks)),
        sse_raw=azure + chunks,
    )


def replace_content_type(reply: Reply, content_type: str | None) -> Reply:
    """``reply`` with another Content-Type (``None``: no such header)."""
    reply.content_type = content_type
    return reply


def _delta_chunk(*tool_calls: JSON, finish: str | None = None) -> JSON:
    delta = {"tool_calls": list(tool_calls)} if tool_calls else {}
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return {**_HEAD, "object": "chat.completion.chunk", "choices": [choice]}


def tool_call_assembly() -> Iterator[Case]:
    """How streamed tool-call deltas fold into calls; plain twins where one exists."""
    kind = "streamed tool calls"
    a = {"id": "call_a", "type": "function", "function": {"name": "first", "arguments": '{"n": 1}'}}
    b = {
        "id": "call_b",
        "type": "function",
        "function": {"name": "second", "arguments": '{"n": 2}'},
    }
    both = [call("call_a", "first", {"n": 1}), call("call_b", "second", {"n": 2})]
    plain = json_reply(
        typed_completion(
            None, [("call_a", "first", '{"n": 1}'), ("call_b", "second", '{"n": 2}')], "tool_calls"
        )
    )

    def stream(*chunks: JSON) -> tuple[Reply, list[JSON]]:
        chunk_list = [*chunks, _delta_chunk(finish="tool_calls")]
        return sse_reply(chunk_list), chunk_list

    def case(
        name: str, expect: ProviderResponse | Failure, *chunks: JSON, json: Reply | None = None
    ) -> Case:
        reply, chunk_list = stream(*chunks)
        return Case(name, kind, expect, json, reply, sse_raw=chunk_list)

    expect = ok(None, both, "tool_calls", usage=None)
    yield case(
        "a second call on a reused index is kept",
        expect,
        _delta_chunk({"index": 0, **a}),
        _delta_chunk({"index": 0, **b}),
        json=plain_no_usage(plain),
    )
    yield case(
        "the same id repeated continues the call",
        ok(None, [call("call_a", "first", {"n": 1})], "tool_calls", usage=None),
        _delta_chunk(
            {"index": 0, "id": "call_a", "function": {"name": "first", "arguments": '{"n"'}}
        ),
        _delta_chunk(
            {"index": 0, "id": "call_a", "function": {"name": "first", "arguments": ": 1}"}}
        ),
    )
    yield case(
        "no index: the position in the delta",
        expect,
        _delta_chunk(a, b),
        json=plain_no_usage(plain),
    )
    yield case(
        "indices out of order",
        ok(
            None,
            [call("call_b", "second", {"n": 2}), call("call_a", "first", {"n": 1})],
            "tool_calls",
            usage=None,
        ),
        _delta_chunk({"index": 1, **b}),
        _delta_chunk({"index": 0, **a}),
    )
    yield case(
        "an index that changes type",
        bad('tool_calls[0].index is "0", expected an integer'),
        _delta_chunk({"index": 0, "id": "call_a", "function": {"name": "first", "arguments": ""}}),
        _delta_chunk({"index": "0", "function": {"arguments": "{}"}}),
    )
    yield case(
        "an index of 1.5",
        bad("tool_calls[0].index is 1.5, expected an integer"),
        _delta_chunk({"index": 1.5, **a}),
    )
    yield case(
        "a name that changes without a new id",
        bad("tool call 0 was named 'first', then 'second'"),
        _delta_chunk({"index": 0, **a}),
        _delta_chunk({"index": 0, "function": {"name": "second"}}),
    )
    yield case(
        "an arguments object after text",
        bad("tool call 0 sent arguments as an object after other pieces"),
        _delta_chunk({"index": 0, "id": "call_a", "function": {"name": "f", "arguments": "{"}}),
        _delta_chunk({"index": 0, "function": {"arguments": {"n": 1}}}),
    )
    yield case(
        "arguments text after an object",
        bad("tool call 0 sent arguments text after an arguments object"),
        _delta_chunk(
            {"index": 0, "id": "call_a", "function": {"name": "f", "arguments": {"n": 1}}}
        ),
        _delta_chunk({"index": 0, "function": {"arguments": "}"}}),
    )
    yield case(
        "one id on two indices",
        bad("two tool calls have the id 'call_a'"),
        _delta_chunk({"index": 0, **a}),
        _delta_chunk({"index": 1, **{**b, "id": "call_a"}}),
    )


def plain_no_usage(reply: Reply) -> Reply:
    """A completion reply without its usage (the streamed twins above send none)."""
    body = json.loads(reply.body)
    body["usage"] = None
    return json_reply(body)


def incomplete() -> Iterator[Case]:
    """Streams that end before the answer is complete."""
    kind = "incomplete streams"
    text = [{**c} for c in typed_chunks(["Once upon", " a time"], usage=False)[:-1]]
    yield Case(
        "cut without finish or [DONE]",
        kind,
        bad(
            "stream ended without a finish_reason or [DONE] after 3 chunks: the response is incomplete"
        ),
        sse=sse_reply(text, done=False),
    )
    yield Case(
        "[DONE] without a finish reason",
        kind,
        bad("stream ended without a finish_reason after 3 chunks: the response is incomplete"),
        sse=sse_reply(text),
    )
    yield Case(
        "only comments",
        kind,
        bad("stream ended without any event; the body was: : ping"),
        sse=raw_sse(": ping\n\n", ": ping\n\n"),
    )
    yield Case(
        "only usage",
        kind,
        bad("stream ended without a finish_reason after 1 chunks: the response is incomplete"),
        sse=sse_reply([typed_chunks([])[-1]]),
    )
    yield Case(
        "plain text where a stream belongs",
        kind,
        bad("stream ended without any event; the body was: Service is starting"),
        sse=raw_sse("Service is starting\n"),
    )


def transport() -> Iterator[Case]:
    """Connections that drop, stall, never answer, keep alive forever or trickle."""
    kind = "transport and deadline"
    whole = f"no complete response within {3 * TIMEOUT:g}s"
    read = f"no answer within {TIMEOUT:g}s (ReadTimeout"

    def case(name: str, failure: Failure, json: Reply | None, sse: Reply | None) -> Case:
        return Case(name, kind, failure, json, sse, timeout=TIMEOUT)

    yield case("never answers", Failure(ProviderTimeout, read, None, "prefix"), hang(), hang())
    stalled = sse_reply([typed_chunks(["a"])[1]], done=False, end="stall")
    half = Reply(parts=[b'{"choices": '], chunked=True, end="stall")
    failure = Failure(ProviderTimeout, f"no more data within {TIMEOUT:g}s after", raw="prefix")
    yield case("stalls mid-body", failure, half, stalled)
    forever = keepalives(sse_reply([typed_chunks(["a"])[1]], done=False), 0.02)
    yield case("keepalives forever", Failure(ProviderTimeout, whole, raw="prefix"), None, forever)
    spaces = Reply(parts=[b"{"], chunked=True, forever=b" ", delay=0.02, end="stall")
    yield case(
        "JSON whitespace forever", Failure(ProviderTimeout, whole, raw="prefix"), spaces, None
    )
    long = "a fairly long answer, sent one byte at a time " * 8
    yield case(
        "trickled one byte at a time",
        Failure(ProviderTimeout, whole, raw="prefix"),
        trickle(json_reply(typed_completion(long)), 0.01),
        trickle(sse_reply(typed_chunks(long.split(" "))), 0.01),
    )
    dropped = Reply(parts=[b'{"choices": [{"index'], chunked=True, end="drop")
    yield case(
        "dropped mid-body",
        Failure(ProviderConnectionError, "connection dropped (RemoteProtocolError", raw="prefix"),
        dropped,
        None,
    )
    yield case(
        "dropped mid-stream",
        Failure(
            ProviderConnectionError,
            "connection dropped mid-stream after 2 chunks (RemoteProtocolError",
            raw="prefix",
        ),
        None,
        sse_reply(typed_chunks(["a"])[:2], done=False, end="drop"),
    )


def corpus() -> list[Case]:
    """Every case, class by class."""
    return [
        *well_formed(),
        *lenient(),
        *model_mistakes(),
        *malformed_fields(),
        *server_errors(),
        *http_statuses(),
        *framing(),
        *sse_framing(),
        *tool_call_assembly(),
        *incomplete(),
        *transport(),
    ]
