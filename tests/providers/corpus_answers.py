"""Corpus cases about the answer itself, in both shapes where it has both: well-formed
answers, the variants compatible servers send, the model's own argument mistakes, every
field with a value of the wrong shape, and the server's error objects."""

from __future__ import annotations

import json
from collections.abc import Iterator

from corpus_kit import (
    Case,
    Failure,
    bad,
    call,
    calls,
    function,
    ok,
    pair,
    twin,
    typed_chunks,
    typed_completion,
)
from wire_server import (
    raw_sse,
    sse_reply,
)

from agenthooks.errors import (
    ProviderResponseError,
)


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
