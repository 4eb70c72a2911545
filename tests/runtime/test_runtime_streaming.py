"""chat_stream() in real runs: the items it yields, parity with chat(), gated streaming, a
cached answer as one chunk, and a provider failing mid-stream (over real loopback HTTP)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from wire_server import WireServer, chunk, sse_reply, text_stream

from agenthooks import (
    Agent,
    AgentResponse,
    ChatMessage,
    Deny,
    FinalResponse,
    OpenAIChatProvider,
    ProviderConnectionError,
    ProviderResponse,
    ScriptedProvider,
    TextDelta,
    ToolCall,
    ToolCallEnd,
    ToolCallStart,
    tool,
)

GUARD = 10.0  # seconds: no test may hang, whatever the provider does
STREAM_EVENTS = ("on_stream_start", "on_stream_chunk", "on_stream_end", "on_stream_error")


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
def stats(topic: str) -> dict[str, Any]:
    """Statistics about a topic."""
    return {"topic": topic, "count": 2}


CALL_ADD = ToolCall(id="c1", name="add", arguments={"a": 1, "b": 2})
CALL_STATS = ToolCall(id="c2", name="stats", arguments={"topic": "cats"})


def script() -> list[Any]:
    return [
        ProviderResponse(
            content="Let me compute.", tool_calls=[CALL_ADD, CALL_STATS], finish_reason="tool_calls"
        ),
        ProviderResponse(content="The answer is 3."),
    ]


def make_agent(*items: Any) -> tuple[Agent, ScriptedProvider]:
    provider = ScriptedProvider(list(items) or script())
    return Agent("streamer", "Stream.", provider=provider, tools=[add, stats]), provider


async def drain(agent: Agent, message: str = "compute", **options: Any) -> list[Any]:
    async def collect() -> list[Any]:
        return [item async for item in agent.chat_stream(message, **options)]

    return await asyncio.wait_for(collect(), GUARD)


def texts(items: list[Any]) -> list[str]:
    return [item.text for item in items if isinstance(item, TextDelta)]


async def test_chat_stream_yields_text_tool_calls_and_the_final_response_last() -> None:
    agent, _ = make_agent()

    items = await drain(agent)

    final = items[-1]
    assert isinstance(final, FinalResponse)
    assert items[:-1] == [
        TextDelta("Let "),
        TextDelta("me "),
        TextDelta("compute."),
        ToolCallStart(CALL_ADD),
        ToolCallEnd(CALL_ADD, result=3),
        ToolCallStart(CALL_STATS),
        ToolCallEnd(CALL_STATS, result={"topic": "cats", "count": 2}),
        TextDelta("The "),
        TextDelta("answer "),
        TextDelta("is "),
        TextDelta("3."),
    ]
    assert (final.response.content, final.response.finish_reason) == ("The answer is 3.", "stop")
    assert final.response.messages == agent.history


async def test_streaming_parity_with_chat(recorder: Any) -> None:
    plain, plain_provider = make_agent()
    streamed, streamed_provider = make_agent()
    plain_events = type(recorder)()
    plain_events.attach(plain)
    recorder.attach(streamed)

    response = await plain.chat("compute")
    items = await drain(streamed)

    # every event chat() fires, in the same order; the stream events come in addition
    assert [n for n in recorder.names if n not in STREAM_EVENTS] == plain_events.names
    turn = [
        "pre_request",
        "on_stream_start",
        "on_stream_chunk",
        "on_stream_chunk",
        "on_stream_chunk",
        "on_stream_end",
        "on_response",
    ]
    first = recorder.names.index("pre_request")
    assert recorder.names[first : first + 7] == turn
    second = recorder.names.index("pre_request", first + 1)
    assert recorder.names[second : second + 8] == [*turn[:5], "on_stream_chunk", *turn[5:]]
    # ... with the same payloads
    assert [c.message for c in recorder.of("on_message")] == [
        c.message for c in plain_events.of("on_message")
    ]
    assert streamed_provider.requests == plain_provider.requests
    assert items[-1].response == response
    assert streamed.history == plain.history
    chunks = recorder.of("on_stream_chunk")
    assert [(c.delta, c.accumulated) for c in chunks[:3]] == [
        ("Let ", "Let "),
        ("me ", "Let me "),
        ("compute.", "Let me compute."),
    ]
    assert recorder.of("on_stream_end")[1].response == ProviderResponse(content="The answer is 3.")
    assert recorder.of("on_stream_start")[0].request == streamed_provider.requests[0]


async def test_a_denied_tool_ends_with_the_text_the_model_sees() -> None:
    agent, _ = make_agent()
    agent.on("pre_tool_call", lambda ctx: Deny(), match="stats")

    items = await drain(agent)

    assert ToolCallEnd(CALL_STATS, error='Tool call "stats" was denied') in items
    assert ToolCallEnd(CALL_ADD, result=3) in items


# gated streaming --------------------------------------------------------------------------


async def test_gated_stream_releases_the_allowed_final_content(recorder: Any) -> None:
    agent, _ = make_agent()
    recorder.attach(agent)
    agent.on(
        "post_agent",
        lambda ctx: {
            "response": ctx.response.model_copy(
                update={"content": ctx.response.content + " (checked)"}
            )
        },
    )

    items = await drain(agent, gated=True)

    assert items == [
        ToolCallStart(CALL_ADD),
        ToolCallEnd(CALL_ADD, result=3),
        ToolCallStart(CALL_STATS),
        ToolCallEnd(CALL_STATS, result={"topic": "cats", "count": 2}),
        TextDelta("The answer is 3. (checked)"),
        FinalResponse(items[-1].response),
    ]
    assert items[-1].response.content == "The answer is 3. (checked)"
    # observers still see every chunk as it arrives
    assert [c.delta for c in recorder.of("on_stream_chunk")] == [
        "Let ",
        "me ",
        "compute.",
        "The ",
        "answer ",
        "is ",
        "3.",
    ]


async def test_a_gated_stream_never_releases_a_denied_answer() -> None:
    agent, _ = make_agent("The secret is 42.")
    agent.on("post_agent", lambda ctx: Deny("withheld"))

    items = await drain(agent, gated=True)

    assert items == [
        FinalResponse(
            AgentResponse(
                content="withheld",
                finish_reason="denied",
                messages=[ChatMessage(role="user", content="compute")],
                iterations=1,
                agent="streamer",
            )
        )
    ]


async def test_a_post_agent_guard_gates_automatically() -> None:
    agent, _ = make_agent("The secret is 42.")
    agent.on(
        "post_agent",
        lambda ctx: Deny("no secrets") if "secret" in (ctx.response.content or "") else None,
        guard=True,
    )

    items = await drain(agent)

    assert texts(items) == []
    assert items[-1].response.content == "no secrets"
    assert agent.history == [ChatMessage(role="user", content="compute")]


async def test_an_ungated_stream_cannot_recall_text_but_history_stays_clean() -> None:
    agent, _ = make_agent("The secret is 42.")
    agent.on("post_agent", lambda ctx: Deny("no secrets"))  # an ordinary handler: no gate

    items = await drain(agent)

    assert texts(items) == ["The ", "secret ", "is ", "42."]
    assert items[-1].response.content == "no secrets"
    assert agent.history == [ChatMessage(role="user", content="compute")]


# cached and recovered answers -------------------------------------------------------------


async def test_a_cache_hit_streams_as_one_chunk(recorder: Any) -> None:
    agent, provider = make_agent()
    recorder.attach(agent)
    agent.on(
        "pre_request",
        lambda ctx: {"response": ProviderResponse(content="A cached answer, in full.")},
    )

    items = await drain(agent)

    assert items[:-1] == [TextDelta("A cached answer, in full.")]
    assert provider.requests == []
    assert not set(STREAM_EVENTS) & set(recorder.names)


async def test_a_recovered_provider_error_streams_as_one_chunk(recorder: Any) -> None:
    failure = ConnectionResetError("reset by peer")
    agent, _ = make_agent(failure)
    recorder.attach(agent)
    agent.on("on_model_error", lambda ctx: {"response": ProviderResponse(content="Fallback.")})

    items = await drain(agent)

    assert items == [TextDelta("Fallback."), FinalResponse(items[-1].response)]
    assert recorder.names[6:10] == [
        "pre_request",
        "on_stream_start",
        "on_stream_error",
        "on_model_error",
    ]
    assert recorder.of("on_stream_error")[0].error is failure


# a provider failing mid-stream, over real HTTP --------------------------------------------


async def test_on_stream_error_when_the_connection_drops_mid_stream(recorder: Any) -> None:
    with WireServer() as server:
        server.reply(
            sse_reply(
                [chunk(role="assistant", content=""), chunk("partial "), chunk("answer")],
                done=False,
                end="drop",
            )
        )
        async with OpenAIChatProvider(
            "test-model", base_url=server.url, api_key="sk-test", timeout=2.0
        ) as provider:
            agent = Agent("streamer", "Stream.", provider=provider)
            recorder.attach(agent)
            seen: list[Any] = []

            async def consume() -> None:
                async for item in agent.chat_stream("compute"):
                    seen.append(item)

            with pytest.raises(ProviderConnectionError) as caught:
                await asyncio.wait_for(consume(), GUARD)

    assert seen == [TextDelta("partial "), TextDelta("answer")]
    assert recorder.names[6:] == [
        "pre_request",
        "on_stream_start",
        "on_stream_chunk",
        "on_stream_chunk",
        "on_stream_error",
        "on_model_error",
        "on_chat_error",
        "on_chat_end",
    ]
    error = recorder.of("on_stream_error")[0]
    assert (error.error, error.accumulated) == (caught.value, "partial answer")
    assert recorder.of("on_chat_error")[0].error is caught.value
    assert agent.history == [ChatMessage(role="user", content="compute")]


async def test_a_real_http_stream_matches_its_events(recorder: Any) -> None:
    with WireServer() as server:
        server.reply(text_stream("Hello from the wire."))
        async with OpenAIChatProvider(
            "test-model", base_url=server.url, api_key="sk-test", timeout=2.0
        ) as provider:
            agent = Agent("streamer", "Stream.", provider=provider)
            recorder.attach(agent)
            items = await drain(agent)
        body = server.requests[0]

    assert texts(items) == ["Hello ", "from ", "the ", "wire."]
    assert items[-1].response.content == "Hello from the wire."
    assert body["stream"] is True
    assert body["messages"] == [
        {"role": "system", "content": "Stream."},
        {"role": "user", "content": "compute"},
    ]
    assert [c.accumulated for c in recorder.of("on_stream_chunk")][-1] == "Hello from the wire."
    assert recorder.of("on_stream_end")[0].response.usage.total_tokens == 15


@pytest.mark.parametrize("gated", [False, True])
async def test_a_pre_agent_short_circuit_streams_as_one_chunk(gated: bool) -> None:
    agent, provider = make_agent()
    agent.on("pre_agent", lambda ctx: {"response": AgentResponse(content="Known answer.")})
    agent.on(
        "post_agent",
        lambda ctx: {
            "response": ctx.response.model_copy(
                update={"content": ctx.response.content + " (checked)"}
            )
        },
    )

    items = await drain(agent, gated=gated)

    assert items[:-1] == [TextDelta("Known answer. (checked)")]
    assert items[-1].response.content == "Known answer. (checked)"
    assert provider.requests == []
