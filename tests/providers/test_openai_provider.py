"""OpenAIChatProvider against a real HTTP server on 127.0.0.1 speaking the wire format."""

from __future__ import annotations

import asyncio
import json
import re
import socket
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
from wire_server import (
    Reply,
    WireServer,
    chunk,
    completion,
    error_reply,
    hang,
    json_reply,
    keepalives,
    raw_reply,
    sse_reply,
    text_stream,
    tool_call,
    trickle,
    usage_chunk,
)

from agenthooks.errors import (
    ProviderConnectionError,
    ProviderHTTPError,
    ProviderResponseError,
    ProviderTimeout,
)
from agenthooks.messages import ChatMessage, ProviderRequest, ProviderResponse, ToolCall, Usage
from agenthooks.providers import openai as openai_module
from agenthooks.providers.base import Provider, StreamDelta, StreamItem
from agenthooks.providers.openai import OpenAIChatProvider

pytestmark = pytest.mark.server

GUARD = 10.0  # seconds: no test may hang, whatever the provider does


@pytest.fixture
def server() -> Iterator[WireServer]:
    with WireServer() as wire:
        yield wire


@pytest.fixture
async def provider(server: WireServer) -> AsyncIterator[OpenAIChatProvider]:
    async with OpenAIChatProvider(
        "test-model", base_url=server.url, api_key="sk-test", timeout=2.0
    ) as client:
        yield client


def ask(text: str = "hi") -> ProviderRequest:
    return ProviderRequest(messages=[ChatMessage(role="user", content=text)])


async def complete(provider: OpenAIChatProvider, request: ProviderRequest) -> ProviderResponse:
    return await asyncio.wait_for(provider.complete(request), GUARD)


async def stream(provider: OpenAIChatProvider, request: ProviderRequest) -> list[StreamItem]:
    async def drain() -> list[StreamItem]:
        return [item async for item in provider.stream(request)]

    return await asyncio.wait_for(drain(), GUARD)


def deltas(items: list[StreamItem]) -> list[str]:
    return [item.text for item in items if isinstance(item, StreamDelta)]


# -------------------------------------------------------------------------- completions


async def test_plain_completion(server: WireServer, provider: OpenAIChatProvider) -> None:
    body = completion("Hello there.", usage=(12, 3))
    server.reply(json_reply(body))

    response = await complete(provider, ask("hello"))

    assert isinstance(provider, Provider)
    assert response.content == "Hello there."
    assert response.finish_reason == "stop"
    assert response.tool_calls == []
    assert response.usage == Usage(input_tokens=12, output_tokens=3, total_tokens=15)
    assert response.raw == body
    (received,) = server.received
    assert (received.method, received.path) == ("POST", "/v1/chat/completions")
    assert received.headers["authorization"] == "Bearer sk-test"
    assert received.json == {
        "model": "test-model",
        "messages": [{"role": "user", "content": "hello"}],
    }


async def test_tool_calls_completion(server: WireServer, provider: OpenAIChatProvider) -> None:
    calls = [
        tool_call("call_a", "get_weather", {"city": "Paris", "days": 2}),
        tool_call("call_b", "now", ""),
    ]
    server.reply(json_reply(completion(None, tool_calls=calls, finish_reason="tool_calls")))

    response = await complete(provider, ask())

    assert response.content is None
    assert response.finish_reason == "tool_calls"
    assert response.tool_calls == [
        ToolCall(id="call_a", name="get_weather", arguments={"city": "Paris", "days": 2}),
        ToolCall(id="call_b", name="now", arguments={}),
    ]


async def test_empty_content_with_a_finish_reason_is_a_valid_response(
    server: WireServer, provider: OpenAIChatProvider
) -> None:
    # empty text reads as no content on both paths (a stream's first delta is often "")
    server.reply(json_reply(completion("", finish_reason="length", usage=None)))
    response = await complete(provider, ask())
    assert (response.content, response.finish_reason) == (None, "length")
    assert response.usage == Usage()


