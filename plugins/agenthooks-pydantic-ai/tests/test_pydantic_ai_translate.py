"""Pydantic AI <-> agenthooks translation: a round trip with no handler is the identity; a
rewrite changes only what the handler changed; what our types cannot express passes through
untouched."""

from __future__ import annotations

from typing import Any

from agenthooks_pydantic_ai import AgentHooksCapability
from agenthooks_pydantic_ai.translate import (
    chat_messages,
    model_messages,
    model_response,
    provider_response,
)
from pydantic_ai import Agent
from pydantic_ai.messages import (
    BinaryContent,
    CompactionPart,
    FilePart,
    ImageUrl,
    ModelRequest,
    ModelResponse,
    NativeToolCallPart,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.usage import RequestUsage
from pydantic_ai_script import Script

from agenthooks import ChatMessage, HookBus, ProviderResponse, ToolCall

IMAGE = ImageUrl(url="https://example.com/cat.png")
PNG = BinaryContent(data=b"\x89PNG\r\n", media_type="image/png")


def history() -> list[Any]:
    return [
        ModelRequest(
            parts=[
                SystemPromptPart(content="You are terse."),
                UserPromptPart(content=["What is in this picture?", IMAGE]),
            ]
        ),
        ModelResponse(
            parts=[
                ThinkingPart(content="a cat, probably", signature="sig-1"),
                NativeToolCallPart(tool_name="web_search", args={"q": "cat"}),
                TextPart(content="Let me check."),
                ToolCallPart("lookup", '{"animal": "cat"}', tool_call_id="call_1"),
                FilePart(content=PNG),
            ],
            usage=RequestUsage(input_tokens=10, output_tokens=5),
            model_name="scripted",
            provider_details={"region": "eu"},
        ),
        ModelRequest(parts=[CompactionPart(content="(earlier turns compacted)")]),
        ModelRequest(
            parts=[
                ToolReturnPart(tool_name="lookup", content="a tabby", tool_call_id="call_1"),
                UserPromptPart(content="And the colour?"),
            ]
        ),
    ]


def test_what_agenthooks_reads_from_a_rich_history() -> None:
    transcript = chat_messages(history())

    assert transcript.messages == [
        ChatMessage(role="system", content="You are terse."),
        ChatMessage(role="user", content="What is in this picture?"),
        ChatMessage(
            role="assistant",
            content="Let me check.",
            tool_calls=[ToolCall(id="call_1", name="lookup", arguments={"animal": "cat"})],
            thinking_blocks=[{"thinking": "a cat, probably", "signature": "sig-1"}],  # type: ignore[list-item]
        ),
        ChatMessage(role="tool", content="a tabby", tool_call_id="call_1", name="lookup"),
        ChatMessage(role="user", content="And the colour?"),
    ]


def test_a_round_trip_with_no_rewrite_is_the_identity() -> None:
    source = history()
    transcript = chat_messages(source)

    back = model_messages(transcript, list(transcript.messages))

    assert len(back) == len(source)
    assert all(a is b for a, b in zip(back, source))


def test_an_equal_copy_of_every_message_is_the_identity_too() -> None:
    source = history()
    transcript = chat_messages(source)

    back = model_messages(transcript, [m.model_copy() for m in transcript.messages])

    assert all(a is b for a, b in zip(back, source)) and len(back) == len(source)


def test_a_rewritten_user_text_keeps_its_image_and_everything_else() -> None:
    source = history()
    transcript = chat_messages(source)
    messages = list(transcript.messages)
    messages[1] = messages[1].model_copy(update={"content": "Describe the animal."})

    back = model_messages(transcript, messages)

    assert len(back) == len(source)
    assert all(back[i] is source[i] for i in (1, 2, 3))
    system, user = back[0].parts
    assert system is source[0].parts[0]
    assert user.content == ["Describe the animal.", IMAGE]
    assert user.timestamp == source[0].parts[1].timestamp


def test_an_added_message_leaves_the_others_as_they_were() -> None:
    source = history()
    transcript = chat_messages(source)
    messages = [*transcript.messages, ChatMessage(role="user", content="Be precise.")]

    back = model_messages(transcript, messages)

    assert all(back[i] is source[i] for i in range(3))
    assert back[3].parts[:2] == list(source[3].parts)
    assert back[3].parts[0] is source[3].parts[0]
    assert isinstance(back[3].parts[2], UserPromptPart)
    assert back[3].parts[2].content == "Be precise."


def test_a_dropped_message_keeps_the_parts_agenthooks_cannot_express() -> None:
    source = history()
    transcript = chat_messages(source)
    messages = [m for m in transcript.messages if m.role != "system"]

    back = model_messages(transcript, messages)

    assert [type(p) for p in back[0].parts] == [UserPromptPart]
    assert back[0].parts[0] is source[0].parts[1]
    assert back[1] is source[1] and back[2] is source[2] and back[3] is source[3]


def test_a_response_round_trip_is_the_identity() -> None:
    response = history()[1]

    assert model_response(provider_response(response), None) is response
    assert model_response(provider_response(response), response) is response


def test_a_rewritten_response_keeps_what_agenthooks_cannot_express() -> None:
    response = history()[1]
    read = provider_response(response)
    assert read.usage.input_tokens == 10 and read.usage.total_tokens == 15

    rewritten = model_response(read.model_copy(update={"content": "It is a [REDACTED]."}), response)

    kinds = [type(p).__name__ for p in rewritten.parts]
    assert kinds == ["ThinkingPart", "NativeToolCallPart", "TextPart", "ToolCallPart", "FilePart"]
    assert rewritten.parts[2].content == "It is a [REDACTED]."
    for i in (0, 1, 3, 4):
        assert rewritten.parts[i] is response.parts[i]
    assert rewritten.provider_details == {"region": "eu"}
    assert rewritten.usage == response.usage


def test_a_response_built_by_a_handler_becomes_a_pydantic_ai_response() -> None:
    built = model_response(
        ProviderResponse(
            content="calling",
            tool_calls=[ToolCall(id="c1", name="lookup", arguments={"animal": "dog"})],
        ),
        None,
    )

    assert [type(p) for p in built.parts] == [TextPart, ToolCallPart]
    call = built.parts[1]
    assert (call.tool_name, call.args, call.tool_call_id) == ("lookup", {"animal": "dog"}, "c1")


async def test_an_image_prompt_reaches_the_model_untouched_through_the_bridge() -> None:
    bus = HookBus()
    seen: list[Any] = []
    bus.on("pre_request", lambda ctx: seen.append(ctx.request))
    script = Script("a cat")
    agent = Agent(script.model, capabilities=[AgentHooksCapability(bus)])

    await agent.run(["What is in this picture?", IMAGE])

    assert seen[0].messages == [ChatMessage(role="user", content="What is in this picture?")]
    [request] = script.requests[0]
    [part] = request.parts
    assert part.content == ["What is in this picture?", IMAGE]


async def test_a_rewritten_image_prompt_keeps_the_image() -> None:
    bus = HookBus()

    def rewrite(ctx: Any) -> dict[str, Any]:
        messages = [
            m.model_copy(update={"content": "Name the animal."}) for m in ctx.request.messages
        ]
        return {"request": ctx.request.model_copy(update={"messages": messages})}

    bus.on("pre_request", rewrite)
    script = Script("a cat")
    agent = Agent(script.model, capabilities=[AgentHooksCapability(bus)])

    await agent.run(["What is in this picture?", IMAGE])

    [request] = script.requests[0]
    [part] = request.parts
    assert part.content == ["Name the animal.", IMAGE]


async def test_with_nobody_listening_the_run_is_the_run_without_the_bridge() -> None:
    plain_script, bridged_script = (
        Script([("look", {"x": 1}, "c1")], "ok"),
        Script([("look", {"x": 1}, "c1")], "ok"),
    )
    bus = HookBus()
    plain = Agent(plain_script.model)
    bridged = Agent(bridged_script.model, capabilities=[AgentHooksCapability(bus)])
    for agent in (plain, bridged):

        @agent.tool_plain
        def look(x: int) -> str:
            return f"looked at {x}"

    first = await plain.run("go")
    second = await bridged.run("go")

    def shape(messages: list[Any]) -> list[Any]:
        return [
            [(type(p).__name__, getattr(p, "content", None)) for p in m.parts] for m in messages
        ]

    assert shape(bridged_script.requests[1]) == shape(plain_script.requests[1])
    assert shape(second.all_messages()) == shape(first.all_messages())
    # a handler registered later applies from the next run on
    seen: list[str] = []
    bus.on("pre_tool_call", lambda ctx: seen.append(ctx.call.id))
    bridged_script.steps = [[("look", {"x": 2}, "c2")], "ok"]
    await bridged.run("again")
    assert seen == ["c2"]
