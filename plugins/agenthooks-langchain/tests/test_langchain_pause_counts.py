"""A LangChain run paused by ``Ask`` keeps its counts: a ``Limits`` tool-call cap, the turns
and the usage go on from what the run used before the interrupt, and the plugins' per-run
state comes back through ``on_run_resumed``."""

from __future__ import annotations

from typing import Any

import pytest
from agenthooks_langchain import resume_command
from agenthooks_limits import Cap, Limits
from langchain_core.messages import AIMessage, ToolMessage
from langchain_scripted import Recorder, agent, ask, ran, script
from langgraph.checkpoint.memory import InMemorySaver

from agenthooks import Approve, Ask, HookBus, StopRun
from agenthooks.bridges import PAUSED_RUNS

USAGE = {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}
DENIED = 'Tool call "read_file" was denied (tool call limit: 2 of 2 tool calls used)'


def turn(call_id: str, name: str, path: str) -> AIMessage:
    return AIMessage(
        content="",
        tool_calls=[{"id": call_id, "name": name, "args": {"path": path}, "type": "tool_call"}],
        usage_metadata=USAGE,  # type: ignore[arg-type]
    )


async def test_the_tool_call_cap_and_the_usage_go_on_after_a_resume() -> None:
    bus = HookBus()
    bus.use(Limits(max_tool_calls=2))
    bus.on("pre_tool_call", lambda ctx: Ask("delete?"), match="delete_file")
    recorder = Recorder(bus)
    model = script(
        turn("r1", "read_file", "/a"),
        turn("d1", "delete_file", "/b"),
        turn("r2", "read_file", "/c"),
        AIMessage(content="done", usage_metadata=USAGE),  # type: ignore[arg-type]
    )
    bridged = agent(model, bus, checkpointer=InMemorySaver())
    config: Any = {"configurable": {"thread_id": "counts"}}
    out = await bridged.ainvoke(ask(), config)
    [paused] = recorder.of("on_chat_paused")
    assert paused.output.usage.total_tokens == 30

    done = await bridged.ainvoke(resume_command(out["__interrupt__"], {"d1": Approve()}), config)
    # the read before the pause and the approved delete used the cap of two
    assert ran == [("read_file", {"path": "/a"}), ("delete_file", {"path": "/b"})]
    tool_messages = [
        (m.tool_call_id, m.content) for m in done["messages"] if isinstance(m, ToolMessage)
    ]
    assert tool_messages == [("r1", "contents of /a"), ("d1", "deleted /b"), ("r2", DENIED)]
    [resumed] = recorder.of("on_run_resumed")
    assert resumed.run_id == paused.run_id
    assert [p.call_id for p in resumed.output] == ["d1"]  # the calls it waited on
    assert resumed.input == {"d1": Approve()}  # the decision
    [finished] = recorder.of("on_chat_done")
    assert finished.output.usage.total_tokens == 60  # four model calls, both parts of the run
    assert finished.output.iterations == 4


async def test_the_token_cap_counts_the_tokens_used_before_the_pause() -> None:
    bus = HookBus()
    bus.use(Limits(max_tokens=Cap(40, "stop")))
    bus.on("pre_tool_call", lambda ctx: Ask("delete?"), match="delete_file")
    stops: list[str] = []
    bus.on("on_stop", lambda ctx: stops.append(ctx.reason))
    model = script(
        turn("r1", "read_file", "/a"),
        turn("d1", "delete_file", "/b"),
        turn("r2", "read_file", "/c"),
        AIMessage(content="done", usage_metadata=USAGE),  # type: ignore[arg-type]
    )
    bridged = agent(model, bus, checkpointer=InMemorySaver())
    config: Any = {"configurable": {"thread_id": "tokens"}}
    out = await bridged.ainvoke(ask(), config)
    with pytest.raises(StopRun, match="token limit: 45 of 40 tokens used"):
        await bridged.ainvoke(resume_command(out["__interrupt__"], {"d1": Approve()}), config)
    # 15 + 15 before the pause, 15 after: the cap stops the run before its fourth model call
    assert stops == ["token limit: 45 of 40 tokens used"]
    assert ran[-1] == ("read_file", {"path": "/c"})


async def test_resumed_elsewhere_the_run_keeps_its_id_turns_and_usage_from_the_graph_state() -> (
    None
):
    bus = HookBus()
    bus.on("pre_tool_call", lambda ctx: Ask("delete?"), match="delete_file")
    recorder = Recorder(bus)
    model = script(
        turn("r1", "read_file", "/a"),
        turn("d1", "delete_file", "/b"),
        AIMessage(content="done", usage_metadata=USAGE),  # type: ignore[arg-type]
    )
    saver = InMemorySaver()
    config: Any = {"configurable": {"thread_id": "elsewhere"}}
    out = await agent(model, bus, checkpointer=saver).ainvoke(ask(), config)
    [paused] = recorder.of("on_chat_paused")
    # as in a process that did not pause it: nothing of the run in this process's memory
    assert PAUSED_RUNS.take([("langchain", "elsewhere")]) is not None
    again = agent(model, bus, checkpointer=saver)
    await again.ainvoke(resume_command(out["__interrupt__"], {"d1": Approve()}), config)
    [finished] = recorder.of("on_chat_done")
    assert finished.run_id == paused.run_id
    assert finished.output.usage.total_tokens == 45  # the checkpoint kept both calls' usage
    assert finished.output.iterations == 3


async def test_the_graph_state_keeps_the_run_record_only_for_a_run_with_a_thread() -> None:
    # the record is there for a resume, which needs a checkpointer and a thread
    updates = [
        u async for u in agent(script("hi"), HookBus()).astream(ask(), stream_mode="updates")
    ]
    assert [sorted(u["model"]) for u in updates] == [["messages"]]

    threaded = agent(script("hi"), HookBus(), checkpointer=InMemorySaver())
    config: Any = {"configurable": {"thread_id": "record"}}
    updates = [u async for u in threaded.astream(ask(), config, stream_mode="updates")]
    assert [sorted(u["model"]) for u in updates] == [["agenthooks_run", "messages"]]
    kept = (await threaded.aget_state(config)).values["agenthooks_run"]
    assert (kept["iteration"], kept["usage"]["total_tokens"]) == (0, 0)
