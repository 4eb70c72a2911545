"""LangChain's objects as ours and back: a round trip with no handler gives back the very
objects, and a rewrite changes only what the handler changed (images, provider blocks, ids and
``additional_kwargs`` stay where they were)."""

from __future__ import annotations

from typing import Any

from agenthooks_langchain.translate import (
    message_in,
    messages_out,
    request_in,
    response_in,
    response_out,
    usage_in,
    usage_out,
)
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_scripted import agent, ask, script

from agenthooks import HookBus, PreRequestContext, ProviderResponse, ToolCall, Usage

IMAGE = {"type": "image", "url": "https://example.com/cat.png"}


def _history() -> list[Any]:
    return [
        HumanMessage(
            content=[{"type": "text", "text": "What is this?"}, IMAGE],
            id="h1",
            additional_kwargs={"client": "web"},
        ),
        AIMessage(
            content="",
            tool_calls=[{"id": "c1", "name": "look", "args": {"x": 1}, "type": "tool_call"}],
            id="a1",
            response_metadata={"model_name": "m"},
        ),
        ToolMessage(content="a cat", tool_call_id="c1", name="look", artifact={"raw": b"\x00"}),
    ]


def test_messages_read_as_chat_messages() -> None:
    chats = [message_in(m) for m in _history()]
    assert [(c.role, c.content) for c in chats] == [
        ("user", "What is this?"),
        ("assistant", None),
        ("tool", "a cat"),
    ]
    assert chats[1].tool_calls == [ToolCall(id="c1", name="look", arguments={"x": 1})]
    assert (chats[2].tool_call_id, chats[2].name, chats[2].is_error) == ("c1", "look", False)


def test_a_round_trip_with_no_change_gives_back_the_same_objects() -> None:
    history = _history()
    request = request_in(history, SystemMessage("Be brief."), [], object(), None)
    back = messages_out(request.messages, request.messages, history)
    assert all(a is b for a, b in zip(back, history, strict=True))
    ai = history[1]
    assert response_out(response_in(ai), ai) is ai


def test_a_text_rewrite_keeps_every_other_part_of_the_message() -> None:
    history = _history()
    request = request_in(history, None, [], object(), None)
    first = request.messages[0].model_copy(update={"content": "Describe it."})
    back = messages_out([first, *request.messages[1:]], request.messages, history)
    human = back[0]
    assert human.content == [{"type": "text", "text": "Describe it."}, IMAGE]
    assert (human.id, human.additional_kwargs) == ("h1", {"client": "web"})
    assert back[1] is history[1] and back[2] is history[2]


def test_a_response_rewrite_changes_only_what_changed() -> None:
    ai = AIMessage(
        content=[{"type": "text", "text": "hello"}, {"type": "reasoning", "reasoning": "hmm"}],
        id="a9",
        usage_metadata={"input_tokens": 3, "output_tokens": 2, "total_tokens": 5},
        response_metadata={"finish_reason": "stop"},
    )
    read = response_in(ai)
    assert (read.content, read.finish_reason) == ("hello", "stop")
    assert (read.usage.input_tokens, read.usage.output_tokens, read.usage.total_tokens) == (3, 2, 5)
    out = response_out(read.model_copy(update={"content": "HELLO"}), ai)
    assert out.content == [
        {"type": "text", "text": "HELLO"},
        {"type": "reasoning", "reasoning": "hmm"},
    ]
    assert (out.id, out.usage_metadata, out.response_metadata) == (
        "a9",
        ai.usage_metadata,
        ai.response_metadata,
    )
    calls = [ToolCall(id="t1", name="look", arguments={"x": 2})]
    with_calls = response_out(read.model_copy(update={"tool_calls": calls}), ai)
    assert with_calls.tool_calls == [
        {"id": "t1", "name": "look", "args": {"x": 2}, "type": "tool_call"}
    ]


def test_a_handlers_own_response_is_a_new_message() -> None:
    out = response_out(ProviderResponse(content="hi", usage=Usage(input_tokens=1, output_tokens=1)))
    assert (out.content, out.tool_calls, out.id) == ("hi", [], None)
    assert out.usage_metadata == {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}


def test_usage_both_ways() -> None:
    ai = AIMessage(
        content="x",
        usage_metadata={
            "input_tokens": 10,
            "output_tokens": 4,
            "total_tokens": 14,
            "input_token_details": {"cache_read": 6, "cache_creation": 2},
        },
    )
    usage = usage_in(ai)
    assert (usage.cache_read_tokens, usage.cache_write_tokens) == (6, 2)
    assert usage_out(usage) == ai.usage_metadata
    assert usage_out(Usage()) is None


async def test_an_image_reaches_the_model_untouched_through_a_rewrite() -> None:
    bus = HookBus()

    def brief(ctx: PreRequestContext) -> dict[str, Any]:
        return {"request": ctx.request.model_copy(update={"system": "Be brief."})}

    bus.on("pre_request", brief)
    model = script("a cat")
    content = [{"type": "text", "text": "What is this?"}, IMAGE]
    await agent(model, bus).ainvoke({"messages": [HumanMessage(content=content)]})
    (sent,) = model.sent
    assert sent[0].content == "Be brief."
    assert sent[1].content == content


async def test_with_no_handler_the_model_gets_the_very_messages_of_the_state() -> None:
    bus = HookBus()
    bus.on("pre_request", lambda ctx: None)  # a listener, so the request is translated
    model = script("ok")
    out = await agent(model, bus).ainvoke(ask())
    assert model.sent[0][0] is out["messages"][0]
