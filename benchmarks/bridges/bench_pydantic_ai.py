"""The Pydantic AI bridge's cost, timed beside the same Pydantic AI agent without it.

One process, interleaved rounds (``harness.interleaved``), the median of each variant: a
scripted run of 2 model calls and 1 tool call on Pydantic AI's own loop with its
``FunctionModel`` (no network) - the agent alone, with ``AgentHooksCapability`` and no handler,
and with the capability and five observers. Prints the medians and the milliseconds added per
model or tool call, against the agent alone and against a pass-through capability that
overrides the same Pydantic AI hooks and does nothing (what the framework itself spends on
dispatching a capability of that shape).

    .venv/bin/python benchmarks/bridges/bench_pydantic_ai.py [rounds]
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from importlib.metadata import version
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from agenthooks_pydantic_ai import AgentHooksCapability
from harness import interleaved, report
from pydantic_ai import Agent
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from agenthooks import HookBus

CALLS = 3  # 2 model calls + 1 tool call per run
OBSERVED = ("pre_request", "on_response", "pre_tool_call", "on_tool_call_result", "on_message")
TOOL_CALL = ModelResponse(parts=[ToolCallPart("lookup", {"city": "Paris"}, tool_call_id="call_1")])
ANSWER = ModelResponse(parts=[TextPart("It is sunny.")])


def scripted(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return TOOL_CALL if len(messages) == 1 else ANSWER


class PassThrough(AbstractCapability[Any]):
    """The hooks the bridge overrides, each calling straight on: what Pydantic AI itself
    spends on a capability of this shape, with no agenthooks code at all."""

    async def for_run(self, ctx: Any) -> AbstractCapability[Any]:
        return PassThrough()

    async def wrap_run(self, ctx: Any, *, handler: Any) -> Any:
        return await handler()

    async def before_node_run(self, ctx: Any, *, node: Any) -> Any:
        return node

    async def wrap_model_request(self, ctx: Any, *, request_context: Any, handler: Any) -> Any:
        return await handler(request_context)

    async def wrap_tool_execute(
        self, ctx: Any, *, call: Any, tool_def: Any, args: Any, handler: Any
    ) -> Any:
        return await handler(args)


def variant(capability: AbstractCapability[Any] | None) -> Any:
    agent: Agent[None, str] = Agent(
        FunctionModel(scripted), capabilities=[capability] if capability is not None else []
    )

    @agent.tool_plain
    def lookup(city: str) -> str:
        """The weather in a city."""
        return f"Sunny in {city}"

    async def run() -> object:
        return await agent.run("Weather in Paris?")

    return run


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    observed = HookBus()
    for event in OBSERVED:
        observed.on(event, lambda ctx: None)
    variants = {
        "pydantic-ai alone": variant(None),
        "a pass-through capability": variant(PassThrough()),
        "bridge, no handler": variant(AgentHooksCapability(HookBus())),
        "bridge, five observers": variant(AgentHooksCapability(observed)),
    }
    medians = interleaved(variants, rounds)
    report(
        f"Pydantic AI {version('pydantic-ai-slim')} with agenthooks-pydantic-ai ({rounds} rounds)",
        medians,
        "pydantic-ai alone",
        CALLS,
        {"bridge, no handler": 0.1, "bridge, five observers": 0.5},
    )
    # Pydantic AI's own price for a capability with these hooks, apart from the bridge's
    report(
        "The same, against a pass-through capability with the bridge's hooks",
        {k: v for k, v in medians.items() if k != "pydantic-ai alone"},
        "a pass-through capability",
        CALLS,
        {"bridge, no handler": 0.1, "bridge, five observers": 0.5},
    )
    # the CPU time the process spent per run: on a machine other processes load, the wall
    # clock counts their time slices too, and this does not
    cpu = cpu_medians(variants, rounds)
    report(
        "CPU time per run (time.process_time), against the pass-through capability",
        {k: v for k, v in cpu.items() if k != "pydantic-ai alone"},
        "a pass-through capability",
        CALLS,
        {"bridge, no handler": 0.1, "bridge, five observers": 0.5},
    )


def cpu_medians(variants: dict[str, Any], rounds: int) -> dict[str, float]:
    """The median CPU seconds of one run of each variant, interleaved as ``interleaved``
    does for the wall clock."""

    async def measure() -> dict[str, float]:
        spent: dict[str, list[float]] = {name: [] for name in variants}
        for _ in range(rounds):
            for name, run in variants.items():
                started = time.process_time()
                await run()
                spent[name].append(time.process_time() - started)
        return {name: statistics.median(values) for name, values in spent.items()}

    return asyncio.run(measure())


if __name__ == "__main__":
    main()
