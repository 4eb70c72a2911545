"""The bridge's declaration (``CAPABILITIES``) pinned to behaviour: every event it says it
fires fires in scripted runs, every return it says it honours changes what LangChain does, and
a return it does not honour raises ``UnsupportedReturnError`` naming the event, the return and
the framework."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from agenthooks_langchain import CAPABILITIES, AgentHooksMiddleware, resume_command
from langchain.agents import create_agent
from langchain_core.messages import ToolMessage
from langchain_core.tools import tool
from langchain_scripted import Recorder, agent, ask, calls, conversation_model, ran, script
from langgraph.checkpoint.memory import InMemorySaver

from agenthooks import AgentResponse, Approve, Ask, Deny, HookBus, ProviderResponse, StopRun
from agenthooks.bridges import installed_bridges
from agenthooks.errors import UnsupportedReturnError


def test_the_entry_point_names_the_declaration() -> None:
    assert installed_bridges()["langchain"] is CAPABILITIES
    assert CAPABILITIES.framework == "LangChain"
    assert CAPABILITIES.distribution == "agenthooks-langchain"


async def test_every_event_the_bridge_fires_fires_in_scripted_runs() -> None:
    bus = HookBus()
    recorder = Recorder(bus)
    bus.on("on_model_error", lambda ctx: {"response": ProviderResponse(content="retry later")})
    bus.on("on_tool_call_error", lambda ctx: {"result": "missing"})
    # 1. a run with a recovered model error, a recovered tool error and a second turn
    recovering = script(
        calls(("c1", "fail", {"path": "/x"}), ("c2", "read_file", {"path": "/y"})),
        ConnectionError("down"),
    )
    await agent(recovering, bus).ainvoke(ask())
    # 2. a run that pauses
    asking = HookBus()
    asking.on("pre_tool_call", lambda ctx: Ask("sure?"), match="delete_file")
    paused = Recorder(asking)
    pausing = agent(conversation_model(), asking, checkpointer=InMemorySaver())
    caps = {"configurable": {"thread_id": "caps"}}
    out = await pausing.ainvoke(ask(), caps)
    # ... and resumes
    await pausing.ainvoke(resume_command(out["__interrupt__"], {"call_1": Approve()}), caps)
    # 3. a run a hook stops, 4. a run that is cancelled
    stopping = HookBus()
    stopped = Recorder(stopping)

    def stop(ctx: Any) -> None:
        raise StopRun("enough")

    stopping.on("pre_request", stop)
    with pytest.raises(StopRun):
        await agent(script("x"), stopping).ainvoke(ask())
    cancelling = HookBus()
    cancelled = Recorder(cancelling)
    started = asyncio.Event()
    cancelling.on("pre_tool_call", lambda ctx: started.set())
    task = asyncio.ensure_future(
        agent(script(calls(("c1", "slow_read", {"path": "/s"}))), cancelling).ainvoke(ask())
    )
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    # 5. a sub-agent: an agent a tool runs
    delegating = HookBus()
    delegated = Recorder(delegating)
    researcher = create_agent(
        script("found"), [], name="researcher", middleware=[AgentHooksMiddleware(delegating)]
    )

    @tool
    async def research(topic: str) -> str:
        """Research a topic."""
        return str((await researcher.ainvoke(ask(topic)))["messages"][-1].content)

    await create_agent(
        script(calls(("r1", "research", {"topic": "x"})), "ok"),
        [research],
        middleware=[AgentHooksMiddleware(delegating)],
    ).ainvoke(ask())

    fired = {
        r.type for rec in (recorder, paused, stopped, cancelled, delegated) for r in rec.records
    }
    assert fired | {"on_event"} == CAPABILITIES.fires  # on_event: the records themselves


def _tool_text(out: dict[str, Any], call_id: str) -> tuple[str, str]:
    m = next(m for m in out["messages"] if isinstance(m, ToolMessage) and m.tool_call_id == call_id)
    return m.content, m.status


Case = tuple[Callable[[Any], Any], Callable[[dict[str, Any], Any], None]]


def _cases() -> dict[tuple[str, str], Case]:
    """Per honoured (event, return): the handler, and a check of what LangChain did."""
    reply = ProviderResponse(content="short-circuited")
    return {
        ("on_chat_start", "deny"): (
            lambda ctx: Deny("closed"),
            lambda out, model: out["messages"][-1].content == "closed" or _fail(),
        ),
        ("on_user_message", "message"): (
            lambda ctx: {"message": "Read /tmp/b.txt"},
            lambda out, model: model.sent[0][0].content == "Read /tmp/b.txt" or _fail(),
        ),
        ("on_user_message", "deny"): (
            lambda ctx: Deny("rude"),
            lambda out, model: (
                (model.sent == [] and out["messages"][-1].content == "rude") or _fail()
            ),
        ),
        ("pre_agent", "response"): (
            lambda ctx: {"response": AgentResponse(content="answered for it")},
            lambda out, model: (
                (model.sent == [] and out["messages"][-1].content == "answered for it") or _fail()
            ),
        ),
        ("pre_agent", "deny"): (
            lambda ctx: Deny("not this agent"),
            lambda out, model: (
                (model.sent == [] and out["messages"][-1].content == "not this agent") or _fail()
            ),
        ),
        ("transform_context", "messages"): (
            lambda ctx: {"messages": [m.model_copy(update={"content": "T"}) for m in ctx.messages]},
            lambda out, model: (
                (model.sent[0][0].content == "T" and out["messages"][0].content != "T") or _fail()
            ),
        ),
        ("pre_request", "request"): (
            lambda ctx: {"request": ctx.request.model_copy(update={"system": "S"})},
            lambda out, model: model.sent[0][0].content == "S" or _fail(),
        ),
        ("pre_request", "response"): (
            lambda ctx: {"response": reply},
            lambda out, model: (
                (model.sent == [] and out["messages"][-1].content == reply.content) or _fail()
            ),
        ),
        ("pre_request", "deny"): (
            lambda ctx: Deny("no"),
            lambda out, model: (
                (model.sent == [] and out["messages"][-1].content == "no") or _fail()
            ),
        ),
        ("on_response", "response"): (
            lambda ctx: {"response": ctx.response.model_copy(update={"content": "R"})},
            lambda out, model: out["messages"][-1].content == "R" or _fail(),
        ),
        ("on_response", "deny"): (
            lambda ctx: Deny("unsafe answer"),
            lambda out, model: (
                (out["messages"][-1].content == "unsafe answer" and len(model.sent) == 1) or _fail()
            ),
        ),
        ("on_model_error", "response"): (
            lambda ctx: {"response": reply},
            lambda out, model: out["messages"][-1].content == reply.content or _fail(),
        ),
        ("on_model_error", "error"): (
            lambda ctx: {"error": PermissionError("replaced")},
            None,  # checked in the test: the caller gets the replacement
        ),
        ("pre_tool_call", "call"): (
            lambda ctx: {"call": ctx.call.model_copy(update={"arguments": {"path": "/z"}})},
            lambda out, model: (
                _tool_text(out, "call_2") == ("contents of /z", "success") or _fail()
            ),
        ),
        ("pre_tool_call", "result"): (
            lambda ctx: {"result": "cached"},
            lambda out, model: _tool_text(out, "call_2") == ("cached", "success") or _fail(),
        ),
        ("pre_tool_call", "error"): (
            lambda ctx: {"error": "not now"},
            lambda out, model: _tool_text(out, "call_2") == ("not now", "error") or _fail(),
        ),
        ("pre_tool_call", "deny"): (
            lambda ctx: Deny("never"),
            lambda out, model: _tool_text(out, "call_2") == ("never", "error") or _fail(),
        ),
        ("pre_tool_call", "ask"): (
            lambda ctx: Ask("sure?"),
            lambda out, model: out["__interrupt__"][0].value["tool_call_id"] == "call_2" or _fail(),
        ),
        ("on_tool_call_result", "result"): (
            lambda ctx: {"result": "R"},
            lambda out, model: _tool_text(out, "call_2") == ("R", "success") or _fail(),
        ),
        ("on_tool_call_result", "deny"): (
            lambda ctx: Deny("hidden"),
            lambda out, model: _tool_text(out, "call_2") == ("hidden", "error") or _fail(),
        ),
        ("on_tool_call_error", "result"): (
            lambda ctx: {"result": "recovered"},
            lambda out, model: _tool_text(out, "call_2") == ("recovered", "success") or _fail(),
        ),
        ("on_tool_call_error", "error"): (
            lambda ctx: {"error": "reworded"},
            lambda out, model: _tool_text(out, "call_2") == ("reworded", "error") or _fail(),
        ),
        ("should_stop", "true"): (
            lambda ctx: True,
            lambda out, model: (
                (len(model.sent) == 1 and out["messages"][-1].type == "tool") or _fail()
            ),
        ),
        ("post_agent", "response"): (
            lambda ctx: {"response": ctx.response.model_copy(update={"content": "P"})},
            lambda out, model: out["messages"][-1].content == "P" or _fail(),
        ),
        ("post_agent", "deny"): (
            lambda ctx: Deny("withheld"),
            lambda out, model: out["messages"][-1].content == "withheld" or _fail(),
        ),
    }


def _fail() -> bool:
    raise AssertionError("the return did not change what LangChain did")


def test_the_cases_cover_exactly_what_the_bridge_declares() -> None:
    declared = {(e, k) for e, keys in CAPABILITIES.honours.items() for k in keys}
    assert set(_cases()) == declared


@pytest.mark.parametrize("case", sorted(_cases()), ids=lambda c: f"{c[0]}.{c[1]}")
async def test_every_honoured_return_changes_the_run(case: tuple[str, str]) -> None:
    event, key = case
    handler, check = _cases()[case]
    bus = HookBus()
    tool_events = {"pre_tool_call", "on_tool_call_result", "on_tool_call_error"}
    if event in tool_events:
        bus.on(event, handler, match="fail" if event == "on_tool_call_error" else "read_file")
    else:
        bus.on(event, handler)
    first: Any = calls(
        ("call_2", "fail" if event == "on_tool_call_error" else "read_file", {"path": "/tmp/b.txt"})
    )
    if event == "on_model_error":
        first = ConnectionError("down")
    model = script(first, "done")
    bridged = agent(model, bus, checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": f"{event}.{key}"}}
    if check is None:
        with pytest.raises(PermissionError, match="replaced"):
            await bridged.ainvoke(ask(), config)
        return
    out = await bridged.ainvoke(ask(), config)
    check(out, model)
    assert ran == [] or event != "pre_tool_call" or key == "call"


async def test_a_return_langchain_cannot_carry_out_raises_naming_it() -> None:
    bus = HookBus()
    bus.on("on_tool_call_result", lambda ctx: {"terminate": True})
    recorder = Recorder(bus)
    with pytest.raises(UnsupportedReturnError) as caught:
        await agent(conversation_model(), bus).ainvoke(ask())
    error = caught.value
    assert (error.event, error.key, error.framework) == (
        "on_tool_call_result",
        "terminate",
        "LangChain",
    )
    assert "return_direct" in str(error)
    assert recorder.events[-2:] == ["on_chat_error", "on_chat_end"]

    turning = HookBus()
    turning.on("prepare_next_turn", lambda ctx: {"model": "gpt-5"})
    with pytest.raises(UnsupportedReturnError) as caught:
        await agent(conversation_model(), turning).ainvoke(ask())
    assert (caught.value.event, caught.value.key) == ("prepare_next_turn", "model")
