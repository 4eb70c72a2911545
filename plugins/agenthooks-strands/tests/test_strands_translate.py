"""Strands messages <-> agenthooks messages: a round trip with no change is the identity, a
rewrite changes only what it changed, and what our types cannot say passes through untouched."""

from __future__ import annotations

import copy
from typing import Any

from agenthooks_strands.testing import tool_calls
from agenthooks_strands.translate import (
    from_chat_messages,
    response_back,
    system_back,
    system_text,
    to_chat_messages,
    to_request,
    to_response,
    to_usage,
    tool_specs_back,
    usage_back,
)
from strands_helpers import read_file

from agenthooks import ChatMessage, HookBus, ProviderResponse, ToolCall
from agenthooks.messages import ThinkingBlock

IMAGE = {"image": {"format": "png", "source": {"bytes": b"\x89PNG..."}}}
DOCUMENT = {"document": {"format": "pdf", "name": "spec", "source": {"bytes": b"%PDF"}}}
CACHE = {"cachePoint": {"type": "default"}}


def transcript() -> list[dict[str, Any]]:
    return [
        {
            "role": "user",
            "content": [{"text": "What is in "}, IMAGE, {"text": "this?"}, CACHE],
            "tracking_id": "u1",
        },
        {
            "role": "assistant",
            "content": [
                {
                    "reasoningContent": {
                        "reasoningText": {"text": "look closer", "signature": "sig"}
                    }
                },
                {"text": "Reading it."},
                {
                    "toolUse": {
                        "toolUseId": "t1",
                        "name": "read_file",
                        "input": {"path": "/a"},
                        "reasoningSignature": "rs",
                    }
                },
            ],
            "metadata": {"usage": {"inputTokens": 3, "outputTokens": 4, "totalTokens": 7}},
        },
        {
            "role": "user",
            "content": [
                {
                    "toolResult": {
                        "toolUseId": "t1",
                        "status": "success",
                        "content": [{"json": {"n": 1}}, IMAGE],
                    }
                },
                {"text": "and this one"},
                DOCUMENT,
            ],
        },
        {
            "role": "assistant",
            "content": [{"text": "Both seen."}, {"citationsContent": {"citations": []}}],
        },
    ]


def test_reading_a_transcript() -> None:
    read = to_chat_messages(transcript())
    assert read.messages == [
        ChatMessage(role="user", content="What is in this?"),
        ChatMessage(
            role="assistant",
            content="Reading it.",
            tool_calls=[ToolCall(id="t1", name="read_file", arguments={"path": "/a"})],
            thinking_blocks=[ThinkingBlock(thinking="look closer", signature="sig")],
        ),
        ChatMessage(role="tool", content='{"n": 1}', tool_call_id="t1"),
        ChatMessage(role="user", content="and this one"),
        ChatMessage(role="assistant", content="Both seen."),
    ]
    assert read.origins == [0, 1, 2, 2, 3]


def test_a_round_trip_with_no_change_is_the_identity() -> None:
    messages = transcript()
    read = to_chat_messages(messages)
    back = from_chat_messages(list(read.messages), read)
    assert all(a is b for a, b in zip(back, messages, strict=True))
    # also when the handler built equal messages of its own
    back = from_chat_messages([m.model_copy() for m in read.messages], read)
    assert all(a is b for a, b in zip(back, messages, strict=True))


def test_a_rewrite_changes_only_what_it_changed() -> None:
    messages = transcript()
    original = copy.deepcopy(messages)
    read = to_chat_messages(messages)
    new = list(read.messages)
    new[0] = new[0].model_copy(update={"content": "Describe"})
    new[2] = new[2].model_copy(update={"content": "[redacted]"})

    back = from_chat_messages(new, read)

    assert messages == original  # nothing was changed in place
    assert back[0] == {
        "role": "user",
        "content": [{"text": "Describe"}, IMAGE, CACHE],
        "tracking_id": "u1",
    }
    assert back[1] is messages[1] and back[3] is messages[3]
    assert back[2]["content"] == [
        {
            "toolResult": {
                "toolUseId": "t1",
                "status": "success",
                "content": [{"text": "[redacted]"}, IMAGE],
            }
        },
        {"text": "and this one"},
        DOCUMENT,
    ]


def test_a_rewritten_tool_call_keeps_its_signature_and_dropped_messages_go() -> None:
    messages = transcript()
    read = to_chat_messages(messages)
    assistant = read.messages[1]
    changed = assistant.model_copy(
        update={"tool_calls": [ToolCall(id="t1", name="read_file", arguments={"path": "/b"})]}
    )
    back = from_chat_messages([read.messages[0], changed], read)

    assert back[0] is messages[0]
    assert back[1]["content"] == [
        {"reasoningContent": {"reasoningText": {"text": "look closer", "signature": "sig"}}},
        {"text": "Reading it."},
        {
            "toolUse": {
                "toolUseId": "t1",
                "name": "read_file",
                "input": {"path": "/b"},
                "reasoningSignature": "rs",
            }
        },
    ]
    assert back[1]["metadata"] == messages[1]["metadata"]


