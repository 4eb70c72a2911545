"""The scripted conversation every bridge runs, on a real ADK Runner: the same hooks see the
same values as on our own runtime."""

from __future__ import annotations

from typing import Any

import adk_scripted as s
import pytest

from agenthooks import HookBus
from agenthooks.testing import call, make_agent

MESSAGE = "Delete /tmp/a.txt and read /tmp/b.txt"


@pytest.fixture(autouse=True)
def _clean() -> None:
    s.RAN.clear()


async def test_the_scripted_conversation_fires_the_events_of_our_runtime_in_order() -> None:
    bus = HookBus()
    seen = s.recorder(bus)
    model = s.ScriptedLlm(script=s.conversation())
    events = await s.run(s.runner(bus, model), MESSAGE)
    assert s.final_text(events) == "done"
    assert seen[:7] == [
        "on_chat_start",
        "on_user_message",
        "on_message",
        "on_loop_start",
        "pre_request",
        "on_response",
        "on_message",
    ]
    # ADK runs the two calls in parallel: their events interleave as it schedules them,
    # each call's pre_tool_call before its result, a tool message for each
    batch = seen[7:13]
    assert sorted(batch) == [
        "on_message",
        "on_message",
        "on_tool_call_result:call_1",
        "on_tool_call_result:call_2",
        "pre_tool_call:call_1",
        "pre_tool_call:call_2",
    ]
    for call_id in ("call_1", "call_2"):
        assert batch.index(f"pre_tool_call:{call_id}") < batch.index(
            f"on_tool_call_result:{call_id}"
        )
    assert seen[13:] == [
        "on_loop_end",
        "on_loop_start",
        "pre_request",
        "on_response",
        "on_loop_end",
        "post_agent",
        "on_message",
        "on_chat_done",
        "on_chat_end",
    ]


def values(bus: HookBus) -> dict[str, list[Any]]:
    """What the hooks of the conversation see, in a form both runtimes share."""
    got: dict[str, list[Any]] = {}

    def keep(event: str, value: Any) -> None:
        got.setdefault(event, []).append(value)

    bus.on("on_chat_start", lambda ctx: keep("on_chat_start", ctx.message))
    bus.on("on_user_message", lambda ctx: keep("on_user_message", ctx.message))
    bus.on(
        "pre_request",
        lambda ctx: keep(
            "pre_request",
            [
                (
                    m.role,
                    m.content,
                    m.tool_call_id,
                    [(c.id, c.name, c.arguments) for c in m.tool_calls],
                )
                for m in ctx.request.messages
            ],
        ),
    )
    bus.on(
        "on_response",
        lambda ctx: keep(
            "on_response",
            (ctx.response.content, [(c.id, c.name, c.arguments) for c in ctx.response.tool_calls]),
        ),
    )
    bus.on(
        "pre_tool_call",
        lambda ctx: keep(
            "pre_tool_call", (ctx.call.id, ctx.call.name, ctx.call.arguments, ctx.tool.name)
        ),
    )
    bus.on(
        "on_tool_call_result",
        lambda ctx: keep("on_tool_call_result", (ctx.tool_call_id, ctx.result)),
    )
    bus.on(
        "on_message",
        lambda ctx: keep(
            "on_message", (ctx.message.role, ctx.message.content, ctx.message.tool_call_id)
        ),
    )
    bus.on("post_agent", lambda ctx: keep("post_agent", (ctx.input, ctx.response.content)))
    bus.on("on_chat_done", lambda ctx: keep("on_chat_done", ctx.response.content))
    return got


def _batch_order(got: dict[str, list[Any]]) -> dict[str, list[Any]]:
    # within the parallel batch the order follows the framework's scheduling
    for event in ("pre_tool_call", "on_tool_call_result", "on_message"):
        got[event] = sorted(got[event], key=repr)
    return got


async def test_the_same_conversation_gives_the_hooks_the_same_values_as_our_runtime() -> None:
    ours_bus = HookBus()
    ours = values(ours_bus)
    agent = make_agent(
        [
            [call("delete_file", path="/tmp/a.txt"), call("read_file", path="/tmp/b.txt")],
            "done",
        ],
        tools=[s.delete_file, s.read_file],
        bus=ours_bus,
    )
    assert (await agent.chat(MESSAGE)).content == "done"

    adk_bus = HookBus()
    adk = values(adk_bus)
    await s.run(s.runner(adk_bus, s.ScriptedLlm(script=s.conversation())), MESSAGE)

    assert _batch_order(adk) == _batch_order(ours)
    assert adk["pre_tool_call"] == [
        ("call_1", "delete_file", {"path": "/tmp/a.txt"}, "delete_file"),
        ("call_2", "read_file", {"path": "/tmp/b.txt", "verbose": False}, "read_file"),
    ]
    assert adk["on_chat_done"] == ["done"]


async def test_every_context_carries_adks_invocation_id_and_session() -> None:
    bus = HookBus()
    ids: list[tuple[str, str, str | None]] = []
    bus.on("on_event", lambda r: ids.append((r.type, r.run_id, r.session_id)))
    events = await s.run(s.runner(bus, s.ScriptedLlm(script=s.conversation())), MESSAGE)
    invocation = events[0].invocation_id
    assert {(run_id, session) for _, run_id, session in ids} == {(invocation, "s")}


async def test_usage_is_read_from_adks_usage_metadata() -> None:
    bus = HookBus()
    done: list[Any] = []
    bus.on("on_chat_done", lambda ctx: done.append(ctx.response))
    await s.run(s.runner(bus, s.ScriptedLlm(script=s.conversation())), MESSAGE)
    usage = done[0].usage
    assert (usage.input_tokens, usage.output_tokens, usage.total_tokens) == (30, 7, 37)
    assert done[0].iterations == 2
