"""The scripted conversation on a LangChain agent: the same hooks get the same values as on
our own runtime, and the bridge with no handler changes nothing LangChain does."""

from __future__ import annotations

import uuid

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_scripted import USER, Recorder, agent, ask, conversation_model, ran

from agenthooks import HookBus


async def test_the_scripted_conversation_fires_the_runtime_sequence() -> None:
    bus = HookBus()
    recorder = Recorder(bus)
    run_id = uuid.uuid4()
    out = await agent(conversation_model(), bus).ainvoke(ask(), {"run_id": run_id})

    events = recorder.events
    batch = events[9:15]  # the two calls run in parallel: their events may interleave
    assert events[:9] + events[15:] == [
        "on_chat_start",
        "on_user_message",
        "on_message",  # the user message
        "pre_agent",
        "on_loop_start",
        "transform_context",
        "pre_request",
        "on_response",
        "on_message",  # the assistant's two calls
        "on_loop_end",
        "prepare_next_turn",
        "should_stop",
        "on_loop_start",
        "transform_context",
        "pre_request",
        "on_response",
        "on_loop_end",
        "post_agent",
        "on_message",  # the final answer, after post_agent allowed it
        "on_chat_done",
        "on_chat_end",
    ]
    per_call = {
        cid: [
            r.type
            for r in recorder.records[9:15]
            if r.tool_call_id == cid or (r.type == "on_message" and r.output.tool_call_id == cid)
        ]
        for cid in ("call_1", "call_2")
    }
    assert per_call == {
        "call_1": ["pre_tool_call", "on_tool_call_result", "on_message"],
        "call_2": ["pre_tool_call", "on_tool_call_result", "on_message"],
    }
    assert len(batch) == 6
    # one run id, LangChain's own, on every record
    assert {r.run_id for r in recorder.records} == {str(run_id)}
    assert [(r.tool_call_id, r.tool_name, r.input) for r in recorder.of("pre_tool_call")] == [
        ("call_1", "delete_file", {"path": "/tmp/a.txt"}),
        ("call_2", "read_file", {"path": "/tmp/b.txt"}),
    ]
    assert [(r.tool_call_id, r.output) for r in recorder.of("on_tool_call_result")] == [
        ("call_1", "deleted /tmp/a.txt"),
        ("call_2", "contents of /tmp/b.txt"),
    ]
    assert [r.iteration for r in recorder.of("on_loop_start")] == [0, 1]
    assert recorder.of("on_chat_start")[0].input == USER
    done = recorder.of("on_chat_done")[0].output
    assert (done.content, done.finish_reason, done.iterations) == ("done", "stop", 2)
    assert [m.role for m in done.messages] == ["user", "assistant", "tool", "tool", "assistant"]
    assert [type(m) for m in out["messages"]] == [
        HumanMessage,
        AIMessage,
        ToolMessage,
        ToolMessage,
        AIMessage,
    ]
    assert sorted(ran) == [
        ("delete_file", {"path": "/tmp/a.txt"}),
        ("read_file", {"path": "/tmp/b.txt"}),
    ]


async def test_without_a_run_id_the_graph_run_id_is_the_run_id() -> None:
    bus = HookBus()
    recorder = Recorder(bus)
    seen: list[str] = []
    from langchain_core.callbacks import AsyncCallbackHandler

    class Root(AsyncCallbackHandler):
        async def on_chain_start(self, serialized, inputs, *, run_id, parent_run_id=None, **kw):  # type: ignore[no-untyped-def]
            if parent_run_id is None:
                seen.append(str(run_id))

    await agent(conversation_model(), bus).ainvoke(ask(), {"callbacks": [Root()]})
    assert len(seen) == 1
    assert {r.run_id for r in recorder.records} == {seen[0]}


def _shape(messages: list[object]) -> list[tuple[object, ...]]:
    return [
        (
            type(m).__name__,
            m.content,  # type: ignore[attr-defined]
            getattr(m, "tool_calls", None),
            getattr(m, "tool_call_id", None),
            getattr(m, "status", None),
        )
        for m in messages
    ]


async def test_with_no_handler_the_agent_does_what_it_does_without_the_bridge() -> None:
    plain = await agent(conversation_model(), None).ainvoke(ask())
    bridged = await agent(conversation_model(), HookBus()).ainvoke(ask())
    assert _shape(bridged["messages"]) == _shape(plain["messages"])
    assert set(bridged) == set(plain)  # the bridge's private state stays out of the output


async def test_the_same_conversation_gives_the_hooks_the_same_values_as_our_runtime() -> None:
    from agenthooks import Agent, ProviderResponse, ScriptedProvider, ToolCall, tool

    @tool
    def delete_file(path: str) -> str:
        """Delete a file."""
        return f"deleted {path}"

    @tool
    def read_file(path: str) -> str:
        """Read a file."""
        return f"contents of {path}"

    ours = HookBus()
    ours_seen = Recorder(ours)
    provider = ScriptedProvider(
        [
            ProviderResponse(
                tool_calls=[
                    ToolCall(id="call_1", name="delete_file", arguments={"path": "/tmp/a.txt"}),
                    ToolCall(id="call_2", name="read_file", arguments={"path": "/tmp/b.txt"}),
                ]
            ),
            "done",
        ]
    )
    await Agent("agent", provider=provider, tools=[delete_file, read_file], bus=ours).chat(USER)

    bridged = HookBus()
    bridged_seen = Recorder(bridged)
    await agent(conversation_model(), bridged).ainvoke(ask())

    def values(recorder: Recorder) -> list[tuple[object, ...]]:
        out = []
        for r in recorder.records:
            value: object = r.output
            if r.type == "pre_request":  # the model's name is the framework's own
                value = [
                    (m.role, m.content, m.tool_calls, m.tool_call_id) for m in r.input.messages
                ]
            if r.type == "on_response":  # so is the raw response
                value = (r.output.content, r.output.tool_calls, r.output.finish_reason)
            if r.type in ("on_chat_done", "on_chat_end"):
                value = (r.output.content, r.output.finish_reason, r.output.iterations)
            if r.type == "post_agent":
                value = (r.output.content, r.output.finish_reason)
            if r.type == "on_message":
                value = (r.output.role, r.output.content, r.output.tool_call_id)
            out.append(
                (r.type, r.tool_call_id, r.tool_name, r.input if r.tool_call_id else None, value)
            )
        return out

    def in_call_order(rows: list[tuple[object, ...]]) -> list[tuple[object, ...]]:
        # within the parallel batch the framework's scheduling decides the order; put each
        # call's events together, in call order, as a sequential run gives them
        start = next(i for i, r in enumerate(rows) if r[0] == "pre_tool_call")
        end = (
            max(
                i
                for i, r in enumerate(rows)
                if r[1] is not None
                or (
                    r[0] == "on_message" and r[4][0] == "tool"  # type: ignore[index]
                )
            )
            + 1
        )

        def call_of(row: tuple[object, ...]) -> object:
            return row[1] if row[1] is not None else row[4][2]  # type: ignore[index]

        batch = sorted(rows[start:end], key=lambda r: str(call_of(r)))
        return rows[:start] + batch + rows[end:]

    assert in_call_order(values(bridged_seen)) == in_call_order(values(ours_seen))
