"""AnthropicProvider answers, plain and streamed, from a loopback server whose bodies are the
``anthropic`` package's own types: text, tool calls, thinking blocks, usage with cache
tokens, stop reasons; the streamed answer agrees with the plain one and with the SDK's own
stream accumulator."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator

import anthropic.types as A
import pytest
from anthropic.types.raw_message_delta_event import Delta
from anthropic_server import (
    AnthropicServer,
    events_of,
    message,
    message_reply,
    redacted,
    sdk_accumulated,
    sse,
    stream_reply,
    text,
    thinking,
    tool_use,
    usage,
    wire,
)

from agenthooks import AnthropicProvider, Provider, ProviderResponse
from agenthooks.messages import ChatMessage, ProviderRequest, ThinkingBlock, ToolCall, Usage
from agenthooks.providers.base import StreamDelta, StreamItem

pytestmark = pytest.mark.server

GUARD = 10.0


@pytest.fixture
def server() -> Iterator[AnthropicServer]:
    with AnthropicServer() as wire_server:
        yield wire_server


@pytest.fixture
async def provider(server: AnthropicServer) -> AsyncIterator[AnthropicProvider]:
    async with AnthropicProvider("claude-test", base_url=server.base_url, timeout=5.0) as client:
        yield client


ASK = ProviderRequest(messages=[ChatMessage(role="user", content="hi")])

TOOL_TURN = message(
    thinking("The user wants the weather in Paris; call the tool.", "c2lnbmF0dXJlLW9uZQ=="),
    redacted("RUVEQUNURUQtZGF0YQ=="),
    text("Let me check."),
    tool_use("toolu_01", "get_weather", {"city": "Paris", "units": {"temp": "C", "é": [1, 2]}}),
    tool_use("toolu_02", "now", {}),
    stop_reason="tool_use",
    tokens=usage(100, 40, read=1000, write=50),
)

TOOL_TURN_RESPONSE = ProviderResponse(
    content="Let me check.",
    tool_calls=[
        ToolCall(
            id="toolu_01",
            name="get_weather",
            arguments={"city": "Paris", "units": {"temp": "C", "é": [1, 2]}},
        ),
        ToolCall(id="toolu_02", name="now", arguments={}),
    ],
    thinking_blocks=[
        ThinkingBlock(
            thinking="The user wants the weather in Paris; call the tool.",
            signature="c2lnbmF0dXJlLW9uZQ==",
        ),
        ThinkingBlock(type="redacted_thinking", data="RUVEQUNURUQtZGF0YQ=="),
    ],
    finish_reason="tool_calls",
    usage=Usage(
        input_tokens=1150,
        output_tokens=40,
        total_tokens=1190,
        cache_read_tokens=1000,
        cache_write_tokens=50,
    ),
)


async def complete(provider: AnthropicProvider) -> ProviderResponse:
    return await asyncio.wait_for(provider.complete(ASK), GUARD)


async def stream(provider: AnthropicProvider) -> list[StreamItem]:
    async def drain() -> list[StreamItem]:
        return [item async for item in provider.stream(ASK)]

    return await asyncio.wait_for(drain(), GUARD)


def without_raw(response: ProviderResponse) -> ProviderResponse:
    return response.model_copy(update={"raw": None})


# ------------------------------------------------------------------------------ plain


async def test_a_plain_text_answer(server: AnthropicServer, provider: AnthropicProvider) -> None:
    body = message(text("Hello "), text("there."), tokens=usage(12, 3))
    server.reply(message_reply(body))

    response = await complete(provider)

    assert isinstance(provider, Provider)
    assert without_raw(response) == ProviderResponse(
        content="Hello there.",
        finish_reason="stop",
        usage=Usage(input_tokens=12, output_tokens=3, total_tokens=15),
    )
    assert response.raw == json.loads(wire(body))


async def test_a_plain_tool_turn_with_thinking(
    server: AnthropicServer, provider: AnthropicProvider
) -> None:
    server.reply(message_reply(TOOL_TURN))

    response = await complete(provider)

    assert without_raw(response) == TOOL_TURN_RESPONSE


async def test_an_empty_text_block_is_empty_content_and_no_text_block_is_none(
    server: AnthropicServer, provider: AnthropicProvider
) -> None:
    server.reply(
        message_reply(message(text(""))),
        message_reply(message(tool_use("t", "now", {}), stop_reason="tool_use")),
    )
    assert (await complete(provider)).content == ""
    assert (await complete(provider)).content is None


@pytest.mark.parametrize(
    ("stop_reason", "finish_reason"),
    [
        ("end_turn", "stop"),
        ("stop_sequence", "stop"),
        ("tool_use", "tool_calls"),
        ("max_tokens", "length"),
        ("model_context_window_exceeded", "length"),
        ("refusal", "content_filter"),
        ("pause_turn", "pause_turn"),
    ],
)
async def test_stop_reasons_map_to_finish_reasons_plain_and_streamed(
    server: AnthropicServer,
    provider: AnthropicProvider,
    stop_reason: A.StopReason,
    finish_reason: str,
) -> None:
    body = message(text("x"), stop_reason=stop_reason)
    server.reply(message_reply(body), stream_reply(body))

    plain = await complete(provider)
    streamed = (await stream(provider))[-1]

    assert isinstance(streamed, ProviderResponse)
    assert (plain.finish_reason, streamed.finish_reason) == (finish_reason, finish_reason)


# --------------------------------------------------------------------------- streamed


async def test_a_streamed_tool_turn_matches_the_plain_one_and_the_sdk(
    server: AnthropicServer, provider: AnthropicProvider
) -> None:
    events = events_of(TOOL_TURN, piece=5)
    assert sdk_accumulated(events) == TOOL_TURN  # the events are what the SDK expects
    server.reply(sse(events))

    items = await stream(provider)

    *deltas, response = items
    assert deltas == [StreamDelta("Let "), StreamDelta("me "), StreamDelta("check.")]
    assert isinstance(response, ProviderResponse)
    assert without_raw(response) == TOOL_TURN_RESPONSE
    assert response.raw == [json.loads(wire(event)) for event in events]


async def test_tool_input_split_across_many_chunks_is_assembled(
    server: AnthropicServer, provider: AnthropicProvider
) -> None:
    arguments = {"query": 'naïve "quoted" text', "filters": [{"k": 1}, {"k": None}], "n": 3.5}
    body = message(tool_use("toolu_9", "search", arguments), stop_reason="tool_use")
    server.reply(sse(events_of(body, piece=1)))

    response = (await stream(provider))[-1]

    assert isinstance(response, ProviderResponse)
    assert response.tool_calls == [ToolCall(id="toolu_9", name="search", arguments=arguments)]


@pytest.mark.parametrize(
    ("pieces", "raw"),
    [
        (['{"city": ', '"Par'], '{"city": "Par'),
        (["[1, ", "2]"], "[1, 2]"),
        (['"just a string"'], '"just a string"'),
    ],
)
async def test_tool_input_that_is_not_a_json_object_keeps_its_raw_text(
    server: AnthropicServer, provider: AnthropicProvider, pieces: list[str], raw: str
) -> None:
    events = [
        A.RawMessageStartEvent(
            type="message_start",
            message=message(tokens=usage(5, 1)).model_copy(update={"stop_reason": None}),
        ),
        A.RawContentBlockStartEvent(
            type="content_block_start", index=0, content_block=tool_use("toolu_x", "f", {})
        ),
        *(
            A.RawContentBlockDeltaEvent(
                type="content_block_delta",
                index=0,
                delta=A.InputJSONDelta(type="input_json_delta", partial_json=piece),
            )
            for piece in pieces
        ),
        A.RawContentBlockStopEvent(type="content_block_stop", index=0),
        A.RawMessageDeltaEvent(
            type="message_delta",
            delta=Delta(stop_reason="tool_use", stop_sequence=None),
            usage=A.MessageDeltaUsage(output_tokens=9),
        ),
        A.RawMessageStopEvent(type="message_stop"),
    ]
    server.reply(sse(events))

    response = (await stream(provider))[-1]

    assert isinstance(response, ProviderResponse)
    assert response.tool_calls == [
        ToolCall(id="toolu_x", name="f", arguments={}, raw_arguments=raw)
    ]


async def test_streamed_usage_takes_the_cumulative_counts_of_message_delta(
    server: AnthropicServer, provider: AnthropicProvider
) -> None:
    opening = message(tokens=usage(30, 1, read=200, write=0)).model_copy(
        update={"stop_reason": None}
    )
    events = [
        A.RawMessageStartEvent(type="message_start", message=opening),
        A.RawContentBlockStartEvent(type="content_block_start", index=0, content_block=text("")),
        A.RawContentBlockDeltaEvent(
            type="content_block_delta", index=0, delta=A.TextDelta(type="text_delta", text="ok")
        ),
        A.RawContentBlockStopEvent(type="content_block_stop", index=0),
        # no input counts here: message_start's stand
        A.RawMessageDeltaEvent(
            type="message_delta",
            delta=Delta(stop_reason=None, stop_sequence=None),
            usage=A.MessageDeltaUsage(output_tokens=4),
        ),
        A.RawMessageDeltaEvent(
            type="message_delta",
            delta=Delta(stop_reason="end_turn", stop_sequence=None),
            usage=A.MessageDeltaUsage(output_tokens=11),
        ),
        A.RawMessageStopEvent(type="message_stop"),
    ]
    server.reply(sse(events))

    response = (await stream(provider))[-1]

    assert isinstance(response, ProviderResponse)
    assert response.usage == Usage(
        input_tokens=230, output_tokens=11, total_tokens=241, cache_read_tokens=200
    )


async def test_pings_and_event_types_of_later_api_versions_are_skipped(
    server: AnthropicServer, provider: AnthropicProvider
) -> None:
    events: list[object] = list(events_of(message(text("fine"))))
    events.insert(2, 'event: future_event\ndata: {"type": "future_event", "x": 1}\n\n')
    events.insert(3, ": a comment line\n\n")
    server.reply(sse(events))

    items = await stream(provider)

    assert items[0] == StreamDelta("fine")
    assert isinstance(items[-1], ProviderResponse)
    assert items[-1].content == "fine"


async def test_thinking_deltas_never_reach_the_text(
    server: AnthropicServer, provider: AnthropicProvider
) -> None:
    body = message(thinking("secret plan here", "sig"), text("The answer."))
    server.reply(stream_reply(body))

    items = await stream(provider)

    assert [i.text for i in items if isinstance(i, StreamDelta)] == ["The ", "answer."]
    final = items[-1]
    assert isinstance(final, ProviderResponse)
    assert final.thinking_blocks == [ThinkingBlock(thinking="secret plan here", signature="sig")]


def test_usage_adds_cache_tokens() -> None:
    one = Usage(input_tokens=10, output_tokens=2, total_tokens=12, cache_read_tokens=4)
    two = Usage(input_tokens=20, output_tokens=3, total_tokens=23, cache_write_tokens=7, cost=0.5)
    assert one + two == Usage(
        input_tokens=30,
        output_tokens=5,
        total_tokens=35,
        cost=0.5,
        cache_read_tokens=4,
        cache_write_tokens=7,
    )
