"""An Agent on AnthropicProvider over a loopback Messages API server, end to end: the same
hooks fire in the same order as on the OpenAI provider, for chat and for chat_stream; denied
and parallel tool results go back in one user turn; thinking blocks reach the hooks and go
back unchanged on every later request of the run."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from anthropic_server import (
    AnthropicServer,
    message,
    message_reply,
    redacted,
    stream_reply,
    text,
    thinking,
    tool_use,
    usage,
    words,
)
from wire_server import WireServer, chunk, completion, json_reply, sse_reply, usage_chunk
from wire_server import tool_call as openai_call

from agenthooks import (
    Agent,
    AnthropicProvider,
    Deny,
    FinalResponse,
    OpenAIChatProvider,
    Provider,
    TextDelta,
    tool,
)
from agenthooks.messages import ChatMessage, ThinkingBlock, ToolCall, Usage
from agenthooks.testing import HookRecorder

pytestmark = pytest.mark.server

GUARD = 10.0
QUESTION = "What is 2 + 3? Then delete notes.txt."
ANSWER = "2 + 3 is 5. Deleting files is not allowed here."
DENIED = "file deletion is disabled in this session"
PLAN = ThinkingBlock(thinking="Add first, then try the deletion.", signature="c2lnLTE=")


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
def delete_file(path: str) -> str:
    """Delete a file."""
    raise AssertionError("a denied tool must never run")


@pytest.fixture
def anthropic_server() -> Iterator[AnthropicServer]:
    with AnthropicServer() as server:
        yield server


@pytest.fixture
def openai_server() -> Iterator[WireServer]:
    with WireServer() as server:
        yield server


def build(provider: Provider) -> Agent:
    agent = Agent("office", "Use the tools.", provider=provider, tools=[add, delete_file])
    agent.on("pre_tool_call", lambda ctx: Deny(DENIED), match="delete_file")
    return agent


# the same conversation in each wire format


def anthropic_turns(streamed: bool) -> list[Any]:
    reply = stream_reply if streamed else message_reply
    return [
        reply(
            message(
                thinking(PLAN.thinking, PLAN.signature),
                tool_use("call_add", "add", {"a": 2, "b": 3}),
                tool_use("call_del", "delete_file", {"path": "notes.txt"}),
                stop_reason="tool_use",
                tokens=usage(40, 12),
            )
        ),
        reply(message(text(ANSWER), tokens=usage(60, 9))),
    ]


def openai_turns(streamed: bool) -> list[Any]:
    calls = [
        openai_call("call_add", "add", {"a": 2, "b": 3}),
        openai_call("call_del", "delete_file", {"path": "notes.txt"}),
    ]
    if not streamed:
        return [
            json_reply(
                completion(None, tool_calls=calls, finish_reason="tool_calls", usage=(40, 12))
            ),
            json_reply(completion(ANSWER, usage=(60, 9))),
        ]
    deltas = [{"index": i, **call} for i, call in enumerate(calls)]
    return [
        sse_reply(
            [
                chunk(role="assistant", tool_calls=deltas),
                chunk(finish_reason="tool_calls"),
                usage_chunk(40, 12),
            ]
        ),
        sse_reply(
            [
                chunk(role="assistant", content=""),
                *(chunk(word) for word in words(ANSWER)),
                chunk(finish_reason="stop"),
                usage_chunk(60, 9),
            ]
        ),
    ]


async def run(agent: Agent, streamed: bool) -> tuple[HookRecorder, Any]:
    recorder = HookRecorder()
    recorder.attach(agent)
    if streamed:
        items = await asyncio.wait_for(_drain(agent), GUARD)
        final = items[-1]
        assert isinstance(final, FinalResponse)
        return recorder, (final.response, items)
    return recorder, (await asyncio.wait_for(agent.chat(QUESTION), GUARD), None)


async def _drain(agent: Agent) -> list[Any]:
    return [item async for item in agent.chat_stream(QUESTION)]


def plain(messages: list[ChatMessage]) -> list[ChatMessage]:
    return [m.model_copy(update={"thinking_blocks": []}) for m in messages]


@pytest.mark.parametrize("streamed", [False, True], ids=["chat", "chat_stream"])
async def test_the_same_hooks_fire_in_the_same_order_as_on_the_openai_provider(
    anthropic_server: AnthropicServer, openai_server: WireServer, streamed: bool
) -> None:
    anthropic_server.reply(*anthropic_turns(streamed))
    openai_server.reply(*openai_turns(streamed))
    async with (
        AnthropicProvider("claude-test", base_url=anthropic_server.base_url, timeout=5) as claude,
        OpenAIChatProvider("gpt-test", base_url=openai_server.url, timeout=5) as gpt,
    ):
        on_claude, (claude_answer, claude_items) = await run(build(claude), streamed)
        on_gpt, (gpt_answer, gpt_items) = await run(build(gpt), streamed)

    assert on_claude.names() == on_gpt.names()
    names = on_claude.names()
    assert names.count("pre_request") == 2
    assert ("on_stream_chunk" in names) is streamed  # chat() never streams, chat_stream() does
    assert [r.json.get("stream") for r in anthropic_server.received] == [streamed or None] * 2
    if streamed:  # tool starts and ends, text deltas: the same items before the final one
        assert claude_items[:-1] == gpt_items[:-1]
        assert [type(i).__name__ for i in claude_items].count("TextDelta") == len(ANSWER.split())
    assert (claude_answer.content, claude_answer.finish_reason) == (ANSWER, "stop")
    assert plain(claude_answer.messages) == plain(gpt_answer.messages)
    assert (
        claude_answer.usage
        == gpt_answer.usage
        == Usage(input_tokens=100, output_tokens=21, total_tokens=121)
    )
    errors = [(c.call.name, c.error) for c in on_claude.of("on_tool_call_error")]
    assert [name for name, _ in errors] == ["delete_file"]


async def test_results_and_denies_go_back_in_one_user_turn_with_the_thinking_leading(
    anthropic_server: AnthropicServer,
) -> None:
    anthropic_server.reply(*anthropic_turns(streamed=False))
    async with AnthropicProvider("claude-test", base_url=anthropic_server.base_url) as claude:
        agent = build(claude)
        recorder = HookRecorder()
        recorder.attach(agent)
        await asyncio.wait_for(agent.chat(QUESTION), GUARD)

    second = anthropic_server.requests[1]
    assert second["system"] == "Use the tools."
    assert second["messages"] == [
        {"role": "user", "content": QUESTION},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": PLAN.thinking, "signature": PLAN.signature},
                {"type": "tool_use", "id": "call_add", "name": "add", "input": {"a": 2, "b": 3}},
                {
                    "type": "tool_use",
                    "id": "call_del",
                    "name": "delete_file",
                    "input": {"path": "notes.txt"},
                },
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "call_add", "content": "5"},
                {
                    "type": "tool_result",
                    "tool_use_id": "call_del",
                    "content": DENIED,
                    "is_error": True,
                },
            ],
        },
    ]
    # the hooks saw the thinking block on the response and on the committed message
    (first_response, _) = recorder.of("on_response")
    assert first_response.response.thinking_blocks == [PLAN]
    assistant = [c.message for c in recorder.of("on_message") if c.message.role == "assistant"]
    assert assistant[0].thinking_blocks == [PLAN]


@pytest.mark.parametrize("streamed", [False, True], ids=["chat", "chat_stream"])
async def test_every_thinking_block_goes_back_unchanged_on_each_later_request(
    anthropic_server: AnthropicServer, streamed: bool
) -> None:
    first = ThinkingBlock(thinking="Start with 2 + 3.", signature="c2lnLUE=")
    hidden = ThinkingBlock(type="redacted_thinking", data="cmVkYWN0ZWQ=")
    second = ThinkingBlock(thinking="Now add 4.", signature="c2lnLUI=")
    last = ThinkingBlock(thinking="Done.", signature="c2lnLUM=")
    reply = stream_reply if streamed else message_reply

    def block(b: ThinkingBlock) -> Any:
        return thinking(b.thinking, b.signature) if b.type == "thinking" else redacted(b.data)

    anthropic_server.reply(
        reply(
            message(
                block(first),
                block(hidden),
                tool_use("t1", "add", {"a": 2, "b": 3}),
                stop_reason="tool_use",
            )
        ),
        reply(
            message(
                block(second),
                text("Then 4."),
                tool_use("t2", "add", {"a": 5, "b": 4}),
                stop_reason="tool_use",
            )
        ),
        reply(message(block(last), text("9"))),
    )
    async with AnthropicProvider("claude-test", base_url=anthropic_server.base_url) as claude:
        agent = Agent("calc", provider=claude, tools=[add])
        if streamed:
            items = await asyncio.wait_for(_collect(agent.chat_stream("2 + 3 + 4?")), GUARD)
            response = items[-1].response
            assert [i.text for i in items if isinstance(i, TextDelta)] == ["Then ", "4.", "9"]
        else:
            response = await asyncio.wait_for(agent.chat("2 + 3 + 4?"), GUARD)

    third = anthropic_server.requests[2]["messages"]
    assert [turn["role"] for turn in third] == ["user", "assistant", "user", "assistant", "user"]
    assert third[1]["content"][:2] == [
        {"type": "thinking", "thinking": "Start with 2 + 3.", "signature": "c2lnLUE="},
        {"type": "redacted_thinking", "data": "cmVkYWN0ZWQ="},
    ]
    assert third[3]["content"] == [
        {"type": "thinking", "thinking": "Now add 4.", "signature": "c2lnLUI="},
        {"type": "text", "text": "Then 4."},
        {"type": "tool_use", "id": "t2", "name": "add", "input": {"a": 5, "b": 4}},
    ]
    assert third[4]["content"] == [{"type": "tool_result", "tool_use_id": "t2", "content": "9"}]
    assert response.content == "9"
    final = response.messages[-1]
    assert final == ChatMessage(role="assistant", content="9", thinking_blocks=[last])
    assert agent.history[1].thinking_blocks == [first, hidden]
    assert agent.history[1].tool_calls == [
        ToolCall(id="t1", name="add", arguments={"a": 2, "b": 3})
    ]


async def _collect(stream: Any) -> list[Any]:
    return [item async for item in stream]
