"""The acceptance test of the runtime: the exact event order of a real run and exactly what the
provider received in each request."""

from __future__ import annotations

from typing import Any

from agenthooks import (
    Agent,
    AgentResponse,
    ChatMessage,
    ProviderRequest,
    ProviderResponse,
    ScriptedProvider,
    ToolCall,
    tool,
)
from agenthooks.events.contexts import EventRecord

INSTRUCTIONS = "Answer briefly."
QUESTION = "What is 1+2, and what do you know about x?"
ANSWER = "1 + 2 = 3; x has two hits."


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
async def lookup(key: str) -> dict[str, Any]:
    """Look a key up."""
    return {"key": key, "hits": [1, 2], "note": "ünïcode"}


CALL_ADD = ToolCall(id="c1", name="add", arguments={"a": 1, "b": 2})
CALL_LOOKUP = ToolCall(id="c2", name="lookup", arguments={"key": "x"})


def two_turns(*more: ProviderResponse | str) -> ScriptedProvider:
    """Turn 1 asks for two tools; turn 2 answers; then ``more``."""
    return ScriptedProvider(
        [
            ProviderResponse(
                content=None, tool_calls=[CALL_ADD, CALL_LOOKUP], finish_reason="tool_calls"
            ),
            ProviderResponse(content=ANSWER),
            *more,
        ]
    )


def make_agent(provider: ScriptedProvider) -> Agent:
    return Agent("calc", INSTRUCTIONS, provider=provider, tools=[add, lookup])


TWO_TURNS = [
    "on_chat_start",
    "on_user_message",
    "on_message",  # the user message
    "pre_agent",
    # turn 0
    "on_loop_start",
    "transform_context",
    "pre_request",
    "on_response",
    "on_message",  # the assistant message with two tool calls
    "pre_tool_call",  # add
    "on_tool_call_result",
    "on_message",  # tool message c1
    "pre_tool_call",  # lookup
    "on_tool_call_result",
    "on_message",  # tool message c2
    "on_loop_end",
    "prepare_next_turn",
    "should_stop",
    # turn 1
    "on_loop_start",
    "transform_context",
    "pre_request",
    "on_response",
    "on_loop_end",
    "post_agent",
    "on_message",  # the final answer, committed after post_agent allowed it
    "on_chat_done",
    "on_chat_end",
]

USER = ChatMessage(role="user", content=QUESTION)
ASSISTANT_CALLS = ChatMessage(role="assistant", content=None, tool_calls=[CALL_ADD, CALL_LOOKUP])
TOOL_ADD = ChatMessage(role="tool", content="3", tool_call_id="c1", name="add")
TOOL_LOOKUP = ChatMessage(
    role="tool",
    content='{"key": "x", "hits": [1, 2], "note": "ünïcode"}',
    tool_call_id="c2",
    name="lookup",
)
FINAL = ChatMessage(role="assistant", content=ANSWER)


async def test_two_turns_two_tool_calls_fire_the_exact_event_sequence(recorder: Any) -> None:
    agent = make_agent(two_turns())
    recorder.attach(agent)

    await agent.chat(QUESTION)

    assert recorder.names == TWO_TURNS


async def test_on_event_records_the_same_sequence_once_per_emission() -> None:
    agent = make_agent(two_turns())
    records: list[EventRecord] = []
    agent.on("on_event", records.append)

    await agent.chat(QUESTION)

    assert [r.type for r in records] == TWO_TURNS
    run_ids = {r.run_id for r in records}
    assert len(run_ids) == 1 and "" not in run_ids
    assert {r.agent for r in records} == {"calc"}
    assert {r.branch for r in records} == {"calc"}
    tool_records = [r for r in records if r.type in ("pre_tool_call", "on_tool_call_result")]
    assert [(r.type, r.tool_call_id, r.tool_name, r.input, r.output) for r in tool_records] == [
        ("pre_tool_call", "c1", "add", {"a": 1, "b": 2}, None),
        ("on_tool_call_result", "c1", "add", {"a": 1, "b": 2}, 3),
        ("pre_tool_call", "c2", "lookup", {"key": "x"}, None),
        (
            "on_tool_call_result",
            "c2",
            "lookup",
            {"key": "x"},
            {"key": "x", "hits": [1, 2], "note": "ünïcode"},
        ),
    ]
    assert not any(r.is_error for r in records)


