"""An agent a tool runs (LangChain's sub-agent: a ``create_agent`` agent invoked from a tool of
another) is a sub-agent, as on our runtime: ``on_subagent_start`` inside the delegating call
before the sub-agent's run starts, ``on_subagent_stop`` with its answer (or its error) once the
call ended, and the sub-agent's run has the caller's run as its parent."""

from __future__ import annotations

from typing import Any

import pytest
from agenthooks_langchain import AgentHooksMiddleware
from langchain.agents import create_agent
from langchain_core.tools import tool
from langchain_scripted import ScriptedModel, ask, calls, script

from agenthooks import Deny, HookBus


@pytest.fixture
def bus() -> HookBus:
    return HookBus()


EVENTS = (
    "on_chat_start",
    "pre_tool_call",
    "on_subagent_start",
    "on_subagent_stop",
    "on_tool_call_result",
    "on_tool_call_error",
    "on_chat_done",
)


def recorded(bus: HookBus, events: tuple[str, ...] = EVENTS) -> list[tuple[str, Any]]:
    seen: list[tuple[str, Any]] = []
    for name in events:
        bus.on(name, lambda ctx, name=name: seen.append((name, ctx)))
    return seen


def delegating(bus: HookBus, sub_model: ScriptedModel) -> tuple[Any, ScriptedModel]:
    researcher = create_agent(
        sub_model, [], name="researcher", middleware=[AgentHooksMiddleware(bus)]
    )

    @tool
    async def research(topic: str) -> str:
        """Research a topic."""
        out = await researcher.ainvoke(ask(topic))
        return str(out["messages"][-1].content)

    model = script(calls(("call_1", "research", {"topic": "moons of Mars"})), "done")
    lead = create_agent(model, [research], name="lead", middleware=[AgentHooksMiddleware(bus)])
    return lead, model


def flow(seen: list[tuple[str, Any]]) -> list[tuple[str, str]]:
    return [(name, ctx.agent) for name, ctx in seen]


async def test_an_agent_a_tool_runs_is_a_sub_agent_of_the_call(bus: HookBus) -> None:
    seen = recorded(bus)
    lead, _ = delegating(bus, script("Phobos and Deimos"))

    out = await lead.ainvoke(ask("Which moons has Mars?"))

    assert out["messages"][-1].content == "done"
    assert flow(seen) == [
        ("on_chat_start", "lead"),
        ("pre_tool_call", "lead"),
        ("on_subagent_start", "lead"),
        ("on_chat_start", "researcher"),
        ("on_chat_done", "researcher"),
        ("on_subagent_stop", "lead"),
        ("on_tool_call_result", "lead"),
        ("on_chat_done", "lead"),
    ]
    lead_run = seen[0][1].run_id
    start, child, stop = seen[2][1], seen[3][1], seen[5][1]
    assert (start.subagent, start.task, start.tool_call_id, start.run_id) == (
        "researcher",
        "moons of Mars",
        "call_1",
        lead_run,
    )
    assert (child.parent_run_id, child.message) == (lead_run, "moons of Mars")
    assert child.run_id != lead_run
    assert (stop.subagent, stop.tool_call_id, stop.result, stop.error) == (
        "researcher",
        "call_1",
        "Phobos and Deimos",
        None,
    )
    assert stop.duration is not None and stop.duration >= 0


async def test_with_only_sub_agent_events_listening_they_still_fire(bus: HookBus) -> None:
    seen = recorded(bus, ("on_subagent_start", "on_subagent_stop"))
    lead, _ = delegating(bus, script("Phobos and Deimos"))

    await lead.ainvoke(ask("Which moons has Mars?"))

    assert [name for name, _ in seen] == ["on_subagent_start", "on_subagent_stop"]
    assert seen[1][1].result == "Phobos and Deimos"


async def test_a_failing_sub_agent_reports_its_error(bus: HookBus) -> None:
    seen = recorded(bus, ("on_subagent_start", "on_subagent_stop"))
    lead, _ = delegating(bus, script(ConnectionError("the archive is down")))

    # the tool raised and nothing recovered: the run fails with it, as without the bridge
    with pytest.raises(ConnectionError):
        await lead.ainvoke(ask("Which moons has Mars?"))

    assert [name for name, _ in seen] == ["on_subagent_start", "on_subagent_stop"]
    stop = seen[1][1]
    assert stop.result is None
    assert isinstance(stop.error, ConnectionError) and str(stop.error) == "the archive is down"


async def test_a_denied_delegation_never_starts_the_sub_agent(bus: HookBus) -> None:
    seen = recorded(bus)
    bus.on("pre_tool_call", lambda ctx: Deny("No research today."), match="research")
    sub = script("never asked")
    lead, _ = delegating(bus, sub)

    await lead.ainvoke(ask("Which moons has Mars?"))

    assert [n for n, _ in seen if "subagent" in n] == []
    assert sub.sent == []
