"""The shared scripted conversation: the same hooks get the same values as on agenthooks'
own runtime (within the parallel batch the order follows Pydantic AI's scheduling)."""

from __future__ import annotations

from pydantic_ai_script import PROMPT, conversation_script, file_agent

from agenthooks import ChatMessage, EventRecord, HookBus, ToolCall
from agenthooks.testing import HookRecorder

EXPECTED = [
    "on_chat_start",
    "on_user_message",
    "on_message",
    "pre_agent",
    "on_loop_start",
    "transform_context",
    "pre_request",
    "on_response",
    "on_message",
    "pre_tool_call",
    "pre_tool_call",
    "on_tool_call_result",
    "on_message",
    "on_tool_call_result",
    "on_message",
    "on_loop_end",
    "prepare_next_turn",
    "should_stop",
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


async def test_the_scripted_conversation_fires_the_runtime_sequence() -> None:
    bus = HookBus()
    recorder = HookRecorder()
    recorder.attach(bus)
    script = conversation_script()
    agent, ran = file_agent(script, bus)

    result = await agent.run(PROMPT)

    assert result.output == "done"
    assert ran == ["delete_file /tmp/a.txt", "read_file /tmp/b.txt"]
    assert recorder.names() == EXPECTED
    # one run id, Pydantic AI's own, on every context
    assert {ctx.run_id for _, ctx in recorder} == {result.run_id}
    assert {ctx.agent for _, ctx in recorder} == {"files"}

    start = recorder.of("on_chat_start")[0]
    assert start.message == PROMPT
    assert start.tools == ["delete_file", "read_file"]
    assert [ctx.iteration for ctx in recorder.of("on_loop_start")] == [0, 1]

    calls = [ctx.call for ctx in recorder.of("pre_tool_call")]
    assert calls == [
        ToolCall(id="call_1", name="delete_file", arguments={"path": "/tmp/a.txt"}),
        ToolCall(id="call_2", name="read_file", arguments={"path": "/tmp/b.txt"}),
    ]
    tool = recorder.of("pre_tool_call")[0].tool
    assert (tool.name, tool.description) == ("delete_file", "Delete a file.")
    assert tool.parameters["properties"] == {"path": {"type": "string"}}

    first = recorder.of("pre_request")[0].request
    assert first.messages == [ChatMessage(role="user", content=PROMPT)]
    assert [t["function"]["name"] for t in first.tools] == ["delete_file", "read_file"]
    second = recorder.of("pre_request")[1].request
    assert [m.role for m in second.messages] == ["user", "assistant", "tool", "tool"]

    assert [ctx.message for ctx in recorder.of("on_message")] == [
        ChatMessage(role="user", content=PROMPT),
        ChatMessage(role="assistant", tool_calls=calls),
        ChatMessage(
            role="tool", content="deleted /tmp/a.txt", tool_call_id="call_1", name="delete_file"
        ),
        ChatMessage(
            role="tool", content="contents of /tmp/b.txt", tool_call_id="call_2", name="read_file"
        ),
        ChatMessage(role="assistant", content="done"),
    ]
    done = recorder.of("on_chat_done")[0].response
    assert (done.content, done.finish_reason, done.iterations) == ("done", "stop", 2)
    usage = result.usage
    assert (done.usage.input_tokens, done.usage.output_tokens) == (
        usage.input_tokens,
        usage.output_tokens,
    )
    assert recorder.of("on_chat_end")[0].response is done


async def test_every_emission_gives_one_record_with_the_framework_ids() -> None:
    bus = HookBus()
    records: list[tuple[str, str | None, str | None]] = []

    def record(ctx: EventRecord) -> None:
        records.append((ctx.type, ctx.run_id, ctx.tool_call_id))

    bus.on("on_event", record)
    agent, _ = file_agent(conversation_script(), bus)
    result = await agent.run(PROMPT)

    assert [name for name, _, _ in records] == EXPECTED
    assert {run_id for _, run_id, _ in records} == {result.run_id}
    assert sorted((name, call_id) for name, _, call_id in records if name == "pre_tool_call") == [
        ("pre_tool_call", "call_1"),
        ("pre_tool_call", "call_2"),
    ]
