"""Runs of one runner at the same time, on the same agent (the same clones): each run's
hooks see their own run, and no run's calls report to another."""

from __future__ import annotations

import asyncio
from typing import Any

from agenthooks_openai_agents import AgentHooksRunner
from agents import Agent
from agents.testing import ModelCall, ModelStep, ScriptedModel, assistant_message, function_call
from openai_agents_helpers import Recorder, read_file

from agenthooks import HookBus


def respond(call: ModelCall) -> list[Any]:
    """Read the file the user names, then answer with what the tool said."""
    items = list(call.input)
    last = items[-1]
    if last.get("type") == "function_call_output":
        return [assistant_message(f"answer: {last['output']}")]
    path = last["content"]
    return [function_call("read_file", {"path": path}, call_id=f"call-{path}")]


async def test_concurrent_runs_on_one_agent_keep_to_their_own_run(bus: HookBus) -> None:
    recorder = Recorder(bus)
    model = ScriptedModel([ModelStep.respond(respond) for _ in range(8)])
    agent = Agent(name="reader", model=model, tools=[read_file])
    runner = AgentHooksRunner(bus)
    paths = ["/a", "/b", "/c", "/d"]

    results = await asyncio.gather(*(runner.run(agent, p) for p in paths))

    assert [r.final_output for r in results] == [f"answer: contents of {p}" for p in paths]
    starts = {ctx.message: ctx.run_id for ctx in recorder.of("on_chat_start")}
    assert len(set(starts.values())) == 4
    for ctx in recorder.of("pre_tool_call"):
        assert ctx.run_id == starts[ctx.call.arguments["path"]]
    for ctx in recorder.of("on_chat_done"):
        path = ctx.response.content.removeprefix("answer: contents of ")
        assert ctx.run_id == starts[path]
    assert len(recorder.of("on_chat_end")) == 4