async def test_exact_request_body(server: WireServer, provider: OpenAIChatProvider) -> None:
    server.reply(json_reply(completion("done")))
    weather_schema = {"type": "object", "properties": {"city": {"type": "string"}}}
    request = ProviderRequest(
        system="You are terse.",
        messages=[
            ChatMessage(role="user", content="Weather in Paris?"),
            ChatMessage(
                role="assistant",
                tool_calls=[ToolCall(id="call_1", name="get_weather", arguments={"city": "Paris"})],
            ),
            ChatMessage(role="tool", tool_call_id="call_1", content="sunny", name="get_weather"),
        ],
        tools=[
            {"name": "get_weather", "description": "Weather.", "parameters": weather_schema},
            {"type": "function", "function": {"name": "now", "parameters": {"type": "object"}}},
        ],
        tool_choice="auto",
        temperature=0.2,
        reasoning_effort="low",
    )

    await complete(provider, request)

    assert server.requests == [
        {
            "model": "test-model",
            "messages": [
                {"role": "system", "content": "You are terse."},
                {"role": "user", "content": "Weather in Paris?"},
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
            ],
            "tools": [
                {
                    "type": "function",
                    "function": {
                        "name": "get_weather",
                        "description": "Weather.",
                        "parameters": weather_schema,
                    },
                },
                {"type": "function", "function": {"name": "now", "parameters": {"type": "object"}}},
            ],
            "tool_choice": "auto",
            "temperature": 0.2,
            "reasoning_effort": "low",
        }
    ]


