"""The Pydantic AI bridge's cost, timed beside the same agent without it: a scripted run of 2
model calls and 1 tool call of a Pydantic AI agent on its own ``FunctionModel`` (no network),
Pydantic AI alone, with a pass-through capability overriding the bridge's hooks (the baseline),
with ``AgentHooksCapability`` and no handler, and with the capability and five observers.
``harness.compare`` times the variants in interleaved rounds in one process and prints the
medians and the milliseconds the bridge adds per model or tool call beside the baseline, by the
wall clock and in CPU time.

    .venv/bin/python benchmarks/bridges/bench_pydantic_ai.py [rounds]
"""

from __future__ import annotations

import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from agenthooks_pydantic_ai import AgentHooksCapability
from harness import FIVE_OBSERVERS, NO_HANDLER, compare, five_observers, rounds
from pydantic_ai import Agent
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from agenthooks import HookBus

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
    # Pydantic AI's own price for a capability with these hooks, apart from the bridge's
    compare(
        f"Pydantic AI {version('pydantic-ai-slim')} with agenthooks-pydantic-ai",
        {
            "pydantic-ai alone": variant(None),
            "a pass-through capability": variant(PassThrough()),
            NO_HANDLER: variant(AgentHooksCapability(HookBus())),
            FIVE_OBSERVERS: variant(AgentHooksCapability(five_observers())),
        },
        baseline="a pass-through capability",
        rounds=rounds(),
    )


if __name__ == "__main__":
    main()
