"""AnthropicProvider requests, as a real loopback server receives them: headers, the
top-level system prompt, tools, tool results grouped into one user turn, thinking blocks
sent back unchanged, and the options that map onto the Messages API."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from anthropic_server import AnthropicServer, message, message_reply, stream_reply, text

from agenthooks import AnthropicProvider, ConfigError, ProviderError, tool
from agenthooks.messages import ChatMessage, ProviderRequest, ThinkingBlock, ToolCall

pytestmark = pytest.mark.server

GUARD = 10.0


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


ADD_INPUT_SCHEMA = {
    "additionalProperties": False,
    "properties": {
        "a": {"title": "A", "type": "integer"},
        "b": {"title": "B", "type": "integer"},
    },
    "required": ["a", "b"],
    "type": "object",
}


@pytest.fixture
def server() -> Iterator[AnthropicServer]:
    with AnthropicServer() as wire:
        yield wire


@pytest.fixture
async def provider(server: AnthropicServer) -> AsyncIterator[AnthropicProvider]:
    async with AnthropicProvider(
        "claude-test", base_url=server.base_url, api_key="sk-ant-test", timeout=5.0
    ) as client:
        yield client


def ask(*messages: ChatMessage, **fields: Any) -> ProviderRequest:
    return ProviderRequest(messages=list(messages), **fields)


def user(content: str) -> ChatMessage:
    return ChatMessage(role="user", content=content)


async def sent(
    server: AnthropicServer, provider: AnthropicProvider, request: ProviderRequest
) -> Any:
    server.reply(message_reply(message(text("ok"))))
    await asyncio.wait_for(provider.complete(request), GUARD)
    return server.requests[-1]


async def test_headers_path_and_the_minimal_body(
    server: AnthropicServer, provider: AnthropicProvider
) -> None:
    server.reply(message_reply(message(text("ok"))))

    await asyncio.wait_for(provider.complete(ask(user("hello"))), GUARD)

    (received,) = server.received
    assert (received.method, received.path) == ("POST", "/v1/messages")
    assert received.headers["x-api-key"] == "sk-ant-test"
    assert received.headers["anthropic-version"] == "2023-06-01"
    assert received.headers["content-type"] == "application/json"
    assert "authorization" not in received.headers
    assert received.json == {
        "model": "claude-test",
        "max_tokens": 4096,
        "messages": [{"role": "user", "content": "hello"}],
    }


async def test_a_streamed_request_says_stream_and_accepts_events(
    server: AnthropicServer, provider: AnthropicProvider
) -> None:
    server.reply(stream_reply(message(text("ok"))))

    async def drain() -> None:
        async for _ in provider.stream(ask(user("hello"), system="Be brief.")):
            pass

    await asyncio.wait_for(drain(), GUARD)

    (received,) = server.received
    assert received.headers["accept"] == "text/event-stream"
    assert received.headers["anthropic-version"] == "2023-06-01"
    assert received.json == {
        "model": "claude-test",
        "max_tokens": 4096,
        "system": "Be brief.",
        "messages": [{"role": "user", "content": "hello"}],
        "stream": True,
    }


async def test_a_tool_turn_with_thinking_parallel_results_and_a_follow_up(
    server: AnthropicServer, provider: AnthropicProvider
) -> None:
    thought = ThinkingBlock(thinking="Two sums; add each.", signature="sig-A1==")
    hidden = ThinkingBlock(type="redacted_thinking", data="EncRypTed==")
    request = ask(
        user("What are 2 + 3 and 4 + 5?"),
        ChatMessage(
            role="assistant",
            content="Adding both.",
            thinking_blocks=[thought, hidden],
            tool_calls=[
                ToolCall(id="toolu_1", name="add", arguments={"a": 2, "b": 3}),
                ToolCall(id="toolu_2", name="add", arguments={"a": 4, "b": 5}),
            ],
        ),
        ChatMessage(role="tool", content="5", tool_call_id="toolu_1", name="add"),
        ChatMessage(
            role="tool", content="no more sums", tool_call_id="toolu_2", name="add", is_error=True
        ),
        user("Answer in words."),
        system="Use the tools.",
        tools=[add.schema],
        tool_choice="auto",
        temperature=0.25,
    )

    body = await sent(server, provider, request)

    assert body == {
        "model": "claude-test",
        "max_tokens": 4096,
        "system": "Use the tools.",
        "messages": [
            {"role": "user", "content": "What are 2 + 3 and 4 + 5?"},
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "thinking",
                        "thinking": "Two sums; add each.",
                        "signature": "sig-A1==",
                    },
                    {"type": "redacted_thinking", "data": "EncRypTed=="},
                    {"type": "text", "text": "Adding both."},
                    {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {"a": 2, "b": 3}},
                    {"type": "tool_use", "id": "toolu_2", "name": "add", "input": {"a": 4, "b": 5}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "content": "5"},
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_2",
                        "content": "no more sums",
                        "is_error": True,
                    },
                    {"type": "text", "text": "Answer in words."},
                ],
            },
        ],
        "tools": [
            {"name": "add", "description": "Add two integers.", "input_schema": ADD_INPUT_SCHEMA}
        ],
        "tool_choice": {"type": "auto"},
        "temperature": 0.25,
    }


async def test_tool_results_lead_their_user_turn_even_after_a_message_injected_before_them(
    server: AnthropicServer, provider: AnthropicProvider
) -> None:
    request = ask(
        user("go"),
        ChatMessage(role="assistant", tool_calls=[ToolCall(id="t1", name="add", arguments={})]),
        user("Remember: answer in JSON."),
        ChatMessage(role="tool", content="7", tool_call_id="t1"),
    )

    body = await sent(server, provider, request)

    assert body["messages"][1:] == [
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "add", "input": {}}],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "7"},
                {"type": "text", "text": "Remember: answer in JSON."},
            ],
        },
    ]


async def test_system_messages_of_the_transcript_join_the_top_level_system(
    server: AnthropicServer, provider: AnthropicProvider
) -> None:
    request = ask(
        ChatMessage(role="system", content="Today is Monday."),
        user("hi"),
        system="You are terse.",
    )

    body = await sent(server, provider, request)

    assert body["system"] == "You are terse.\n\nToday is Monday."
    assert body["messages"] == [{"role": "user", "content": "hi"}]


async def test_tool_schemas_in_each_accepted_form(
    server: AnthropicServer, provider: AnthropicProvider
) -> None:
    native = {"name": "lookup", "description": "Look up.", "input_schema": {"type": "object"}}
    server_tool = {"type": "web_search_20250305", "name": "web_search", "max_uses": 2}
    bare = {"name": "now", "parameters": {"type": "object", "properties": {}}}
    flat = {"type": "function", "name": "ping"}

    body = await sent(
        server, provider, ask(user("x"), tools=[add.schema, native, server_tool, bare, flat])
    )

    assert body["tools"] == [
        {"name": "add", "description": "Add two integers.", "input_schema": ADD_INPUT_SCHEMA},
        native,
        server_tool,
        {"name": "now", "input_schema": {"type": "object", "properties": {}}},
        {"name": "ping", "input_schema": {"type": "object", "properties": {}}},
    ]


@pytest.mark.parametrize(
    ("choice", "wire"),
    [
        ("auto", {"type": "auto"}),
        ("required", {"type": "any"}),
        ("any", {"type": "any"}),
        ("none", {"type": "none"}),
        ({"type": "function", "function": {"name": "add"}}, {"type": "tool", "name": "add"}),
        ({"type": "tool", "name": "add"}, {"type": "tool", "name": "add"}),
    ],
)
async def test_tool_choice(
    server: AnthropicServer, provider: AnthropicProvider, choice: Any, wire: Any
) -> None:
    body = await sent(server, provider, ask(user("x"), tools=[add.schema], tool_choice=choice))
    assert body["tool_choice"] == wire


@pytest.mark.parametrize(
    ("effort", "thinking", "max_tokens"),
    [
        ("minimal", {"type": "enabled", "budget_tokens": 1024}, 4096),
        ("low", {"type": "enabled", "budget_tokens": 2048}, 4096),
        ("medium", {"type": "enabled", "budget_tokens": 8192}, 8192 + 4096),
        ("high", {"type": "enabled", "budget_tokens": 16384}, 16384 + 4096),
        ("3000", {"type": "enabled", "budget_tokens": 3000}, 4096),
        ("none", None, 4096),
    ],
)
async def test_reasoning_effort_turns_extended_thinking_on(
    server: AnthropicServer,
    provider: AnthropicProvider,
    effort: str,
    thinking: Any,
    max_tokens: int,
) -> None:
    body = await sent(server, provider, ask(user("x"), reasoning_effort=effort))
    assert body.get("thinking") == thinking
    assert body["max_tokens"] == max_tokens


async def test_model_max_tokens_and_extra_body(server: AnthropicServer) -> None:
    async with AnthropicProvider(
        "claude-default",
        server.base_url,
        "key",
        256,
        extra_body={"metadata": {"user_id": "u-1"}, "top_k": 5},
        headers={"anthropic-beta": "interleaved-thinking-2025-05-14"},
    ) as provider:
        body = await sent(server, provider, ask(user("x"), model="claude-override"))
    assert body == {
        "model": "claude-override",
        "max_tokens": 256,
        "messages": [{"role": "user", "content": "x"}],
        "metadata": {"user_id": "u-1"},
        "top_k": 5,
    }
    assert server.received[-1].headers["anthropic-beta"] == "interleaved-thinking-2025-05-14"


async def test_the_api_key_comes_from_the_environment_or_is_left_out(
    server: AnthropicServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-env")
    async with AnthropicProvider("m", base_url=server.base_url) as provider:
        await sent(server, provider, ask(user("x")))
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    async with AnthropicProvider("m", base_url=server.base_url) as provider:
        await sent(server, provider, ask(user("x")))
        assert "sk-ant" not in repr(provider)
    assert server.received[0].headers["x-api-key"] == "sk-ant-env"
    assert "x-api-key" not in server.received[1].headers


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        (
            {"tool_choice": "sometimes"},
            "anthropic: tool_choice 'sometimes' is not one of auto, required, any, none",
        ),
        (
            {"reasoning_effort": "extreme"},
            "anthropic: reasoning_effort 'extreme' is not one of none, minimal, low, medium, high, or a token budget",
        ),
        (
            {"tools": [{"description": "nameless"}]},
            'anthropic: tools[0] has no name: {"description": "nameless"}',
        ),
    ],
)
async def test_bad_request_fields_raise_a_provider_error_naming_them(
    server: AnthropicServer, provider: AnthropicProvider, fields: Any, problem: str
) -> None:
    with pytest.raises(ProviderError) as caught:
        await provider.complete(ask(user("x"), **fields))
    assert str(caught.value) == problem
    assert server.received == []


def test_max_tokens_must_be_positive() -> None:
    with pytest.raises(ConfigError) as caught:
        AnthropicProvider("m", max_tokens=0)
    assert str(caught.value) == "AnthropicProvider: max_tokens: must be at least 1, got 0"