async def test_request_model_wins_and_no_key_sends_no_authorization(
    server: WireServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    server.reply(json_reply(completion("a")), json_reply(completion("b")))
    async with OpenAIChatProvider("default-m", base_url=server.url + "/", timeout=2) as local:
        await complete(local, ask())
        await complete(local, ProviderRequest(model="other-m"))
    assert [r["model"] for r in server.requests] == ["default-m", "other-m"]
    assert "authorization" not in server.received[0].headers


async def test_api_key_falls_back_to_the_environment(
    server: WireServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    server.reply(json_reply(completion("a")))
    async with OpenAIChatProvider("m", base_url=server.url, timeout=2) as local:
        await complete(local, ask())
        assert "sk-env" not in repr(local)
    assert server.received[0].headers["authorization"] == "Bearer sk-env"


# ---------------------------------------------------------------------------- streaming


async def test_streamed_text_and_tool_call_deltas(
    server: WireServer, provider: OpenAIChatProvider
) -> None:
    first = {"id": "call_x", "type": "function", "function": {"name": "search", "arguments": ""}}
    second = {"id": "call_y", "type": "function", "function": {"name": "add", "arguments": '{"a'}}
    events = [
        chunk(role="assistant", content=""),
        chunk("Let me "),
        chunk("check."),
        chunk(tool_calls=[{"index": 0, **first}]),
        chunk(tool_calls=[{"index": 0, "function": {"arguments": '{"q": "ag'}}]),
        chunk(tool_calls=[{"index": 1, **second}]),
        chunk(tool_calls=[{"index": 0, "function": {"arguments": 'ents"}'}}]),
        chunk(tool_calls=[{"index": 1, "function": {"arguments": '": 1, "b": 2}'}}]),
        chunk(finish_reason="tool_calls"),
        usage_chunk(20, 7),
    ]
    server.reply(sse_reply(events, newline="\r\n", comments=True))

    items = await stream(provider, ask())

    assert deltas(items) == ["Let me ", "check."]
    response = items[-1]
    assert isinstance(response, ProviderResponse)
    assert response.content == "Let me check."
    assert response.finish_reason == "tool_calls"
    assert response.tool_calls == [
        ToolCall(id="call_x", name="search", arguments={"q": "agents"}),
        ToolCall(id="call_y", name="add", arguments={"a": 1, "b": 2}),
    ]
    assert response.usage == Usage(input_tokens=20, output_tokens=7, total_tokens=27)
    assert response.raw == events  # every chunk, in order
    assert sum(isinstance(item, ProviderResponse) for item in items) == 1
    body = server.requests[0]
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert server.received[0].headers["accept"] == "text/event-stream"


async def test_streamed_plain_answer(server: WireServer, provider: OpenAIChatProvider) -> None:
    server.reply(text_stream("one two three"))
    items = await stream(provider, ask())
    assert deltas(items) == ["one ", "two ", "three"]
    response = items[-1]
    assert isinstance(response, ProviderResponse)
    assert (response.content, response.finish_reason) == ("one two three", "stop")
    assert response.usage.total_tokens == 15


async def test_stream_with_no_text_and_a_finish_reason_is_valid(
    server: WireServer, provider: OpenAIChatProvider
) -> None:
    server.reply(sse_reply([chunk(role="assistant"), chunk(finish_reason="stop")]))
    items = await stream(provider, ask())
    assert len(items) == 1
    assert isinstance(items[0], ProviderResponse)
    assert (items[0].content, items[0].finish_reason) == (None, "stop")


async def test_stream_with_finish_reason_but_no_done_is_accepted(
    server: WireServer, provider: OpenAIChatProvider
) -> None:
    # Decision: the response is complete once the server sent a finish reason and ended the
    # body cleanly; only a missing finish reason (or a dropped connection) raises.
    server.reply(sse_reply([chunk("ok"), chunk(finish_reason="stop")], done=False))
    items = await stream(provider, ask())
    assert isinstance(items[-1], ProviderResponse)
    assert items[-1].content == "ok"


async def test_a_server_that_keeps_the_stream_open_after_done_costs_no_answer(
    server: WireServer, provider: OpenAIChatProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(openai_module, "_DRAIN_SECONDS", 0.1)
    server.reply(sse_reply([chunk("ok"), chunk(finish_reason="stop")], end="stall"))
    items = await stream(provider, ask())
    assert isinstance(items[-1], ProviderResponse)
    assert items[-1].content == "ok"


async def test_the_connection_is_reused(server: WireServer, provider: OpenAIChatProvider) -> None:
    server.reply(text_stream("a b"), json_reply(completion("c")), text_stream("d"))
    await stream(provider, ask())
    await complete(provider, ask())
    await stream(provider, ask())
    assert len(server.requests) == 3
    assert server.connections == 1


# ------------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("status", "message"),
    [(429, "Rate limit reached for gpt-test"), (500, "The server had an error")],
)
@pytest.mark.parametrize("streamed", [False, True])
async def test_http_errors_carry_status_and_server_message(
    server: WireServer, provider: OpenAIChatProvider, status: int, message: str, streamed: bool
) -> None:
    server.reply(error_reply(status, message))
    with pytest.raises(ProviderHTTPError) as caught:
        await (stream(provider, ask()) if streamed else complete(provider, ask()))
    error = caught.value
    assert error.status == status
    assert f"HTTP {status}: {message}" in str(error)
    assert json.loads(error.raw)["error"]["message"] == message


async def test_http_error_without_json_body_keeps_the_text(
    server: WireServer, provider: OpenAIChatProvider
) -> None:
    server.reply(raw_reply("upstream unavailable", status=503, content_type="text/plain"))
    with pytest.raises(ProviderHTTPError, match="HTTP 503: upstream unavailable") as caught:
        await complete(provider, ask())
    assert caught.value.status == 503
    assert caught.value.raw == b"upstream unavailable"


async def test_malformed_json(server: WireServer, provider: OpenAIChatProvider) -> None:
    server.reply(raw_reply(b'{"choices": [ oops'))
    with pytest.raises(ProviderResponseError, match=r"response is not valid JSON.*oops") as caught:
        await complete(provider, ask())
    assert caught.value.raw == b'{"choices": [ oops'
    assert caught.value.status == 200


async def test_a_body_is_utf8_strictly_as_a_stream_is(
    server: WireServer, provider: OpenAIChatProvider
) -> None:
    body = json.dumps(completion("abXcd")).encode().replace(b"X", b"\xed\xa0\x80")
    server.reply(raw_reply(body))  # an encoded surrogate, which json.loads would let through
    with pytest.raises(ProviderResponseError, match=r"response is not valid JSON \('utf-8'"):
        await complete(provider, ask())


async def test_malformed_json_chunk(server: WireServer, provider: OpenAIChatProvider) -> None:
    server.reply(sse_reply([chunk("fine"), '{"choices": [{"delta": oops'], done=True))
    with pytest.raises(ProviderResponseError, match=r"stream chunk is not valid JSON.*oops"):
        await stream(provider, ask())


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({"id": "x", "object": "chat.completion", "choices": []}, "response has no choices"),
        ({"id": "x"}, "response has no choices"),
        (
            {"error": {"message": "model overloaded"}},
            "server sent an error instead of a completion: model overloaded",
        ),
    ],
)
async def test_response_without_choices(
    server: WireServer, provider: OpenAIChatProvider, body: dict[str, Any], says: str
) -> None:
    server.reply(json_reply(body))
    with pytest.raises(ProviderResponseError, match=re.escape(says)) as caught:
        await complete(provider, ask())
    assert caught.value.raw == json.dumps(body).encode()
    assert caught.value.status == 200


