"""The OpenAI Agents SDK bridge's cost, timed beside the same agent without it: a scripted run of
2 model calls and 1 tool call of an ``agents.Agent`` on the SDK's own ``ScriptedModel`` (no
network), ``agents.Runner`` alone (the baseline), with ``AgentHooksRunner`` and no handler, and
with the runner and five observers. ``harness.compare`` times the variants in interleaved
rounds in one process and prints the medians and the milliseconds the bridge adds per model or
tool call beside the baseline, by the wall clock and in CPU time.

    .venv/bin/python benchmarks/bridges/bench_openai_agents.py [rounds]
"""

from __future__ import annotations

import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from agenthooks_openai_agents import AgentHooksRunner
from agents import Agent, RunConfig, Runner, function_tool, set_tracing_disabled
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


def main() -> None:
    bare = AgentHooksRunner(HookBus())
    five = AgentHooksRunner(five_observers())
    agents = [agent(), agent(), agent()]
    # one run config for every variant, as an application passes it: without one, the SDK
    # makes and closes a model provider per run and the bridge one of its own, and the
    # difference between those two would be measured instead of the bridge
    config = RunConfig(tracing_disabled=True)

    async def sdk_alone() -> object:
        return await Runner.run(script(agents[0]), "Read /tmp/b.txt", run_config=config)

    async def bridge_no_handler() -> object:
        return await bare.run(script(agents[1]), "Read /tmp/b.txt", run_config=config)

    async def bridge_five_observers() -> object:
        return await five.run(script(agents[2]), "Read /tmp/b.txt", run_config=config)

    compare(
        f"OpenAI Agents SDK {version('openai-agents')} with agenthooks-openai-agents",
        {
            "openai-agents alone": sdk_alone,
            NO_HANDLER: bridge_no_handler,
            FIVE_OBSERVERS: bridge_five_observers,
        },
        baseline="openai-agents alone",
        rounds=rounds(),
    )


if __name__ == "__main__":
    main()
