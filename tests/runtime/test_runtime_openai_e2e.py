"""An Agent on ``OpenAIChatProvider`` against a real loopback HTTP server speaking the OpenAI
wire format: the exact JSON bodies sent, streaming over SSE, and provider failures reaching
``on_model_error`` as typed agenthooks errors."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "providers"))

from wire_server import (
    WireServer,
    chunk,
    completion,
    error_reply,
    json_reply,
    sse_reply,
    text_stream,
    tool_call,
    usage_chunk,
)

from agenthooks import (
    Agent,
    ChatMessage,
    FinalResponse,
    OpenAIChatProvider,
    ProviderConnectionError,
    ProviderHTTPError,
    ProviderResponse,
    StreamEvent,
    TextDelta,
    ToolCall,
    ToolCallEnd,
    ToolCallStart,
    Usage,
    tool,
)

GUARD = 10.0  # seconds: no test may hang, whatever the server does


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


ADD_SCHEMA = {
    "type": "function",
    "function": {
        "name": "add",
        "description": "Add two integers.",
        "parameters": {
            "additionalProperties": False,
            "properties": {
                "a": {"title": "A", "type": "integer"},
                "b": {"title": "B", "type": "integer"},
            },
            "required": ["a", "b"],
            "type": "object",
        },
    },
}


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


def calculator(provider: OpenAIChatProvider) -> Agent:
    return Agent("calc", "Answer with the number only.", provider=provider, tools=[add])


async def stream_all(agent: Agent, message: str) -> list[StreamEvent]:
    async def drain() -> list[StreamEvent]:
        return [item async for item in agent.chat_stream(message)]

    return await asyncio.wait_for(drain(), GUARD)


SYSTEM = {"role": "system", "content": "Answer with the number only."}
USER = {"role": "user", "content": "What is 2 + 3?"}
ASSISTANT_CALL = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {
            "id": "call_7",
            "type": "function",
            "function": {"name": "add", "arguments": json.dumps({"a": 2, "b": 3})},
        }
    ],
}
TOOL_RESULT = {"role": "tool", "tool_call_id": "call_7", "content": "5"}


async def test_tool_call_and_final_answer_send_the_exact_wire_bodies(
    server: WireServer, provider: OpenAIChatProvider
) -> None:
    server.reply(
        json_reply(
            completion(
                None,
                tool_calls=[tool_call("call_7", "add", {"a": 2, "b": 3})],
                finish_reason="tool_calls",
                usage=(20, 8),
            )
        ),
        json_reply(completion("5", usage=(30, 1))),
    )
    agent = calculator(provider)

    response = await asyncio.wait_for(agent.chat("What is 2 + 3?"), GUARD)

    assert server.requests == [
        {"model": "test-model", "messages": [SYSTEM, USER], "tools": [ADD_SCHEMA]},
        {
            "model": "test-model",
            "messages": [SYSTEM, USER, ASSISTANT_CALL, TOOL_RESULT],
            "tools": [ADD_SCHEMA],
        },
    ]
    assert [(r.method, r.path, r.headers["authorization"]) for r in server.received] == [
        ("POST", "/v1/chat/completions", "Bearer sk-test")
    ] * 2
    assert (response.content, response.finish_reason, response.iterations) == ("5", "stop", 2)
    assert response.usage == Usage(input_tokens=50, output_tokens=9, total_tokens=59)
    assert agent.history == [
        ChatMessage(role="user", content="What is 2 + 3?"),
        ChatMessage(
            role="assistant",
            tool_calls=[ToolCall(id="call_7", name="add", arguments={"a": 2, "b": 3})],
        ),
        ChatMessage(role="tool", content="5", tool_call_id="call_7", name="add"),
        ChatMessage(role="assistant", content="5"),
    ]


async def test_chat_stream_over_sse_with_a_tool_call_then_text(
    server: WireServer, provider: OpenAIChatProvider
) -> None:
    server.reply(
        sse_reply(
            [
                chunk(
                    role="assistant",
                    tool_calls=[
                        {
                            "index": 0,
                            "id": "call_7",
                            "type": "function",
                            "function": {"name": "add", "arguments": ""},
                        }
                    ],
                ),
                chunk(tool_calls=[{"index": 0, "function": {"arguments": '{"a": 2, '}}]),
                chunk(tool_calls=[{"index": 0, "function": {"arguments": '"b": 3}'}}]),
                chunk(finish_reason="tool_calls"),
                usage_chunk(20, 8),
            ],
            newline="\r\n",
            comments=True,
        ),
        text_stream("The sum is 5"),
    )
    agent = calculator(provider)
    chunks: list[tuple[str, str]] = []
    agent.on("on_stream_chunk", lambda c: chunks.append((c.delta, c.accumulated)))

    items = await stream_all(agent, "What is 2 + 3?")

    call = ToolCall(id="call_7", name="add", arguments={"a": 2, "b": 3})
    assert items[:2] == [ToolCallStart(call), ToolCallEnd(call, result=5)]
    assert items[2:-1] == [TextDelta("The "), TextDelta("sum "), TextDelta("is "), TextDelta("5")]
    final = items[-1]
    assert isinstance(final, FinalResponse)
    assert (final.response.content, final.response.finish_reason) == ("The sum is 5", "stop")
    assert chunks == [
        ("The ", "The "),
        ("sum ", "The sum "),
        ("is ", "The sum is "),
        ("5", "The sum is 5"),
    ]
    stream_options = {"stream": True, "stream_options": {"include_usage": True}}
    assert server.requests == [
        {
            "model": "test-model",
            "messages": [SYSTEM, USER],
            "tools": [ADD_SCHEMA],
            **stream_options,
        },
        {
            "model": "test-model",
            "messages": [SYSTEM, USER, ASSISTANT_CALL, TOOL_RESULT],
            "tools": [ADD_SCHEMA],
            **stream_options,
        },
    ]


async def test_http_429_reaches_on_model_error_typed_and_a_recovery_completes_the_run(
    server: WireServer, provider: OpenAIChatProvider
) -> None:
    server.reply(error_reply(429, "Rate limit reached for test-model", "rate_limit_error"))
    agent = calculator(provider)
    errors: list[BaseException] = []
    responses: list[str | None] = []

    def recover(ctx: Any) -> dict[str, Any]:
        errors.append(ctx.error)
        return {"response": ProviderResponse(content="Please retry in a minute.")}

    agent.on("on_model_error", recover)
    agent.on("on_response", lambda c: responses.append(c.response.content))

    response = await asyncio.wait_for(agent.chat("What is 2 + 3?"), GUARD)

    assert len(errors) == 1
    error = errors[0]
    assert type(error) is ProviderHTTPError
    assert error.status == 429
    assert str(error) == (
        f"openai (POST {server.url}/chat/completions): HTTP 429: Rate limit reached for test-model"
    )
    assert json.loads(error.raw)["error"]["type"] == "rate_limit_error"
    assert responses == ["Please retry in a minute."]
    assert (response.content, response.finish_reason) == ("Please retry in a minute.", "stop")
    assert len(server.requests) == 1


async def test_http_429_without_recovery_reaches_the_caller_through_on_chat_error(
    server: WireServer, provider: OpenAIChatProvider
) -> None:
    server.reply(error_reply(429, "slow down", "rate_limit_error"))
    agent = calculator(provider)
    ends: list[tuple[str, str]] = []
    agent.on("on_chat_error", lambda c: ends.append(("error", type(c.error).__name__)))
    agent.on("on_chat_end", lambda c: ends.append(("end", type(c.error).__name__)))

    with pytest.raises(ProviderHTTPError) as caught:
        await asyncio.wait_for(agent.chat("What is 2 + 3?"), GUARD)

    assert caught.value.status == 429
    assert ends == [("error", "ProviderHTTPError"), ("end", "ProviderHTTPError")]
    assert agent.history == [ChatMessage(role="user", content="What is 2 + 3?")]


async def test_a_connection_dropped_mid_stream_reaches_on_model_error_and_is_recovered(
    server: WireServer, provider: OpenAIChatProvider
) -> None:
    reply = sse_reply(
        [chunk(role="assistant", content="The "), chunk("sum")], done=False, end="drop"
    )
    server.reply(reply)
    agent = calculator(provider)
    seen: list[tuple[str, Any]] = []

    def recover(ctx: Any) -> dict[str, Any]:
        seen.append(("on_model_error", ctx.error))
        return {"response": ProviderResponse(content="The sum is 5")}

    agent.on("on_stream_error", lambda c: seen.append(("on_stream_error", c.error)))
    agent.on("on_model_error", recover)

    items = await stream_all(agent, "What is 2 + 3?")

    assert [name for name, _ in seen] == ["on_stream_error", "on_model_error"]
    error = seen[1][1]
    assert seen[0][1] is error
    assert type(error) is ProviderConnectionError
    assert str(error).startswith(
        f"openai (POST {server.url}/chat/completions): connection dropped mid-stream after 2 "
        "chunks ("
    )
    assert (error.raw, error.status) == (b"".join(reply.parts), 200)
    # text already streamed cannot be recalled; the final response carries the recovery
    assert items[:-1] == [TextDelta("The "), TextDelta("sum")]
    final = items[-1]
    assert isinstance(final, FinalResponse)
    assert final.response.content == "The sum is 5"
    assert agent.history[-1] == ChatMessage(role="assistant", content="The sum is 5")


async def test_a_recovered_streamed_call_before_any_chunk_streams_the_recovery(
    server: WireServer, provider: OpenAIChatProvider
) -> None:
    server.reply(error_reply(503, "overloaded"))
    agent = calculator(provider)
    agent.on("on_model_error", lambda c: {"response": ProviderResponse(content="fallback")})

    items = await stream_all(agent, "What is 2 + 3?")

    assert items[0] == TextDelta("fallback")
    assert isinstance(items[1], FinalResponse) and items[1].response.content == "fallback"
    assert len(items) == 2