async def test_completion_without_finish_reason(
    server: WireServer, provider: OpenAIChatProvider
) -> None:
    server.reply(json_reply(completion("half an ans", finish_reason=None)))
    with pytest.raises(ProviderResponseError, match="no finish_reason"):
        await complete(provider, ask())


async def test_json_that_is_not_an_object(server: WireServer, provider: OpenAIChatProvider) -> None:
    server.reply(raw_reply(b"[1, 2]"))
    with pytest.raises(ProviderResponseError, match=r"expected a JSON object, got \[1, 2\]"):
        await complete(provider, ask())


@pytest.mark.parametrize("text", ['{"key": ', "[1, 2]", '"Paris"', "null", "{'key': 1}"])
@pytest.mark.parametrize("streamed", [False, True])
async def test_arguments_that_are_not_a_json_object_are_kept_raw(
    server: WireServer, provider: OpenAIChatProvider, streamed: bool, text: str
) -> None:
    # the model's mistake, not the server's: the call comes back for the runtime to answer
    if streamed:
        call = {"index": 0, **tool_call("call_1", "lookup", text)}
        server.reply(sse_reply([chunk(tool_calls=[call]), chunk(finish_reason="tool_calls")]))
    else:
        calls = [tool_call("call_1", "lookup", text)]
        server.reply(json_reply(completion(tool_calls=calls, finish_reason="tool_calls")))
    response = await (stream(provider, ask()) if streamed else complete(provider, ask()))
    if streamed:
        assert isinstance(response, list)
        response = response[-1]
    assert isinstance(response, ProviderResponse)
    assert response.tool_calls == [
        ToolCall(id="call_1", name="lookup", arguments={}, raw_arguments=text)
    ]


async def test_raw_arguments_go_back_to_the_model_as_sent(
    server: WireServer, provider: OpenAIChatProvider
) -> None:
    server.reply(json_reply(completion("ok")))
    call = ToolCall(id="call_1", name="lookup", arguments={}, raw_arguments='{"key": ')
    messages = [
        ChatMessage(role="user", content="hi"),
        ChatMessage(role="assistant", tool_calls=[call]),
        ChatMessage(role="tool", tool_call_id="call_1", content="bad arguments", is_error=True),
    ]
    await complete(provider, ProviderRequest(messages=messages))
    sent = server.requests[0]["messages"][1]["tool_calls"][0]["function"]
    assert sent == {"name": "lookup", "arguments": '{"key": '}


async def test_stream_cut_without_done_or_finish_reason(
    server: WireServer, provider: OpenAIChatProvider
) -> None:
    reply = sse_reply([chunk("Once upon"), chunk(" a time")], done=False)
    server.reply(reply)
    seen: list[str] = []
    with pytest.raises(ProviderResponseError) as caught:
        async for item in provider.stream(ask()):
            seen.append(item.text if isinstance(item, StreamDelta) else "RESPONSE")
    assert "stream ended without a finish_reason or [DONE] after 2 chunks" in str(caught.value)
    assert seen == ["Once upon", " a time"]  # the text already streamed was delivered
    assert caught.value.raw == b"".join(reply.parts)
    assert caught.value.status == 200


async def test_stream_done_without_finish_reason(
    server: WireServer, provider: OpenAIChatProvider
) -> None:
    server.reply(sse_reply([chunk("text"), usage_chunk()], done=True))
    with pytest.raises(ProviderResponseError, match=r"without a finish_reason after 2 chunks"):
        await stream(provider, ask())


