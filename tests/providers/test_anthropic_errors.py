"""AnthropicProvider failures against a real loopback server: every one a typed
``ProviderError`` with the status and the raw body, one request per failure (the provider
never retries; the retry plugin's handling of them is tested in its own distribution)."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from typing import Any

import pytest
from anthropic_server import (
    AnthropicServer,
    error_body,
    error_reply,
    events_of,
    message,
    message_reply,
    sse,
    text,
    wire,
)
from wire_server import Reply, hang, raw_reply

from agenthooks import (
    AnthropicProvider,
    ProviderConnectionError,
    ProviderError,
    ProviderHTTPError,
    ProviderResponse,
    ProviderResponseError,
    ProviderTimeout,
)
from agenthooks.messages import ChatMessage, ProviderRequest
from agenthooks.providers.base import StreamDelta, StreamItem

pytestmark = pytest.mark.server

GUARD = 10.0
ASK = ProviderRequest(messages=[ChatMessage(role="user", content="hi")])


@pytest.fixture
def server() -> Iterator[AnthropicServer]:
    with AnthropicServer() as wire_server:
        yield wire_server


@pytest.fixture
async def provider(server: AnthropicServer) -> AsyncIterator[AnthropicProvider]:
    async with AnthropicProvider("claude-test", base_url=server.base_url, timeout=2.0) as client:
        yield client


def where(server: AnthropicServer) -> str:
    return f"anthropic (POST {server.base_url}/v1/messages)"


async def complete(provider: AnthropicProvider) -> ProviderResponse:
    return await asyncio.wait_for(provider.complete(ASK), GUARD)


async def stream_until_error(
    provider: AnthropicProvider,
) -> tuple[list[StreamItem], BaseException]:
    items: list[StreamItem] = []

    async def drain() -> None:
        async for item in provider.stream(ASK):
            items.append(item)

    with pytest.raises(ProviderError) as caught:
        await asyncio.wait_for(drain(), GUARD)
    return items, caught.value


def opening_events() -> list[Any]:
    """message_start and a ping: what a stream sends before its content."""
    return list(events_of(message(text("never")))[:2])


# --------------------------------------------------------------------------- HTTP errors


@pytest.mark.parametrize("streamed", [False, True], ids=["plain", "streamed"])
@pytest.mark.parametrize(
    ("status", "kind", "text_", "retryable"),
    [
        (529, "overloaded_error", "Overloaded", True),
        (429, "rate_limit_error", "Number of request tokens has exceeded your rate limit.", True),
        (500, "api_error", "Internal server error", True),
        (400, "invalid_request_error", "max_tokens: Field required", False),
        (401, "authentication_error", "invalid x-api-key", False),
    ],
)
async def test_http_errors_are_typed_with_status_body_headers_and_retryability(
    server: AnthropicServer,
    provider: AnthropicProvider,
    streamed: bool,
    status: int,
    kind: str,
    text_: str,
    retryable: bool,
) -> None:
    server.reply(error_reply(status, kind, text_, headers={"request-id": "req_test"}))

    if streamed:
        items, error = await stream_until_error(provider)
        assert items == []
    else:
        with pytest.raises(ProviderError) as caught:
            await complete(provider)
        error = caught.value

    assert type(error) is ProviderHTTPError
    assert str(error) == f"{where(server)}: HTTP {status}: {kind}: {text_}"
    assert (error.status, error.error_type, error.retryable) == (status, kind, retryable)
    assert error.raw == wire(error_body(kind, text_)).encode()
    assert error.headers["request-id"] == "req_test"
    assert len(server.received) == 1  # the provider never retries


async def test_retry_after_is_kept_in_the_error_headers(
    server: AnthropicServer, provider: AnthropicProvider
) -> None:
    server.reply(error_reply(429, "rate_limit_error", "slow down", headers={"Retry-After": "7"}))

    with pytest.raises(ProviderHTTPError) as caught:
        await complete(provider)

    assert caught.value.headers["retry-after"] == "7"
    assert caught.value.retryable is True


async def test_an_error_body_that_is_not_json_is_kept_raw(
    server: AnthropicServer, provider: AnthropicProvider
) -> None:
    server.reply(raw_reply(b"<html>bad gateway</html>", status=502, content_type="text/html"))

    with pytest.raises(ProviderHTTPError) as caught:
        await complete(provider)

    error = caught.value
    assert str(error) == f"{where(server)}: HTTP 502: <html>bad gateway</html>"
    assert (error.status, error.error_type, error.retryable) == (502, None, True)
    assert error.raw == b"<html>bad gateway</html>"


# ----------------------------------------------------------------------- stream failures


async def test_an_error_event_mid_stream_fails_the_response(
    server: AnthropicServer, provider: AnthropicProvider
) -> None:
    events = list(events_of(message(text("partial answer"))))[:5]  # start, ping, block, 2 deltas
    failure = error_body("overloaded_error", "Overloaded")
    server.reply(sse([*events, failure]))

    items, error = await stream_until_error(provider)

    assert items == [StreamDelta("partial "), StreamDelta("answer")]
    assert type(error) is ProviderHTTPError
    assert str(error) == f"{where(server)}: error event mid-stream: overloaded_error: Overloaded"
    assert (error.status, error.error_type, error.retryable) == (529, "overloaded_error", True)
    assert error.raw == [json.loads(wire(e)) for e in [*events, failure]]
    assert error.headers["content-type"] == "text/event-stream"


async def test_a_stream_cut_before_message_stop_fails_the_response(
    server: AnthropicServer, provider: AnthropicProvider
) -> None:
    events = list(events_of(message(text("cut short"))))[:-2]  # no message_delta, message_stop
    server.reply(sse(events, end="drop"))

    items, error = await stream_until_error(provider)

    assert items == [StreamDelta("cut "), StreamDelta("short")]
    assert type(error) is ProviderConnectionError
    assert str(error).startswith(
        f"{where(server)}: connection dropped mid-stream after {len(events)} events ("
    )
    assert (error.status, error.retryable) == (200, True)
    assert error.raw == [json.loads(wire(e)) for e in events]
    assert len(server.received) == 1


async def test_a_stream_that_ends_cleanly_before_message_stop_fails_the_response(
    server: AnthropicServer, provider: AnthropicProvider
) -> None:
    events = list(events_of(message(text("cut short"))))[:-1]  # message_delta, no message_stop
    server.reply(sse(events))

    items, error = await stream_until_error(provider)

    assert items == [StreamDelta("cut "), StreamDelta("short")]
    assert type(error) is ProviderResponseError
    assert str(error) == (
        f"{where(server)}: stream ended without message_stop after {len(events)} events: "
        "the response is incomplete"
    )
    assert (error.status, error.retryable) == (200, False)


async def test_a_stream_without_a_stop_reason_fails_the_response(
    server: AnthropicServer, provider: AnthropicProvider
) -> None:
    events = [e for e in events_of(message(text("x"))) if e.type != "message_delta"]
    server.reply(sse(events))

    _, error = await stream_until_error(provider)

    assert type(error) is ProviderResponseError
    assert str(error) == (
        f"{where(server)}: stream ended without message_start or a stop_reason after "
        f"{len(events)} events: the response is incomplete"
    )


async def test_an_event_that_is_not_json_fails_the_response(
    server: AnthropicServer, provider: AnthropicProvider
) -> None:
    server.reply(sse([*opening_events(), "event: content_block_start\ndata: {oops\n\n"]))

    _, error = await stream_until_error(provider)

    assert type(error) is ProviderResponseError
    assert str(error).startswith(
        f"{where(server)}: content_block_start event is not valid JSON (Expecting property name"
    )
    assert error.raw == "{oops"


async def test_a_plain_answer_that_is_not_a_message_fails(
    server: AnthropicServer, provider: AnthropicProvider
) -> None:
    unfinished = message(text("x")).model_copy(update={"stop_reason": None})
    server.reply(raw_reply("not json"), message_reply(unfinished))

    with pytest.raises(ProviderResponseError) as first:
        await complete(provider)
    with pytest.raises(ProviderResponseError) as second:
        await complete(provider)

    assert str(first.value) == (
        f"{where(server)}: response is not valid JSON (Expecting value: line 1 column 1 "
        "(char 0)): not json"
    )
    assert (first.value.status, first.value.raw) == (200, b"not json")
    assert str(second.value) == (
        f"{where(server)}: message has no stop_reason: the response is incomplete"
    )


# ----------------------------------------------------------------- deadline, connection


async def test_the_timeout_bounds_the_whole_stream_not_each_read(server: AnthropicServer) -> None:
    # a ping every 0.1 s keeps each read short; only a deadline ends this stream
    pings = ['event: ping\ndata: {"type": "ping"}\n\n' for _ in range(100)]
    server.reply(sse([*opening_events(), *pings], end="stall", delay=0.1))

    async with AnthropicProvider("m", base_url=server.base_url, timeout=0.5) as provider:
        _, error = await stream_until_error(provider)

    assert type(error) is ProviderTimeout
    assert str(error).startswith(f"{where(server)}: no complete answer within 0.5s (")
    assert error.retryable is True
    assert isinstance(error.raw, list) and error.raw[0]["type"] == "message_start"


async def test_the_timeout_bounds_a_plain_answer_trickling_in(server: AnthropicServer) -> None:
    body = wire(message(text("slow"))).encode()
    server.reply(Reply(parts=[body[i : i + 4] for i in range(0, len(body), 4)], delay=0.1))

    async with AnthropicProvider("m", base_url=server.base_url, timeout=0.5) as provider:
        with pytest.raises(ProviderTimeout) as caught:
            await complete(provider)

    assert str(caught.value) == f"{where(server)}: no complete answer within 0.5s"


async def test_a_server_that_never_answers_times_out(server: AnthropicServer) -> None:
    server.reply(hang())
    async with AnthropicProvider("m", base_url=server.base_url, timeout=0.3) as provider:
        with pytest.raises(ProviderTimeout):
            await complete(provider)


async def test_a_refused_connection() -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    async with AnthropicProvider("m", base_url=f"http://127.0.0.1:{port}") as provider:
        with pytest.raises(ProviderConnectionError) as caught:
            await complete(provider)
    assert str(caught.value).startswith(
        f"anthropic (POST http://127.0.0.1:{port}/v1/messages): could not connect ("
    )
    assert caught.value.retryable is True


# ------------------------------------------------------- read as strictly as a message body


def _event(payload: dict[str, Any]) -> str:
    return f"event: {payload['type']}\ndata: {json.dumps(payload)}\n\n"


def _start(index: int, block: dict[str, Any]) -> str:
    return _event({"type": "content_block_start", "index": index, "content_block": block})


def _delta(index: int, delta: dict[str, Any]) -> str:
    return _event({"type": "content_block_delta", "index": index, "delta": delta})


@pytest.mark.parametrize(
    ("events", "says"),
    [
        (
            [_start(0, {"type": "text", "text": ""}), _start(0, {"type": "text", "text": ""})],
            "content_block_start (event 4): index 0 is already in use",
        ),
        (
            [
                _start(0, {"type": "text", "text": ""}),
                _delta(0, {"type": "input_json_delta", "partial_json": "{}"}),
            ],
            "content_block_delta (event 4): input_json_delta does not fit the text block at "
            "index 0",
        ),
        (
            [_start(0, {"type": "text", "text": ""}), _delta(0, {"type": "text_delta", "text": 5})],
            "content_block_delta (event 4): text_delta whose text is 5, expected a string",
        ),
        (
            [_start(0, {"type": "text", "text": ["x"]})],
            'content_block_start (event 3): index 0 starts a text block whose text is ["x"], '
            "expected a string",
        ),
        (
            [
                _start(0, {"type": "text", "text": ""}),
                _event({"type": "content_block_stop", "index": 0}),
                _delta(0, {"type": "text_delta", "text": "late"}),
            ],
            "content_block_delta (event 5): delta for no open content block",
        ),
    ],
    ids=["started twice", "delta misfits its block", "text not a string", "start text", "closed"],
)
async def test_a_malformed_stream_is_a_typed_error_naming_the_event(
    server: AnthropicServer, provider: AnthropicProvider, events: list[str], says: str
) -> None:
    server.reply(sse([*opening_events(), *events]))
    items, error = await stream_until_error(provider)
    assert type(error) is ProviderResponseError
    assert str(error).startswith(f"{where(server)}: {says}"), str(error)
    assert not [item for item in items if isinstance(item, ProviderResponse)]


async def test_a_non_string_text_in_a_body_is_a_typed_error(
    server: AnthropicServer, provider: AnthropicProvider
) -> None:
    body = json.loads(wire(message(text("x"))))
    body["content"][0]["text"] = 5
    server.reply(raw_reply(json.dumps(body)))
    with pytest.raises(ProviderResponseError) as caught:
        await complete(provider)
    assert str(caught.value) == (
        f"{where(server)}: content[0] is a text block whose text is 5, expected a string"
    )


async def test_a_stream_is_utf8_whatever_the_charset_says(
    server: AnthropicServer, provider: AnthropicProvider
) -> None:
    reply = sse(events_of(message(text("héllo ✓ 日本"))))
    server.reply(replace(reply, content_type="text/event-stream; charset=latin-1"))
    items: list[StreamItem] = [item async for item in provider.stream(ASK)]
    response = items[-1]
    assert isinstance(response, ProviderResponse) and response.content == "héllo ✓ 日本"


async def test_a_stream_that_is_not_utf8_is_a_typed_error(
    server: AnthropicServer, provider: AnthropicProvider
) -> None:
    bad = b'event: content_block_delta\ndata: {"type": "content_block_delta", "index": 0, '
    bad += b'"delta": {"type": "text_delta", "text": "\xff"}}\n\n'
    start = _start(0, {"type": "text", "text": ""})
    server.reply(
        Reply(
            parts=[_event(e).encode() for e in _opening()] + [start.encode(), bad],
            content_type="text/event-stream; charset=latin-1",
            chunked=True,
        )
    )
    items, error = await stream_until_error(provider)
    assert type(error) is ProviderResponseError
    assert str(error).startswith(f"{where(server)}: stream is not UTF-8 text ('utf-8' codec")
    assert not [item for item in items if isinstance(item, ProviderResponse)]


def _opening() -> list[dict[str, Any]]:
    return [json.loads(wire(event)) for event in opening_events()]
