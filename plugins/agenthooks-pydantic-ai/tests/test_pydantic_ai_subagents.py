"""An agent a tool runs (Pydantic AI's agent delegation: an agent called from a tool of
another) is a sub-agent, as on our runtime: ``on_subagent_start`` inside the delegating call
before the sub-agent's run starts, ``on_subagent_stop`` with its answer (or its error) once the
call ended, and the sub-agent's run has the caller's run as its parent."""

from __future__ import annotations

from typing import Any

import pytest
from agenthooks_pydantic_ai import AgentHooksCapability
from pydantic_ai import Agent
from pydantic_ai_script import Script

from agenthooks import Deny, HookBus

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


def delegating(bus: HookBus, sub: Script) -> Agent[None, str]:
    researcher: Agent[None, str] = Agent(
        sub.model, name="researcher", capabilities=[AgentHooksCapability(bus)]
    )
    lead: Agent[None, str] = Agent(
        Script([("research", {"topic": "moons of Mars"}, "call_1")], "done").model,
        name="lead",
        capabilities=[AgentHooksCapability(bus)],
    )

    @lead.tool_plain
    async def research(topic: str) -> str:
        """Research a topic."""
        return (await researcher.run(topic)).output

    return lead


async def test_an_agent_a_tool_runs_is_a_sub_agent_of_the_call() -> None:
    bus = HookBus()
    seen = recorded(bus)

    result = await delegating(bus, Script("Phobos and Deimos")).run("Which moons has Mars?")

    assert result.output == "done"
    assert [(name, ctx.agent) for name, ctx in seen] == [
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
    assert (stop.subagent, stop.result, stop.error) == ("researcher", "Phobos and Deimos", None)
    assert stop.duration is not None and stop.duration >= 0


async def test_with_only_sub_agent_events_listening_they_still_fire() -> None:
    bus = HookBus()
    seen = recorded(bus, ("on_subagent_start", "on_subagent_stop"))

    await delegating(bus, Script("Phobos and Deimos")).run("Which moons has Mars?")

    assert [name for name, _ in seen] == ["on_subagent_start", "on_subagent_stop"]


async def test_a_failing_sub_agent_reports_its_error() -> None:
    bus = HookBus()
    seen = recorded(bus, ("on_subagent_start", "on_subagent_stop"))

    with pytest.raises(ConnectionError):
        await delegating(bus, Script(ConnectionError("the archive is down"))).run("Which moons?")

    assert [name for name, _ in seen] == ["on_subagent_start", "on_subagent_stop"]
    stop = seen[1][1]
    assert stop.result is None
    assert isinstance(stop.error, ConnectionError) and str(stop.error) == "the archive is down"


async def test_a_denied_delegation_never_starts_the_sub_agent() -> None:
    bus = HookBus()
    seen = recorded(bus)
    bus.on("pre_tool_call", lambda ctx: Deny("No research today."), match="research")
    sub = Script("never asked")

    await delegating(bus, sub).run("Which moons has Mars?")

    assert [n for n, _ in seen if "subagent" in n] == []
    assert sub.calls == 0
