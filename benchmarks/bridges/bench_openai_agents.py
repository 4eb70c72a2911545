"""The OpenAI Agents SDK bridge's cost, timed beside the same agent without it: a scripted run of
2 model calls and 1 tool call of an ``agents.Agent`` on the SDK's own ``ScriptedModel`` (no
network), ``agents.Runner`` alone, ``agents.Runner`` on a per-run clone of the agent whose model
and tools are wrapped by pass-through wrappers (what the bridge installs, doing nothing: the
baseline), with ``AgentHooksRunner`` and no handler, and with the runner and five observers. ``harness.compare`` times the variants in interleaved
rounds in one process and prints the medians and the milliseconds the bridge adds per model or
tool call beside the baseline, by the wall clock and in CPU time.

    .venv/bin/python benchmarks/bridges/bench_openai_agents.py [rounds]
"""

from __future__ import annotations

import dataclasses
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from agenthooks_openai_agents import AgentHooksRunner
from agents import Agent, FunctionTool, RunConfig, Runner, function_tool, set_tracing_disabled
from agents.models.interface import Model
from agents.testing import ScriptedModel, assistant_message, function_call
from harness import FIVE_OBSERVERS, NO_HANDLER, compare, five_observers, rounds

from agenthooks import HookBus

set_tracing_disabled(True)


@function_tool
def read_file(path: str) -> str:
    """Read a file."""
    return f"contents of {path}"


def agent() -> Agent[Any]:
    return Agent(
        name="assistant", instructions="Be brief.", model=ScriptedModel(), tools=[read_file]
    )


def script(agent: Agent[Any]) -> Agent[Any]:
    """The agent with its scripted model's two answers queued for one more run (one agent
    serves every run, as in an application)."""
    model = agent.model
    assert isinstance(model, ScriptedModel)
    model.extend(
        [
            [function_call("read_file", {"path": "/tmp/b.txt"}, call_id="call_1")],
            [assistant_message("done")],
        ]
    )
    return agent


class PassThroughModel(Model):
    """The agent's model behind a wrapper that calls straight on, as the bridge's is."""

    def __init__(self, inner: Model) -> None:
        self.inner = inner

    async def get_response(self, *args: Any, **kwargs: Any) -> Any:
        return await self.inner.get_response(*args, **kwargs)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        return self.inner.stream_response(*args, **kwargs)


def pass_through(tool: Any) -> FunctionTool:
    """``tool`` behind an invoker that calls straight on, as the bridge's tools are."""
    invoke = tool.on_invoke_tool

    async def on_invoke_tool(ctx: Any, arguments: str) -> Any:
        return await invoke(ctx, arguments)

    return dataclasses.replace(tool, on_invoke_tool=on_invoke_tool)


def wrapped(agent: Agent[Any]) -> Agent[Any]:
    """A clone of ``agent`` for one run, its model and tools wrapped (the user's agent is left
    as it is, as the bridge leaves it)."""
    model = agent.model
    assert isinstance(model, Model)
    return agent.clone(model=PassThroughModel(model), tools=[pass_through(t) for t in agent.tools])


def main() -> None:
    bare = AgentHooksRunner(HookBus())
    five = AgentHooksRunner(five_observers())
    agents = [agent(), agent(), agent(), agent()]
    # one run config for every variant, as an application passes it: without one, the SDK
    # makes and closes a model provider per run and the bridge one of its own, and the
    # difference between those two would be measured instead of the bridge
    config = RunConfig(tracing_disabled=True)

    async def sdk_alone() -> object:
        return await Runner.run(script(agents[0]), "Read /tmp/b.txt", run_config=config)

    async def sdk_wrapped() -> object:
        return await Runner.run(wrapped(script(agents[3])), "Read /tmp/b.txt", run_config=config)

    async def bridge_no_handler() -> object:
        return await bare.run(script(agents[1]), "Read /tmp/b.txt", run_config=config)

    async def bridge_five_observers() -> object:
        return await five.run(script(agents[2]), "Read /tmp/b.txt", run_config=config)

    compare(
        f"OpenAI Agents SDK {version('openai-agents')} with agenthooks-openai-agents",
        {
            "openai-agents alone": sdk_alone,
            "pass-through model and tools": sdk_wrapped,
            NO_HANDLER: bridge_no_handler,
            FIVE_OBSERVERS: bridge_five_observers,
        },
        baseline="pass-through model and tools",
        rounds=rounds(),
    )


if __name__ == "__main__":
    main()