def test_new_tool_messages_join_one_user_message() -> None:
    read = to_chat_messages([])
    back = from_chat_messages(
        [
            ChatMessage(role="user", content="hi"),
            ChatMessage(
                role="assistant",
                tool_calls=[ToolCall(id="a", name="x"), ToolCall(id="b", name="y")],
            ),
            ChatMessage(role="tool", content="A", tool_call_id="a"),
            ChatMessage(role="tool", content="B", tool_call_id="b", is_error=True),
        ],
        read,
    )
    assert back[2:] == [
        {
            "role": "user",
            "content": [
                {"toolResult": {"toolUseId": "a", "status": "success", "content": [{"text": "A"}]}},
                {"toolResult": {"toolUseId": "b", "status": "error", "content": [{"text": "B"}]}},
            ],
        }
    ]


def test_system_prompt_tools_usage_and_responses() -> None:
    blocks = [{"text": "Be brief."}, CACHE]
    assert system_text(blocks) == "Be brief."
    assert system_back("Be brief.", blocks) is blocks
    assert system_back("Be kind.", blocks) == [{"text": "Be kind."}, CACHE]
    assert system_back("x", "y") == "x"

    specs = [read_file.tool_spec]
    view = to_request([], None, specs, {"auto": {}}, "m")
    assert view.request.tool_choice == "auto"
    assert tool_specs_back(view.request.tools, specs)[0] is specs[0]

    usage = {"inputTokens": 1, "outputTokens": 2, "totalTokens": 3, "cacheReadInputTokens": 4}
    assert usage_back(to_usage(usage)) == usage

    message = transcript()[3]
    response = to_response("end_turn", message, usage)
    assert (response.content, response.finish_reason) == ("Both seen.", "stop")
    assert response_back(response, message) == ("end_turn", message)
    stop, rewritten = response_back(response.model_copy(update={"content": "Changed."}), message)
    assert stop == "end_turn"
    assert rewritten["content"] == [{"text": "Changed."}, {"citationsContent": {"citations": []}}]
    stop, called = response_back(
        ProviderResponse(tool_calls=[ToolCall(id="z", name="read_file", arguments={"path": "/"})]),
        None,
    )
    assert stop == "tool_use" and called == tool_calls(("z", "read_file", {"path": "/"}))


async def test_through_an_agent_an_image_survives_a_rewrite(make, bus: HookBus) -> None:
    def redact(ctx: Any) -> dict[str, Any]:
        messages = list(ctx.request.messages)
        messages[0] = messages[0].model_copy(update={"content": "Describe the picture."})
        return {"request": ctx.request.model_copy(update={"messages": messages})}

    bus.on("pre_request", redact)
    agent, model = make(["A cat."])

    await agent.invoke_async([{"text": "My password is hunter2, describe "}, IMAGE])

    assert model.requests[0]["messages"] == [
        {"role": "user", "content": [{"text": "Describe the picture."}, IMAGE]}
    ]


async def test_through_an_agent_observers_send_the_model_what_strands_sends(
    make, bus: HookBus
) -> None:
    from agenthooks_strands.testing import ScriptedModel
    from strands import Agent

    for event in ("pre_request", "on_response", "on_message"):
        bus.on(event, lambda ctx: None)
    content = [{"text": "look "}, IMAGE, DOCUMENT]
    agent, model = make(["Seen."], tools=(), system_prompt=[{"text": "S"}, CACHE])
    await agent.invoke_async(content)

    bare_model = ScriptedModel(["Seen."])
    bare = Agent(model=bare_model, system_prompt=[{"text": "S"}, CACHE], callback_handler=None)
    await bare.invoke_async(content)

    assert model.requests == bare_model.requests


def test_a_message_read_before_is_not_read_again_unless_it_changed() -> None:
    known: dict[str, Any] = {}
    first = copy.deepcopy(transcript())
    read = to_chat_messages(first, known)
    again = to_chat_messages(copy.deepcopy(transcript()), known)
    assert again.messages[0] is read.messages[0]  # the same tracking id, an equal message

    changed = copy.deepcopy(transcript())
    changed[0]["content"][0] = {"text": "What else is in "}
    reread = to_chat_messages(changed, known)
    assert reread.messages[0] is not read.messages[0]
    assert reread.messages[0].content == "What else is in this?"
    # messages without a tracking id are always read
    assert to_chat_messages(first, known).messages[1] is not read.messages[1]
