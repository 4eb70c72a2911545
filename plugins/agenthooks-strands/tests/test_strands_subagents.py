"""An agent Strands runs as a tool (``agent.as_tool()``) is a sub-agent, as on our runtime:
``on_subagent_start`` inside the delegating call, ``on_subagent_stop`` with its answer (or its
error) and duration, between the call's ``pre_tool_call`` and its result events."""

from __future__ import annotations

from typing import Any

from agenthooks_strands.testing import ScriptedModel, tool_calls
from strands import Agent
from strands_helpers import build, tool_results

from agenthooks import Deny, HookBus

EVENTS = (
    "pre_tool_call",
    "on_subagent_start",
    "on_subagent_stop",
    "on_tool_call_result",
    "on_tool_call_error",
)


def recorded(bus: HookBus, events: tuple[str, ...] = EVENTS) -> list[tuple[str, Any]]:
    seen: list[tuple[str, Any]] = []
    for name in events:
        bus.on(name, lambda ctx, name=name: seen.append((name, ctx)))
    return seen


def delegating(bus: HookBus, sub_script: list[Any]) -> tuple[Agent, ScriptedModel]:
    researcher = Agent(
        name="researcher",
        model=ScriptedModel(sub_script),
        callback_handler=None,
        description="Finds things out.",
    )
    return build(
        bus,
        [tool_calls(("call_1", "research", {"input": "moons of Mars"})), "done"],
        tools=[researcher.as_tool(name="research")],
        name="lead",
    )


async def test_a_tool_that_runs_an_agent_fires_the_sub_agent_events(bus: HookBus) -> None:
    seen = recorded(bus)
    lead, model = delegating(bus, ["Phobos and Deimos"])

    result = await lead.invoke_async("Which moons has Mars?")

    assert str(result).strip() == "done"
    assert tool_results(model)["call_1"][0] == "success"
    assert "Phobos and Deimos" in tool_results(model)["call_1"][1]
    assert [name for name, _ in seen] == [
        "pre_tool_call",
        "on_subagent_start",
        "on_subagent_stop",
        "on_tool_call_result",
    ]
    start, stop = seen[1][1], seen[2][1]
    assert (start.subagent, start.task, start.tool_call_id, start.agent) == (
        "researcher",
        "moons of Mars",
        "call_1",
        "lead",
    )
    assert (stop.subagent, stop.tool_call_id, stop.error) == ("researcher", "call_1", None)
    assert stop.result == tool_results(model)["call_1"][1]
    assert stop.result.strip() == "Phobos and Deimos"
    assert stop.duration is not None and stop.duration >= 0


async def test_with_only_sub_agent_events_listening_they_still_fire(bus: HookBus) -> None:
    seen = recorded(bus, ("on_subagent_start", "on_subagent_stop"))
    lead, _ = delegating(bus, ["Phobos and Deimos"])

    await lead.invoke_async("Which moons has Mars?")

    assert [name for name, _ in seen] == ["on_subagent_start", "on_subagent_stop"]


async def test_a_failing_sub_agent_reports_what_strands_makes_of_it(bus: HookBus) -> None:
    seen = recorded(bus)
    lead, model = delegating(bus, [RuntimeError("the archive is down")])

    await lead.invoke_async("Which moons has Mars?")

    names = [name for name, _ in seen]
    assert names[:3] == ["pre_tool_call", "on_subagent_start", "on_subagent_stop"]
    # Strands' agent tool catches the sub-agent's exception and answers with an error result
    # whose text names it: on_subagent_stop carries that text, as the model reads it
    stop = seen[2][1]
    assert (stop.result, stop.error) == ("Agent error: the archive is down", None)
    assert tool_results(model)["call_1"] == ("error", "Agent error: the archive is down")


async def test_a_denied_delegation_never_starts_the_sub_agent(bus: HookBus) -> None:
    seen = recorded(bus)
    bus.on("pre_tool_call", lambda ctx: Deny("No research today."), match="research")
    lead, model = delegating(bus, ["never asked"])

    await lead.invoke_async("Which moons has Mars?")

    assert [name for name, _ in seen] == ["pre_tool_call", "on_tool_call_error"]
    assert tool_results(model)["call_1"] == ("error", "No research today.")