async def test_error_event_mid_stream(server: WireServer, provider: OpenAIChatProvider) -> None:
    server.reply(sse_reply([chunk("a"), {"error": {"message": "context length exceeded"}}]))
    with pytest.raises(ProviderResponseError, match="mid-stream: context length exceeded"):
        await stream(provider, ask())


async def test_connection_dropped_mid_stream(
    server: WireServer, provider: OpenAIChatProvider
) -> None:
    server.reply(sse_reply([chunk("partial "), chunk("answer")], done=False, end="drop"))
    seen: list[StreamItem] = []
    with pytest.raises(ProviderConnectionError) as caught:
        async for item in provider.stream(ask()):
            seen.append(item)
    assert "connection dropped mid-stream after 2 chunks" in str(caught.value)
    assert isinstance(caught.value.__cause__, httpx.RemoteProtocolError)
    assert deltas(seen) == ["partial ", "answer"]


async def test_connection_dropped_before_the_body(
    server: WireServer, provider: OpenAIChatProvider
) -> None:
    server.reply(Reply(parts=[b'{"choi'], end="drop", chunked=True))
    with pytest.raises(ProviderConnectionError, match="connection dropped"):
        await complete(provider, ask())


async def test_connection_refused() -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    async with OpenAIChatProvider("m", base_url=url, api_key="k", timeout=2) as local:
        with pytest.raises(ProviderConnectionError, match=rf"127.0.0.1:{port}.*could not connect"):
            await complete(local, ask())


@pytest.mark.parametrize("streamed", [False, True])
async def test_server_that_never_answers_times_out(server: WireServer, streamed: bool) -> None:
    server.reply(hang())
    async with OpenAIChatProvider("m", base_url=server.url, api_key="k", timeout=0.2) as local:
        loop = asyncio.get_running_loop()
        started = loop.time()
        with pytest.raises(ProviderTimeout, match=r"no answer within 0.2s \(ReadTimeout") as caught:
            await (stream(local, ask()) if streamed else complete(local, ask()))
    assert loop.time() - started < 2
    assert isinstance(caught.value.__cause__, httpx.ReadTimeout)


async def test_stream_that_stalls_between_chunks_times_out(server: WireServer) -> None:
    server.reply(sse_reply([chunk("a"), chunk(finish_reason="stop")], delay=1.0))
    async with OpenAIChatProvider("m", base_url=server.url, timeout=0.3) as local:
        with pytest.raises(ProviderTimeout):
            await stream(local, ask())


# ----------------------------------------------------------------- the whole-response deadline


def test_the_response_deadline_defaults_to_three_timeouts() -> None:
    assert (
        OpenAIChatProvider("m", base_url="http://127.0.0.1:9/v1", timeout=2).response_timeout == 6
    )
    given = OpenAIChatProvider("m", base_url="http://127.0.0.1:9/v1", response_timeout=0.5)
    assert (given.timeout, given.response_timeout) == (60.0, 0.5)


@pytest.mark.parametrize("streamed", [False, True])
async def test_keepalives_forever_end_in_a_timeout(server: WireServer, streamed: bool) -> None:
    if streamed:
        reply = keepalives(sse_reply([chunk("a")], done=False), 0.02)
    else:  # JSON allows any amount of whitespace
        reply = Reply(parts=[b"{"], chunked=True, forever=b" ", delay=0.02, end="stall")
    server.reply(reply)
    async with OpenAIChatProvider("m", base_url=server.url, timeout=0.2) as local:
        with pytest.raises(ProviderTimeout) as caught:
            await (stream(local, ask()) if streamed else complete(local, ask()))
    error = caught.value
    received = len(error.raw)
    assert str(error) == (
        f"openai (POST {server.url}/chat/completions): no complete response within 0.6s "
        f"({received} bytes received)"
    )
    assert error.status == 200
    assert error.raw.startswith(reply.body) and received > len(reply.body)
    assert len(server.received) == 1


