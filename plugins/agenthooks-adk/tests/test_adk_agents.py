"""ADK's multi-agent parts: a transfer to another agent is a handoff (``pre_handoff`` may
deny it), an ``AgentTool`` runs a sub-agent whose run is a child of the calling run."""

from __future__ import annotations

from typing import Any

import adk_scripted as s
import pytest
from agenthooks_adk import AgentHooksPlugin
from google.adk.agents import LlmAgent
from google.adk.apps import App
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.adk.tools.agent_tool import AgentTool

from agenthooks import Deny, HookBus


def transfer_app(bus: HookBus) -> tuple[Runner, s.ScriptedLlm, s.ScriptedLlm]:
    helper_model = s.ScriptedLlm(script=[s.model_turn("helped")])
    helper = LlmAgent(name="helper", model=helper_model, description="Helps.")
    coordinator_model = s.ScriptedLlm(
        script=[
            s.model_turn(s.call("transfer_to_agent", "t1", agent_name="helper")),
            s.model_turn("I will answer myself."),
        ]
    )
    coordinator = LlmAgent(name="coordinator", model=coordinator_model, sub_agents=[helper])
    app = App(name="app", root_agent=coordinator, plugins=[AgentHooksPlugin(bus)])
    runner = Runner(app=app, session_service=InMemorySessionService(), auto_create_session=True)
    return runner, coordinator_model, helper_model


async def test_a_transfer_fires_pre_handoff_and_on_handoff() -> None:
    bus = HookBus()
    seen: list[tuple[str, str, str]] = []
    bus.on("pre_handoff", lambda ctx: seen.append(("pre", ctx.from_agent, ctx.to_agent)))
    bus.on("on_handoff", lambda ctx: seen.append(("on", ctx.from_agent, ctx.to_agent)))
    agents: list[str] = []
    bus.on("pre_request", lambda ctx: agents.append(ctx.agent))
    runner, _, helper_model = transfer_app(bus)
    events = await s.run(runner, "help me")
    assert s.final_text(events) == "helped"
    assert seen == [("pre", "coordinator", "helper"), ("on", "coordinator", "helper")]
    assert agents == ["coordinator", "helper"]
    assert len(helper_model.requests) == 1


async def test_a_denied_transfer_keeps_the_agent_and_the_model_reads_the_reason() -> None:
    bus = HookBus()
    bus.on("pre_handoff", lambda ctx: Deny("stay with the coordinator"))
    runner, coordinator_model, helper_model = transfer_app(bus)
    events = await s.run(runner, "help me")
    assert helper_model.requests == []
    assert s.final_text(events) == "I will answer myself."
    assert s.tool_messages(coordinator_model.requests[1]) == [
        ("t1", {"error": "stay with the coordinator"})
    ]


# ADK's AgentTool passes plugins to its own Runner the way ADK deprecates
@pytest.mark.filterwarnings("ignore:The `plugins` argument is deprecated:DeprecationWarning")
async def test_an_agent_tool_runs_a_sub_agent_whose_run_is_a_child_of_the_callers() -> None:
    bus = HookBus()
    runs: list[tuple[str, str, str | None]] = []
    bus.on("on_chat_start", lambda ctx: runs.append((ctx.agent, ctx.run_id, ctx.parent_run_id)))
    calls: list[tuple[str, Any, Any]] = []
    bus.on("on_subagent_start", lambda ctx: calls.append(("start", ctx.subagent, ctx.task)))
    bus.on("on_subagent_stop", lambda ctx: calls.append(("stop", ctx.subagent, ctx.result)))
    helper = LlmAgent(
        name="helper", model=s.ScriptedLlm(script=[s.model_turn("helped")]), description="Helps."
    )
    coordinator_model = s.ScriptedLlm(
        script=[s.model_turn(s.call("helper", "a1", request="do it")), s.model_turn("ok")]
    )
    coordinator = LlmAgent(name="coordinator", model=coordinator_model, tools=[AgentTool(helper)])
    app = App(name="app", root_agent=coordinator, plugins=[AgentHooksPlugin(bus)])
    runner = Runner(app=app, session_service=InMemorySessionService(), auto_create_session=True)
    events = await s.run(runner, "help me")
    assert s.final_text(events) == "ok"
    (parent_agent, parent, none), (child_agent, child, parent_of_child) = runs
    assert (parent_agent, none, child_agent) == ("coordinator", None, "helper")
    assert parent_of_child == parent == events[0].invocation_id and child != parent
    assert calls == [("start", "helper", "do it"), ("stop", "helper", "helped")]
    assert s.tool_messages(coordinator_model.requests[1]) == [("a1", {"result": "helped"})]


@pytest.mark.filterwarnings("ignore:SequentialAgent is deprecated:DeprecationWarning")
async def test_a_sequential_agent_run_on_adks_older_path_is_one_run() -> None:
    from google.adk.agents import SequentialAgent

    bus = HookBus()
    seen = s.recorder(bus)
    agents: list[str] = []
    bus.on("pre_request", lambda ctx: agents.append(ctx.agent))
    first = LlmAgent(name="first", model=s.ScriptedLlm(script=[s.model_turn("one")]))
    second = LlmAgent(name="second", model=s.ScriptedLlm(script=[s.model_turn("two")]))
    pipeline = SequentialAgent(name="pipeline", sub_agents=[first, second])
    app = App(name="app", root_agent=pipeline, plugins=[AgentHooksPlugin(bus)])
    runner = Runner(app=app, session_service=InMemorySessionService(), auto_create_session=True)
    events = await s.run(runner, "go")
    assert s.final_text(events) == "two"
    assert agents == ["first", "second"]
    assert seen[:2] == ["on_chat_start", "on_user_message"]
    assert seen[-2:] == ["on_chat_done", "on_chat_end"]
    assert seen.count("on_chat_done") == 1
