"""An agent the SDK runs as a tool (``agent.as_tool()``) is a sub-agent, as on our runtime:
``on_subagent_start`` inside the delegating call, ``on_subagent_stop`` with its answer (or its
error) and duration, between the call's ``pre_tool_call`` and its result events."""

from __future__ import annotations

from typing import Any

from agenthooks_openai_agents import AgentHooksRunner
from agents import Agent, RunConfig
from agents.models.interface import Model, ModelProvider
from agents.testing import ScriptedModel, assistant_message, function_call
from openai_agents_helpers import Recorder, tool_outputs

from agenthooks import Deny, HookBus

EVENTS = [
    "pre_tool_call",
    "on_subagent_start",
    "on_subagent_stop",
    "on_tool_call_result",
    "on_tool_call_error",
]


def delegating(sub_steps: list[Any]) -> tuple[Agent[Any], ScriptedModel]:
    researcher = Agent(name="researcher", model=ScriptedModel(sub_steps))
    model = ScriptedModel(
        [
            [function_call("research", {"input": "moons of Mars"}, call_id="call_1")],
            [assistant_message("done")],
        ]
    )
    lead = Agent(
        name="lead",
        model=model,
        tools=[researcher.as_tool("research", "Research a topic.")],
    )
    return lead, model


async def test_a_tool_that_runs_an_agent_fires_the_sub_agent_events(bus: HookBus) -> None:
    recorder = Recorder(bus, iter(EVENTS))
    lead, model = delegating([[assistant_message("Phobos and Deimos")]])

    result = await AgentHooksRunner(bus).run(lead, "Which moons has Mars?")

    assert result.final_output == "done"
    assert tool_outputs(model, 1) == {"call_1": "Phobos and Deimos"}
    assert recorder.names == [
        "pre_tool_call",
        "on_subagent_start",
        "on_subagent_stop",
        "on_tool_call_result",
    ]
    start, stop = recorder.of("on_subagent_start")[0], recorder.of("on_subagent_stop")[0]
    assert (start.subagent, start.task, start.tool_call_id) == (
        "researcher",
        "moons of Mars",
        "call_1",
    )
    assert (stop.subagent, stop.task, stop.tool_call_id) == (
        "researcher",
        "moons of Mars",
        "call_1",
    )
    assert (stop.result, stop.error) == ("Phobos and Deimos", None)
    assert stop.duration is not None and stop.duration >= 0
    assert {ctx.run_id for _, ctx in recorder.seen} == {recorder.seen[0][1].run_id}


async def test_with_only_sub_agent_events_listening_they_still_fire(bus: HookBus) -> None:
    recorder = Recorder(bus, iter(["on_subagent_start", "on_subagent_stop"]))
    lead, _ = delegating([[assistant_message("Phobos and Deimos")]])

    await AgentHooksRunner(bus).run(lead, "Which moons has Mars?")

    assert recorder.names == ["on_subagent_start", "on_subagent_stop"]
    assert recorder.of("on_subagent_stop")[0].result == "Phobos and Deimos"


async def test_a_failing_sub_agent_reports_its_error(bus: HookBus) -> None:
    recorder = Recorder(bus, iter(EVENTS))
    lead, model = delegating([RuntimeError("the archive is down")])

    await AgentHooksRunner(bus).run(lead, "Which moons has Mars?")

    assert recorder.names == [
        "pre_tool_call",
        "on_subagent_start",
        "on_subagent_stop",
        "on_tool_call_error",
    ]
    stop = recorder.of("on_subagent_stop")[0]
    assert stop.result is None
    assert isinstance(stop.error, RuntimeError) and str(stop.error) == "the archive is down"
    # the model reads what the SDK's failure formatter of an agent tool writes
    assert tool_outputs(model, 1) == {"call_1": "An error occurred while running the tool."}


async def test_a_denied_delegation_never_starts_the_sub_agent(bus: HookBus) -> None:
    recorder = Recorder(bus, iter(EVENTS))
    bus.on("pre_tool_call", lambda ctx: Deny("No research today."), match="research")
    lead, model = delegating([[assistant_message("never asked")]])

    await AgentHooksRunner(bus).run(lead, "Which moons has Mars?")

    assert recorder.names == ["pre_tool_call", "on_tool_call_error"]
    assert tool_outputs(model, 1) == {"call_1": "No research today."}


class Named(ModelProvider):
    """Models by name, as a run's model provider looks them up."""

    def __init__(self, models: dict[str, Model]) -> None:
        self.models = models

    def get_model(self, model_name: str | None) -> Model:
        return self.models[model_name or ""]


async def test_the_sub_agents_own_turns_are_not_the_callers(bus: HookBus) -> None:
    # a sub-agent that names its model is resolved through the run's (hooked) provider: its
    # turns are its own run's, never turns of the delegating run
    recorder = Recorder(bus, iter(["on_loop_start", "pre_request", "on_subagent_stop"]))
    researcher = Agent(name="researcher", model="sub")
    model = ScriptedModel(
        [
            [function_call("research", {"input": "moons of Mars"}, call_id="call_1")],
            [assistant_message("done")],
        ]
    )
    lead = Agent(name="lead", model="lead", tools=[researcher.as_tool("research", "Research.")])
    provider = Named({"lead": model, "sub": ScriptedModel([[assistant_message("Phobos")]])})

    await AgentHooksRunner(bus).run(
        lead, "Which moons has Mars?", run_config=RunConfig(model_provider=provider)
    )

    assert recorder.names == [
        "on_loop_start",
        "pre_request",
        "on_subagent_stop",
        "on_loop_start",
        "pre_request",
    ]
    assert [ctx.iteration for ctx in recorder.of("on_loop_start")] == [0, 1]


async def test_with_only_the_model_events_heard_the_sub_agents_turns_stay_its_own(
    bus: HookBus,
) -> None:
    recorder = Recorder(bus, iter(["on_loop_start"]))
    researcher = Agent(name="researcher", model="sub")
    lead = Agent(name="lead", model="lead", tools=[researcher.as_tool("research", "Research.")])
    lead_model = ScriptedModel(
        [
            [function_call("research", {"input": "moons of Mars"}, call_id="call_1")],
            [assistant_message("done")],
        ]
    )
    provider = Named({"lead": lead_model, "sub": ScriptedModel([[assistant_message("Phobos")]])})

    await AgentHooksRunner(bus).run(
        lead, "Which moons has Mars?", run_config=RunConfig(model_provider=provider)
    )

    assert [ctx.iteration for ctx in recorder.of("on_loop_start")] == [0, 1]
    assert {ctx.agent for ctx in recorder.of("on_loop_start")} == {"lead"}