@pytest.mark.parametrize("streamed", [False, True])
async def test_a_trickled_body_ends_in_a_timeout(server: WireServer, streamed: bool) -> None:
    text = "an answer sent one byte at a time " * 10
    body = text_stream(text) if streamed else json_reply(completion(text))
    server.reply(trickle(body, 0.01))
    async with OpenAIChatProvider("m", base_url=server.url, timeout=0.2) as local:
        with pytest.raises(ProviderTimeout, match=r"no complete response within 0\.6s") as caught:
            await (stream(local, ask()) if streamed else complete(local, ask()))
    assert body.body.startswith(caught.value.raw)
    assert 0 < len(caught.value.raw) < len(body.body)


async def test_time_the_consumer_spends_between_deltas_does_not_count(server: WireServer) -> None:
    server.reply(text_stream("one two three four"))
    async with OpenAIChatProvider("m", base_url=server.url, timeout=0.1) as local:
        items = []
        async for item in local.stream(ask()):
            items.append(item)
            await asyncio.sleep(0.1)  # four deltas: longer than the whole 0.3 s deadline
    assert deltas(items) == ["one ", "two ", "three ", "four"]
    assert isinstance(items[-1], ProviderResponse)


# --------------------------------------------------------- redirects, error bodies, empty 200


@pytest.mark.parametrize("streamed", [False, True])
async def test_a_redirect_is_an_http_error_naming_where_it_pointed(
    server: WireServer, provider: OpenAIChatProvider, streamed: bool
) -> None:
    target = "https://api.example/v2/chat/completions"
    server.reply(Reply(status=301, parts=[b"moved"], headers={"Location": target}))
    with pytest.raises(ProviderHTTPError) as caught:
        await (stream(provider, ask()) if streamed else complete(provider, ask()))
    assert str(caught.value) == (
        f"openai (POST {server.url}/chat/completions): HTTP 301: moved "
        f"(a redirect to {target}, not followed: check base_url)"
    )
    assert (caught.value.status, caught.value.raw) == (301, b"moved")
    assert len(server.received) == 1


@pytest.mark.parametrize("streamed", [False, True])
async def test_an_empty_200_keeps_its_status(
    server: WireServer, provider: OpenAIChatProvider, streamed: bool
) -> None:
    content_type = "text/event-stream" if streamed else "application/json"
    server.reply(raw_reply(b"", content_type=content_type))
    with pytest.raises(ProviderResponseError) as caught:
        await (stream(provider, ask()) if streamed else complete(provider, ask()))
    assert str(caught.value) == (
        f"openai (POST {server.url}/chat/completions): HTTP 200 with an empty body"
    )
    assert (caught.value.status, caught.value.raw) == (200, b"")


async def test_a_200_error_body_to_a_stream_request(
    server: WireServer, provider: OpenAIChatProvider
) -> None:
    server.reply(json_reply({"error": {"message": "model overloaded", "type": "server_error"}}))
    with pytest.raises(ProviderResponseError) as caught:
        await stream(provider, ask())
    assert str(caught.value).endswith(
        "server sent an error instead of a completion: model overloaded"
    )
    assert caught.value.status == 200
    assert json.loads(caught.value.raw)["error"]["message"] == "model overloaded"


async def test_a_json_completion_to_a_stream_request_is_read_as_one(
    server: WireServer, provider: OpenAIChatProvider
) -> None:
    body = completion("whole answer")
    server.reply(json_reply(body))
    items = await stream(provider, ask())
    assert deltas(items) == ["whole answer"]
    assert isinstance(items[-1], ProviderResponse)
    assert (items[-1].content, items[-1].raw) == ("whole answer", body)


# ------------------------------------------------------------------------- client owning


async def test_a_given_client_is_not_closed(server: WireServer) -> None:
    server.reply(json_reply(completion("shared")))
    async with httpx.AsyncClient() as shared:
        async with OpenAIChatProvider("m", base_url=server.url, client=shared) as local:
            assert (await complete(local, ask())).content == "shared"
        assert not shared.is_closed


async def test_its_own_client_is_closed() -> None:
    provider = OpenAIChatProvider("m", base_url="http://127.0.0.1:9/v1")
    await provider.aclose()
    assert provider._client.is_closed
