"""The shared scripted conversation on a Strands agent: the exact events a recording observer
sees, and the same values as the same conversation on agenthooks' own runtime."""

from __future__ import annotations

from typing import Any

from agenthooks_strands.testing import tool_calls
from strands_helpers import RAN, USER, sent

from agenthooks import (
    Agent,
    HookBus,
    ProviderResponse,
    ScriptedProvider,
    ToolCall,
    tool,
)
from agenthooks.testing import HookRecorder

# Strands runs the two calls concurrently and commits both results as one user message, so
# both pre_tool_call come first and both on_message after both results (the runtime's order
# within a parallel batch may follow the framework's scheduling)
SEQUENCE = [
    "on_chat_start",
    "on_user_message",
    "on_message",  # the user message
    "pre_agent",
    "on_loop_start",
    "transform_context",
    "pre_request",
    "on_stream_start",
    "on_stream_end",  # a turn of tool calls streams no text
    "on_response",
    "on_message",  # the assistant's tool calls
    "pre_tool_call",
    "pre_tool_call",
    "on_tool_call_result",
    "on_tool_call_result",
    "on_message",  # call_1's result
    "on_message",  # call_2's result
    "on_loop_end",
    "prepare_next_turn",
    "should_stop",
    "on_loop_start",
    "transform_context",
    "pre_request",
    "on_stream_start",
    "on_stream_chunk",
    "on_stream_end",
    "on_response",
    "on_loop_end",
    "post_agent",
    "on_message",  # the final answer, after post_agent allowed it
    "on_chat_done",
    "on_chat_end",
]


async def test_the_exact_event_sequence(make, bus: HookBus) -> None:
    recorder = HookRecorder()
    recorder.attach(bus)
    agent, model = make()

    result = await agent.invoke_async(USER)

    assert str(result).strip() == "done"
    assert recorder.names() == SEQUENCE
    assert sorted(RAN) == [("delete_file", "/tmp/a.txt"), ("read_file", "/tmp/b.txt")]
    assert [c.tool_call_id for c in recorder.of("pre_tool_call")] == ["call_1", "call_2"]
    # one run id on every context, one record per emission
    assert len({ctx.run_id for _, ctx in recorder.events}) == 1
    assert [ctx.iteration for ctx in recorder.of("on_loop_start")] == [0, 1]
    assert sent(model, 1)[-1] == {
        "role": "user",
        "content": [
            {
                "toolResult": {
                    "toolUseId": "call_1",
                    "status": "success",
                    "content": [{"text": "deleted /tmp/a.txt"}],
                }
            },
            {
                "toolResult": {
                    "toolUseId": "call_2",
                    "status": "success",
                    "content": [{"text": "contents of /tmp/b.txt"}],
                }
            },
        ],
    }


async def test_on_event_records_carry_the_run_and_call_ids(make, bus: HookBus) -> None:
    records: list[Any] = []
    bus.on("on_event", records.append)
    agent, _ = make()

    await agent.invoke_async(USER)

    assert [r.type for r in records] == SEQUENCE
    assert len({r.run_id for r in records}) == 1
    calls = [(r.type, r.tool_call_id, r.tool_name) for r in records if r.tool_call_id]
    assert sorted(calls) == [
        ("on_tool_call_result", "call_1", "delete_file"),
        ("on_tool_call_result", "call_2", "read_file"),
        ("pre_tool_call", "call_1", "delete_file"),
        ("pre_tool_call", "call_2", "read_file"),
    ]


@tool
def delete_file(path: str) -> str:
    """Delete a file."""
    return f"deleted {path}"


@tool
def read_file(path: str) -> str:
    """Read a file."""
    return f"contents of {path}"


def _values(recorder: HookRecorder) -> list[tuple[Any, ...]]:
    """What hooks were given, per emission, in a form both runs share."""
    out: list[tuple[Any, ...]] = []
    for name, ctx in recorder.events:
        if name in ("on_chat_start", "on_user_message"):
            out.append((name, ctx.message))
        elif name == "pre_agent":
            out.append((name, ctx.input))
        elif name == "transform_context":
            out.append((name, [(m.role, m.content, m.tool_call_id) for m in ctx.messages]))
        elif name == "pre_request":
            out.append(
                (
                    name,
                    ctx.request.system,
                    [
                        (m.role, m.content, m.tool_call_id, tuple(m.tool_calls))
                        for m in ctx.request.messages
                    ],
                    sorted(t["function"]["name"] for t in ctx.request.tools),
                )
            )
        elif name == "on_response":
            out.append((name, ctx.response.content, tuple(ctx.response.tool_calls)))
        elif name == "pre_tool_call":
            # each framework words its JSON schema its own way: the same arguments, required
            params = ctx.tool.parameters
            shape = (sorted(params["properties"]), params.get("required"))
            out.append((name, ctx.call, ctx.tool.name, ctx.tool.description, shape))
        elif name == "on_tool_call_result":
            out.append((name, ctx.call, ctx.result))
        elif name == "on_message":
            m = ctx.message
            out.append((name, m.role, m.content, m.tool_call_id, tuple(m.tool_calls)))
        elif name == "post_agent":
            out.append((name, ctx.input, ctx.response.content, ctx.response.finish_reason))
        elif name in ("on_chat_done", "on_chat_end"):
            out.append((name, ctx.response.content, ctx.response.finish_reason))
        elif name in ("on_loop_start", "on_loop_end"):
            out.append((name, ctx.iteration))
    return out


async def test_the_same_conversation_gives_the_hooks_the_same_values(make, bus: HookBus) -> None:
    strands = HookRecorder()
    strands.attach(bus)
    agent, _ = make()
    await agent.invoke_async(USER)

    ours_bus = HookBus()
    ours = HookRecorder()
    ours.attach(ours_bus)
    provider = ScriptedProvider(
        [
            ProviderResponse(
                tool_calls=[
                    ToolCall(id="call_1", name="delete_file", arguments={"path": "/tmp/a.txt"}),
                    ToolCall(id="call_2", name="read_file", arguments={"path": "/tmp/b.txt"}),
                ],
                finish_reason="tool_calls",
            ),
            "done",
        ]
    )
    runtime = Agent("assistant", provider=provider, tools=[delete_file, read_file], bus=ours_bus)
    await runtime.chat(USER)

    mine, theirs = _values(strands), _values(ours)
    # the same emissions with the same values; within the parallel batch the order may differ
    assert sorted(map(repr, mine)) == sorted(map(repr, theirs))


async def test_an_agent_used_as_a_tool_is_a_sub_agent_run(bus: HookBus) -> None:
    from strands import tool as strands_tool
    from strands_helpers import build

    recorder = HookRecorder()
    recorder.attach(bus)
    helper, _ = build(bus, ["42"], tools=(), name="helper")

    @strands_tool
    async def ask_helper(question: str) -> str:
        """Ask the helper agent."""
        return str(await helper.invoke_async(question)).strip()

    agent, model = build(
        bus,
        [tool_calls(("c1", "ask_helper", {"question": "6*7?"})), "It is 42."],
        tools=[ask_helper],
    )
    await agent.invoke_async("What is 6*7?")

    starts = recorder.of("on_chat_start")
    assert [(s.agent, s.message) for s in starts] == [
        ("assistant", "What is 6*7?"),
        ("helper", "6*7?"),
    ]
    assert starts[1].parent_run_id == starts[0].run_id != starts[1].run_id
    assert starts[0].parent_run_id is None
    assert model.requests[1]["messages"][-1]["content"][0]["toolResult"]["content"] == [
        {"text": "42"}
    ]
