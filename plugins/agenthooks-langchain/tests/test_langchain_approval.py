"""``Ask`` from ``pre_tool_call`` pauses a LangChain run through LangGraph's own
human-in-the-loop mechanism (``interrupt()`` and a checkpointer); the run resumes with
``Command(resume=...)`` carrying ``Approve()`` or ``Deny(reason)``."""

from __future__ import annotations

from typing import Any

import pytest
from agenthooks_langchain import resume_command
from langchain_core.messages import ToolMessage
from langchain_scripted import Recorder, agent, ask, conversation_model, ran
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from agenthooks import Approve, Ask, Deny, HookBus
from agenthooks.bridges import BridgeError
from agenthooks.errors import ResumeError


def _asking_bus() -> tuple[HookBus, Recorder]:
    bus = HookBus()
    bus.on("pre_tool_call", lambda ctx: Ask("deleting needs a human"), match="delete_file")
    return bus, Recorder(bus)


async def _paused(bus: HookBus, thread: str) -> tuple[Any, dict[str, Any], dict[str, Any]]:
    bridged = agent(conversation_model(), bus, checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": thread}}
    out = await bridged.ainvoke(ask(), config)
    return bridged, config, out


async def test_an_ask_pauses_the_run_and_an_approval_runs_the_call() -> None:
    bus, recorder = _asking_bus()
    bridged, config, out = await _paused(bus, "approve")

    (pending,) = out["__interrupt__"]
    assert pending.value == {
        "type": "tool_approval",
        "tool_call_id": "call_1",
        "name": "delete_file",
        "args": {"path": "/tmp/a.txt"},
        "description": "deleting needs a human",
    }
    assert ran == [("read_file", {"path": "/tmp/b.txt"})]  # the other call ran
    assert recorder.events[-2:] == ["on_chat_paused", "on_chat_end"]
    paused = recorder.of("on_chat_paused")[0].output
    assert paused.finish_reason == "paused"
    assert [(p.call_id, p.tool, p.reason) for p in paused.pending] == [
        ("call_1", "delete_file", "deleting needs a human")
    ]
    # while paused the asked call has no tool message
    assert [m.tool_call_id for m in out["messages"] if isinstance(m, ToolMessage)] == ["call_2"]

    first = len(recorder.records)
    done = await bridged.ainvoke(
        resume_command(out["__interrupt__"], {"call_1": Approve()}), config
    )
    resumed = recorder.records[first:]
    assert [r.type for r in resumed] == [
        "on_run_resumed",  # the calls the run waited on and the decision
        "pre_tool_call",
        "on_tool_call_result",
        "on_message",
        "prepare_next_turn",  # the rest of the paused turn
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
    # the resumed run keeps the paused run's id and goes on counting its turns
    assert {r.run_id for r in resumed} == {recorder.records[0].run_id}
    assert [r.iteration for r in resumed if r.type == "on_loop_start"] == [1]
    assert ran[-1] == ("delete_file", {"path": "/tmp/a.txt"})
    assert done["messages"][-1].content == "done"
    assert sorted(
        (m.tool_call_id, m.content) for m in done["messages"] if isinstance(m, ToolMessage)
    ) == [("call_1", "deleted /tmp/a.txt"), ("call_2", "contents of /tmp/b.txt")]


async def test_a_denial_at_resume_is_what_the_model_reads() -> None:
    bus, recorder = _asking_bus()
    bridged, config, out = await _paused(bus, "deny")
    done = await bridged.ainvoke(
        resume_command(out["__interrupt__"], {"call_1": Deny("keep that file")}), config
    )
    assert ("delete_file", {"path": "/tmp/a.txt"}) not in ran
    message = next(
        m for m in done["messages"] if isinstance(m, ToolMessage) and m.tool_call_id == "call_1"
    )
    assert (message.content, message.status) == ("keep that file", "error")
    assert recorder.events[-2:] == ["on_chat_done", "on_chat_end"]


async def test_the_resume_value_may_be_the_decision_itself_or_hitl_style() -> None:
    bus, _ = _asking_bus()
    bridged, config, _ = await _paused(bus, "plain-approve")
    await bridged.ainvoke(Command(resume=Approve()), config)
    assert ran[-1] == ("delete_file", {"path": "/tmp/a.txt"})

    ran.clear()
    bus, _ = _asking_bus()
    bridged, config, _ = await _paused(bus, "hitl-reject")
    done = await bridged.ainvoke(Command(resume={"type": "reject", "message": "not today"}), config)
    assert ("delete_file", {"path": "/tmp/a.txt"}) not in ran
    assert any(isinstance(m, ToolMessage) and m.content == "not today" for m in done["messages"])


async def test_a_resume_value_that_is_no_decision_is_refused_by_name() -> None:
    bus, _ = _asking_bus()
    bridged, config, _ = await _paused(bus, "bad")
    with pytest.raises(ResumeError, match="call_1"):
        await bridged.ainvoke(Command(resume="yes please"), config)


async def test_resume_command_answers_exactly_the_paused_calls() -> None:
    bus, _ = _asking_bus()
    _, _, out = await _paused(bus, "exact")
    with pytest.raises(ResumeError, match="missing \\['call_1'\\]"):
        resume_command(out["__interrupt__"], {})
    with pytest.raises(ResumeError, match="not paused \\['call_9'\\]"):
        resume_command(out["__interrupt__"], {"call_1": Approve(), "call_9": Approve()})


async def test_an_ask_without_a_checkpointer_is_a_clear_error() -> None:
    bus, recorder = _asking_bus()
    with pytest.raises(BridgeError, match="checkpointer"):
        await agent(conversation_model(), bus).ainvoke(ask())
    assert recorder.events[-2:] == ["on_chat_error", "on_chat_end"]


async def test_langchains_own_human_in_the_loop_pauses_and_resumes_a_bridged_run() -> None:
    from langchain.agents.middleware import HumanInTheLoopMiddleware

    bus = HookBus()
    recorder = Recorder(bus)
    bridged = agent(
        conversation_model(),
        bus,
        middleware=[HumanInTheLoopMiddleware(interrupt_on={"delete_file": True})],
        checkpointer=InMemorySaver(),
    )
    config = {"configurable": {"thread_id": "hitl"}}
    out = await bridged.ainvoke(ask(), config)
    assert out["__interrupt__"]
    assert recorder.events[-2:] == ["on_chat_paused", "on_chat_end"]
    assert ran == []
    first = len(recorder.records)
    done = await bridged.ainvoke(
        Command(resume={"decisions": [{"type": "reject", "message": "no"}]}), config
    )
    resumed = recorder.records[first:]
    assert {r.run_id for r in resumed} == {recorder.records[0].run_id}
    assert [r.type for r in resumed][-2:] == ["on_chat_done", "on_chat_end"]
    assert [r.tool_call_id for r in resumed if r.type == "pre_tool_call"] == ["call_2"]
    assert ran == [("read_file", {"path": "/tmp/b.txt"})]
    assert done["messages"][-1].content == "done"


async def test_a_guard_ask_rule_pauses_and_an_approval_resumes() -> None:
    from agenthooks_guard import Guard

    policy = """
default = "allow"
ask = "pause"

[[rules]]
tool = "delete_file"
action = "ask"
reason = "Deleting needs a human."
"""
    bus = HookBus()
    bus.use(Guard.from_toml(policy))
    recorder = Recorder(bus)
    bridged = agent(conversation_model(), bus, checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "guard-ask"}}
    out = await bridged.ainvoke(ask(), config)
    (pending,) = out["__interrupt__"]
    assert (pending.value["tool_call_id"], pending.value["description"]) == (
        "call_1",
        "Deleting needs a human.",
    )
    assert recorder.events[-2:] == ["on_chat_paused", "on_chat_end"]
    done = await bridged.ainvoke(
        resume_command(out["__interrupt__"], {"call_1": Approve()}), config
    )
    assert ("delete_file", {"path": "/tmp/a.txt"}) in ran
    assert done["messages"][-1].content == "done"
    assert recorder.events[-2:] == ["on_chat_done", "on_chat_end"]


async def test_a_resume_that_answers_one_of_two_paused_calls_pauses_again_on_the_other() -> None:
    bus = HookBus()
    bus.on("pre_tool_call", lambda ctx: Ask("needs a human"))
    recorder = Recorder(bus)
    bridged = agent(conversation_model(), bus, checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "two"}}
    out = await bridged.ainvoke(ask(), config)
    by_call = {i.value["tool_call_id"]: i.id for i in out["__interrupt__"]}
    assert sorted(by_call) == ["call_1", "call_2"]
    paused = recorder.of("on_chat_paused")[0].output
    assert sorted(p.call_id for p in paused.pending) == ["call_1", "call_2"]

    again = await bridged.ainvoke(Command(resume={by_call["call_2"]: Approve()}), config)
    assert ran == [("read_file", {"path": "/tmp/b.txt"})]
    assert [i.value["tool_call_id"] for i in again["__interrupt__"]] == ["call_1"]
    paused = recorder.of("on_chat_paused")[-1].output
    assert [p.call_id for p in paused.pending] == ["call_1"]
    assert recorder.events[-2:] == ["on_chat_paused", "on_chat_end"]

    done = await bridged.ainvoke(
        resume_command(again["__interrupt__"], {"call_1": Approve()}), config
    )
    assert ran[-1] == ("delete_file", {"path": "/tmp/a.txt"})
    assert done["messages"][-1].content == "done"
    assert recorder.events[-2:] == ["on_chat_done", "on_chat_end"]
