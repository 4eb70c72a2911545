"""The SDK's items <-> agenthooks' messages: a round trip with no change is the identity, a
rewrite changes only what the handler changed, and what our types cannot express passes
through untouched."""

from __future__ import annotations

import copy
from typing import Any

from agenthooks_openai_agents import AgentHooksRunner
from agenthooks_openai_agents.translate import (
    ModelInput,
    from_request,
    from_response,
    read_input,
    to_request,
    to_response,
    write_input,
)
from agents import ModelSettings, Runner
from agents.items import ModelResponse
from agents.testing import assistant_message, function_call
from agents.usage import Usage as SDKUsage
from openai.types.responses import ResponseReasoningItem
from openai.types.responses.response_reasoning_item import Summary
from openai_agents_helpers import USER, read_file, scripted_agent

from agenthooks import HookBus
from agenthooks.messages import ChatMessage, ToolCall, Usage

IMAGE = {"type": "input_image", "image_url": "https://example.com/cat.png", "detail": "auto"}
ITEMS: list[Any] = [
    {"role": "developer", "content": "Answer in French."},
    {
        "role": "user",
        "content": [{"type": "input_text", "text": "What is this?"}, IMAGE],
    },
    {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "opaque"},
    {
        "type": "message",
        "role": "assistant",
        "id": "msg_1",
        "status": "completed",
        "content": [{"type": "output_text", "text": "Let me look.", "annotations": []}],
    },
    {
        "type": "function_call",
        "call_id": "c1",
        "name": "read_file",
        "arguments": '{"path":"/tmp/b.txt"}',
        "id": "fc_1",
    },
    {"type": "function_call_output", "call_id": "c1", "output": "meow"},
    {"type": "web_search_call", "id": "ws_1", "status": "completed"},
]


def test_reading_items_gives_the_messages_our_types_express() -> None:
    transcript = read_input(copy.deepcopy(ITEMS))

    assert transcript.messages == [
        ChatMessage(role="user", content="What is this?"),
        ChatMessage(
            role="assistant",
            content="Let me look.",
            tool_calls=[ToolCall(id="c1", name="read_file", arguments={"path": "/tmp/b.txt"})],
        ),
        ChatMessage(role="tool", content="meow", tool_call_id="c1"),
    ]


def test_a_round_trip_with_no_change_is_the_identity() -> None:
    items = copy.deepcopy(ITEMS)
    transcript = read_input(items)

    assert write_input(transcript, transcript.messages) is items
    assert write_input(transcript, [m.model_copy() for m in transcript.messages]) is items
    assert write_input(read_input("hello"), [ChatMessage(role="user", content="hello")]) == "hello"


def test_a_rewrite_changes_only_the_text_and_keeps_the_image_and_the_rest() -> None:
    transcript = read_input(copy.deepcopy(ITEMS))
    user, assistant, tool = transcript.messages

    written = write_input(
        transcript,
        [user.model_copy(update={"content": "Describe it."}), assistant, tool],
    )

    assert isinstance(written, list)
    assert written[0] == ITEMS[0]  # the developer message, untouched
    assert written[1] == {
        "role": "user",
        "content": [{"type": "input_text", "text": "Describe it."}, IMAGE],
    }
    assert written[2:] == ITEMS[2:]


def test_a_changed_tool_call_keeps_its_item_and_changes_its_arguments() -> None:
    transcript = read_input(copy.deepcopy(ITEMS))
    user, assistant, tool = transcript.messages
    call = assistant.tool_calls[0].model_copy(update={"arguments": {"path": "/x"}})

    written = write_input(
        transcript, [user, assistant.model_copy(update={"tool_calls": [call]}), tool]
    )

    assert isinstance(written, list)
    assert written[4] == {**ITEMS[4], "arguments": '{"path":"/x"}'}
    assert [w for i, w in enumerate(written) if i != 4] == [
        w for i, w in enumerate(ITEMS) if i != 4
    ]


def test_removed_messages_go_and_what_we_cannot_express_stays() -> None:
    transcript = read_input(copy.deepcopy(ITEMS))

    written = write_input(transcript, transcript.messages[:1])

    assert written == [ITEMS[0], ITEMS[1], ITEMS[2], ITEMS[6]]


def test_a_request_round_trip_keeps_every_setting() -> None:
    call = ModelInput(
        "Be brief.", copy.deepcopy(ITEMS), ModelSettings(temperature=0.3), [read_file], []
    )
    sent = to_request(call, "gpt-test")

    assert from_request(sent, sent.request) is call
    same = from_request(sent, sent.request.model_copy(deep=True))
    assert (same.system, same.input, same.settings, same.tools) == (
        call.system,
        call.input,
        call.settings,
        call.tools,
    )
    changed = from_request(sent, sent.request.model_copy(update={"temperature": 0.9, "tools": []}))
    assert changed.settings.temperature == 0.9 and changed.tools == []
    assert sent.request.model == "gpt-test" and sent.request.temperature == 0.3


def test_a_response_round_trip_keeps_reasoning_and_usage() -> None:
    reasoning = ResponseReasoningItem(
        id="rs_1", type="reasoning", summary=[Summary(type="summary_text", text="think")]
    )
    raw = ModelResponse(
        output=[
            reasoning,
            assistant_message("Reading."),
            function_call("read_file", {"path": "/a"}, call_id="c1"),
        ],
        usage=SDKUsage(requests=1, input_tokens=10, output_tokens=5, total_tokens=15),
        response_id="resp_1",
    )
    got = to_response(raw)

    assert got.content == "Reading."
    assert got.tool_calls == [ToolCall(id="c1", name="read_file", arguments={"path": "/a"})]
    assert got.usage == Usage(input_tokens=10, output_tokens=5, total_tokens=15)
    assert from_response(got, got) is raw
    copied = from_response(got.model_copy(deep=True), got)
    assert copied.output == raw.output and copied.usage == raw.usage
    rewritten = from_response(got.model_copy(update={"content": "Reading now."}), got)
    assert rewritten.output[0] == reasoning
    assert rewritten.output[1].content[0].text == "Reading now."
    assert rewritten.output[2] == raw.output[2]


async def test_hooks_that_copy_everything_change_nothing_the_model_sees(bus: HookBus) -> None:
    bus.on("pre_request", lambda ctx: {"request": ctx.request.model_copy(deep=True)})
    bus.on("on_response", lambda ctx: {"response": ctx.response.model_copy(deep=True)})
    bus.on("on_tool_call_result", lambda ctx: {"result": ctx.result})
    agent, model = scripted_agent()
    plain, plain_model = scripted_agent()

    bridged = await AgentHooksRunner(bus).run(agent, USER)
    unbridged = await Runner.run(plain, USER)

    assert [c.input for c in model.calls] == [c.input for c in plain_model.calls]
    assert [c.system_instructions for c in model.calls] == [
        c.system_instructions for c in plain_model.calls
    ]
    assert bridged.to_input_list() == unbridged.to_input_list()
    assert bridged.final_output == unbridged.final_output
