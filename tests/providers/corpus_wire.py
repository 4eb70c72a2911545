"""Corpus cases about the wire: HTTP statuses, bodies that are not a completion, SSE
framing, streamed tool-call deltas, streams that end early, and connections that drop,
stall, keep alive forever or trickle."""

from __future__ import annotations

import json
from collections.abc import Iterator

from corpus_kit import (
    HEAD,
    JSON,
    TIMEOUT,
    Case,
    Failure,
    bad,
    call,
    delta_chunk,
    ok,
    plain_no_usage,
    replace_content_type,
    sse_events,
    typed_chunks,
    typed_completion,
    unfinished,
)
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
    ProviderHTTPError,
    ProviderResponseError,
    ProviderTimeout,
)
from agenthooks.messages import ProviderResponse


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
        json=json_reply({**HEAD, "object": "chat.completion", "choices": []}),
    )
    yield Case(
        "no finish reason",
        kind,
        bad("choices[0] has no finish_reason: the response is incomplete"),
        json=json_reply(unfinished(typed_completion("half an ans"))),
    )


def sse_framing() -> Iterator[Case]:
    """Ways of framing one well-formed stream; each gives exactly the plain answer."""
    kind = "SSE framing"
    chunks = typed_chunks(["Hello", " there."])
    expect = ok("Hello there.")
    plain = json_reply(typed_completion("Hello there."))

    def case(name: str, reply: Reply) -> Case:
        return Case(name, kind, expect, plain, reply, sse_raw=chunks)

    yield case("CRLF line endings", raw_sse(*sse_events(chunks, "\r\n")))
    yield case("CR line endings", raw_sse(*sse_events(chunks, "\r")))
    yield case(
        "CRLF split between reads",
        raw_sse(*(p for e in sse_events(chunks, "\r\n") for p in (e[:-3], e[-3:]))),
    )
    yield case("comments and keepalives", raw_sse(*(": ping\n\n" + e for e in sse_events(chunks))))
    yield case(
        "a byte order mark", raw_sse("\ufeff" + sse_events(chunks)[0], *sse_events(chunks)[1:])
    )
    yield case(
        "data: without a space",
        raw_sse(*(e.replace("data: ", "data:") for e in sse_events(chunks))),
    )
    yield case(
        "data split over lines",
        raw_sse(*(e.replace(", ", ",\ndata: ", 1) if "{" in e else e for e in sse_events(chunks))),
    )
    yield case("every event in one read", raw_sse("".join(sse_events(chunks))))
    body = "".join(sse_events(chunks)).encode()
    yield case("one byte per read", raw_sse(*(body[i : i + 1] for i in range(len(body)))))
    yield case(
        "id, retry and event fields",
        raw_sse("retry: 100\n\n", *("id: 7\nevent: message\n" + e for e in sse_events(chunks))),
    )
    yield case("no [DONE], a clean end", raw_sse(*sse_events(chunks, done=False)))
    last = sse_events(chunks, done=False)
    yield case("no blank line after the last event", raw_sse(*last[:-1], last[-1].rstrip("\n")))
    yield case(
        "events after [DONE] are ignored", raw_sse(*sse_events(chunks), 'data: {"x": 1}\n\n')
    )
    yield case("no content type", replace_content_type(raw_sse(*sse_events(chunks)), None))
    yield Case(
        "a JSON completion to a stream request",
        kind,
        expect,
        plain,
        json_reply(typed_completion("Hello there.")),
        sse_raw=typed_completion("Hello there."),
    )
    azure = [{**HEAD, "object": "", "choices": [], "prompt_filter_results": [{"prompt_index": 0}]}]
    yield Case(
        "a prelude chunk with no choices",
        kind,
        expect,
        plain,
        raw_sse(*sse_events(azure + chunks)),
        sse_raw=azure + chunks,
    )


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
        chunk_list = [*chunks, delta_chunk(finish="tool_calls")]
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
        delta_chunk({"index": 0, **a}),
        delta_chunk({"index": 0, **b}),
        json=plain_no_usage(plain),
    )
    yield case(
        "the same id repeated continues the call",
        ok(None, [call("call_a", "first", {"n": 1})], "tool_calls", usage=None),
        delta_chunk(
            {"index": 0, "id": "call_a", "function": {"name": "first", "arguments": '{"n"'}}
        ),
        delta_chunk(
            {"index": 0, "id": "call_a", "function": {"name": "first", "arguments": ": 1}"}}
        ),
    )
    yield case(
        "no index: the position in the delta",
        expect,
        delta_chunk(a, b),
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
        delta_chunk({"index": 1, **b}),
        delta_chunk({"index": 0, **a}),
    )
    yield case(
        "an index that changes type",
        bad('tool_calls[0].index is "0", expected an integer'),
        delta_chunk({"index": 0, "id": "call_a", "function": {"name": "first", "arguments": ""}}),
        delta_chunk({"index": "0", "function": {"arguments": "{}"}}),
    )
    yield case(
        "an index of 1.5",
        bad("tool_calls[0].index is 1.5, expected an integer"),
        delta_chunk({"index": 1.5, **a}),
    )
    yield case(
        "a name that changes without a new id",
        bad("tool call 0 was named 'first', then 'second'"),
        delta_chunk({"index": 0, **a}),
        delta_chunk({"index": 0, "function": {"name": "second"}}),
    )
    yield case(
        "an arguments object after text",
        bad("tool call 0 sent arguments as an object after other pieces"),
        delta_chunk({"index": 0, "id": "call_a", "function": {"name": "f", "arguments": "{"}}),
        delta_chunk({"index": 0, "function": {"arguments": {"n": 1}}}),
    )
    yield case(
        "arguments text after an object",
        bad("tool call 0 sent arguments text after an arguments object"),
        delta_chunk({"index": 0, "id": "call_a", "function": {"name": "f", "arguments": {"n": 1}}}),
        delta_chunk({"index": 0, "function": {"arguments": "}"}}),
    )
    yield case(
        "one id on two indices",
        bad("two tool calls have the id 'call_a'"),
        delta_chunk({"index": 0, **a}),
        delta_chunk({"index": 1, **{**b, "id": "call_a"}}),
    )


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
