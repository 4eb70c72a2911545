"""The Strands bridge's cost, timed beside the same agent without it: a scripted run of 2 model
calls and 1 tool call of a ``strands.Agent`` on a scripted model speaking Strands' streaming
protocol (no network), Strands alone, with a plugin that installs the bridge's extension points
doing nothing (the agent-stream, model and tool stages passing events on, the same three hooks
as no-ops: the baseline), with ``AgentHooksPlugin`` and no handler, and with the plugin and
five observers. ``harness.compare`` times the variants in interleaved
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
from strands.hooks import AfterInvocationEvent, AfterToolsEvent, MessageAddedEvent
from strands.middleware import ExecuteToolStage, InvokeModelStage
from strands.middleware._agent_stream import AgentStreamStage
from strands.plugins import Plugin

from agenthooks import HookBus


@tool
def lookup(city: str) -> str:
    """The weather in a city."""
    return f"Sunny in {city}"


def script() -> list[Any]:
    return [tool_calls(("call_1", "lookup", {"city": "Paris"})), "It is sunny."]


async def passing(ctx: Any, next_fn: Any) -> Any:
    async for event in next_fn(ctx):
        yield event


def nothing(event: Any) -> None:
    return None


class PassThroughPlugin(Plugin):
    """The bridge's extension points, each passing on what it gets: what Strands itself spends
    on a plugin of this shape (the bridge adds its model and tool stages once its bus hears
    them; this plugin has them from the start)."""

    name = "pass-through"

    def init_agent(self, agent: Any) -> None:
        agent.add_middleware(AgentStreamStage, passing)
        agent.add_middleware(InvokeModelStage, passing)
        agent.add_middleware(ExecuteToolStage, passing)
        agent.add_hook(nothing, MessageAddedEvent)
        agent.add_hook(nothing, AfterToolsEvent)
        agent.add_hook(nothing, AfterInvocationEvent)


def variant(plugin: Plugin | None) -> Any:
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
            "a pass-through plugin": variant(PassThroughPlugin()),
            NO_HANDLER: variant(AgentHooksPlugin(HookBus())),
            FIVE_OBSERVERS: variant(AgentHooksPlugin(five_observers())),
        },
        baseline="a pass-through plugin",
        rounds=rounds(),
    )


if __name__ == "__main__":
    main()