async def test_the_provider_receives_exactly_the_transcript(recorder: Any) -> None:
    provider = two_turns()
    agent = make_agent(provider)
    recorder.attach(agent)

    await agent.chat(QUESTION)

    schemas = [add.schema, lookup.schema]
    assert provider.requests == [
        ProviderRequest(model="", system=INSTRUCTIONS, messages=[USER], tools=schemas),
        ProviderRequest(
            model="",
            system=INSTRUCTIONS,
            messages=[USER, ASSISTANT_CALLS, TOOL_ADD, TOOL_LOOKUP],
            tools=schemas,
        ),
    ]
    # the instructions travel in `system` only, never as a message
    assert all(m.role != "system" for r in provider.requests for m in r.messages)
    assert add.schema == {
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


async def test_the_zero_hook_path_sends_the_same_requests_and_keeps_the_same_history(
    recorder: Any,
) -> None:
    hooked, bare = two_turns(), two_turns()
    hooked_agent, bare_agent = make_agent(hooked), make_agent(bare)
    recorder.attach(hooked_agent)

    hooked_response = await hooked_agent.chat(QUESTION)
    bare_response = await bare_agent.chat(QUESTION)

    assert bare.requests == hooked.requests
    assert bare_agent.history == hooked_agent.history
    assert bare_response.model_copy(update={"agent": None}) == hooked_response.model_copy(
        update={"agent": None}
    )


async def test_the_response_history_and_contexts_of_the_run(recorder: Any) -> None:
    agent = make_agent(two_turns())
    recorder.attach(agent)

    response = await agent.chat(QUESTION)

    transcript = [USER, ASSISTANT_CALLS, TOOL_ADD, TOOL_LOOKUP, FINAL]
    assert response == AgentResponse(
        content=ANSWER, finish_reason="stop", messages=transcript, iterations=2, agent="calc"
    )
    assert agent.history == transcript
    assert [ctx.message for ctx in recorder.of("on_message")] == transcript
    assert [ctx.iteration for ctx in recorder.of("on_loop_start")] == [0, 1]
    assert [ctx.iteration for ctx in recorder.of("on_loop_end")] == [0, 1]
    assert recorder.of("on_chat_start")[0].message == QUESTION
    assert recorder.of("on_user_message")[0].message == QUESTION
    assert recorder.of("pre_agent")[0].input == QUESTION
    assert recorder.of("post_agent")[0].input == QUESTION
    assert recorder.of("post_agent")[0].response.content == ANSWER
    # same tool_call_id in pre_tool_call, on_tool_call_result and the tool message
    pre = recorder.of("pre_tool_call")
    post = recorder.of("on_tool_call_result")
    assert [(c.tool_call_id, c.call, c.tool) for c in pre] == [
        ("c1", CALL_ADD, add),
        ("c2", CALL_LOOKUP, lookup),
    ]
    assert [(c.tool_call_id, c.result) for c in post] == [
        ("c1", 3),
        ("c2", {"key": "x", "hits": [1, 2], "note": "ünïcode"}),
    ]
    assert [c.scope.name for c in pre] == ["default", "default"]
    turn = recorder.of("prepare_next_turn")[0]
    assert turn.message == ASSISTANT_CALLS
    assert turn.tool_messages == [TOOL_ADD, TOOL_LOOKUP]
    assert turn.new_messages == [USER, ASSISTANT_CALLS, TOOL_ADD, TOOL_LOOKUP]
    assert turn.messages == [USER, ASSISTANT_CALLS, TOOL_ADD, TOOL_LOOKUP]
    stop = recorder.of("should_stop")[0]  # its own context, with what prepare_next_turn left
    assert (stop.message, stop.tool_messages, stop.new_messages, stop.messages) == (
        turn.message,
        turn.tool_messages,
        turn.new_messages,
        turn.messages,
    )
    done = recorder.of("on_chat_done")[0]
    end = recorder.of("on_chat_end")[0]
    assert done.response == response
    assert (end.response, end.error) == (response, None)
    assert isinstance(end.duration, float) and end.duration >= 0
    assert len({ctx.run_id for _, ctx in recorder.events}) == 1


async def test_a_second_chat_continues_the_agents_history(recorder: Any) -> None:
    provider = two_turns("Still 3.")
    agent = make_agent(provider)
    recorder.attach(agent)

    await agent.chat(QUESTION)
    run_one = {ctx.run_id for _, ctx in recorder.events}
    recorder.clear()
    second = await agent.chat("And again?")

    again = ChatMessage(role="user", content="And again?")
    still = ChatMessage(role="assistant", content="Still 3.")
    assert provider.requests[2].messages == [
        USER,
        ASSISTANT_CALLS,
        TOOL_ADD,
        TOOL_LOOKUP,
        FINAL,
        again,
    ]
    assert second.messages == [again, still]
    assert agent.history == [USER, ASSISTANT_CALLS, TOOL_ADD, TOOL_LOOKUP, FINAL, again, still]
    assert recorder.names == [
        "on_chat_start",
        "on_user_message",
        "on_message",
        "pre_agent",
        "on_loop_start",
        "transform_context",
        "pre_request",
        "on_response",
        "on_loop_end",
        "post_agent",
        "on_message",
        "on_chat_done",
        "on_chat_end",
    ]
    assert [ctx.iteration for ctx in recorder.of("on_loop_start")] == [0]
    assert run_one.isdisjoint({ctx.run_id for _, ctx in recorder.events})


async def test_blinker_receivers_get_each_context_after_the_chain() -> None:
    agent = make_agent(two_turns())
    got: list[tuple[str, Any]] = []
    order: list[str] = []

    def receiver(sender: Any, ctx: Any) -> None:
        got.append((sender is agent.bus, ctx.message))
        order.append("receiver")

    agent.bus.signal("onMessage").connect(receiver, weak=False)
    agent.on("on_event", lambda rec: order.append("on_event") if rec.type == "on_message" else None)
    agent.on("on_message", lambda ctx: order.append("handler"))

    await agent.chat(QUESTION)

    assert got == [(True, m) for m in [USER, ASSISTANT_CALLS, TOOL_ADD, TOOL_LOOKUP, FINAL]]
    assert order == ["handler", "receiver", "on_event"] * 5


async def test_a_blinker_receiver_alone_is_enough_to_fire_an_event() -> None:
    agent = make_agent(two_turns())
    got: list[Any] = []
    agent.bus.signal("on_tool_call_result").connect(
        lambda sender, ctx: got.append((ctx.tool_call_id, ctx.result)), weak=False
    )

    await agent.chat(QUESTION)

    assert got == [("c1", 3), ("c2", {"key": "x", "hits": [1, 2], "note": "ünïcode"})]
