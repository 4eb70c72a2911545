"""The Strands bridge's cost, timed beside the same agent without it: a scripted run of 2 model
calls and 1 tool call of a ``strands.Agent`` on a scripted model speaking Strands' streaming
protocol (no network), Strands alone (the baseline), with ``AgentHooksPlugin`` and no handler,
and with the plugin and five observers. ``harness.compare`` times the variants in interleaved
rounds in one process and prints the medians and the milliseconds the bridge adds per model or
tool call beside the baseline, by the wall clock and in CPU time.

    .venv/bin/python benchmarks/bridges/bench_strands.py [rounds]
"""

from __future__ import annotations

import logging
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from agenthooks_strands import AgentHooksPlugin
from agenthooks_strands.testing import ScriptedModel, tool_calls
from harness import FIVE_OBSERVERS, NO_HANDLER, compare, five_observers, rounds
from strands import Agent, tool

from agenthooks import HookBus


@tool
def lookup(city: str) -> str:
    """The weather in a city."""
    return f"Sunny in {city}"


def script() -> list[Any]:
    return [tool_calls(("call_1", "lookup", {"city": "Paris"})), "It is sunny."]


def variant(plugin: AgentHooksPlugin | None) -> Any:
    model = ScriptedModel([])
    agent = Agent(
        model=model,
        tools=[lookup],
        plugins=[plugin] if plugin is not None else [],
        callback_handler=None,
    )

    async def run() -> object:
        model.script = script()
        agent.messages.clear()
        return await agent.invoke_async("Weather in Paris?")

    return run


def main() -> None:
    logging.disable(logging.WARNING)  # Strands logs each tool call at INFO/WARNING
    compare(
        f"Strands {version('strands-agents')} with agenthooks-strands",
        {
            "strands alone": variant(None),
            NO_HANDLER: variant(AgentHooksPlugin(HookBus())),
            FIVE_OBSERVERS: variant(AgentHooksPlugin(five_observers())),
        },
        baseline="strands alone",
        rounds=rounds(),
    )


if __name__ == "__main__":
    main()
