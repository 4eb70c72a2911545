"""Log each iteration (turn) of the agent loop as it starts and ends.

Seed 001: ``LoopStart`` logging "Starting iteration N"; ``LoopEnd`` logging "Completed
iteration N" and the total tokens so far.

Output:
    Starting iteration 1
    Completed iteration 1
    Total tokens: 20
    Starting iteration 2
    Completed iteration 2
    Total tokens: 45
"""

import asyncio

from agenthooks import Agent, ProviderResponse, ScriptedProvider, ToolCall, Usage, tool
from agenthooks.events import LoopContext


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def loop_start(ctx: LoopContext) -> None:
    assert ctx.iteration is not None
    print(f"Starting iteration {ctx.iteration + 1}")


def loop_end(ctx: LoopContext) -> None:
    assert ctx.iteration is not None
    print(f"Completed iteration {ctx.iteration + 1}")
    print(f"Total tokens: {ctx.usage.total_tokens}")


async def main() -> None:
    model = ScriptedProvider(
        [
            ProviderResponse(
                tool_calls=[ToolCall(id="c1", name="add", arguments={"a": 2, "b": 3})],
                usage=Usage(input_tokens=15, output_tokens=5, total_tokens=20),
            ),
            ProviderResponse(
                content="2 + 3 = 5", usage=Usage(input_tokens=20, output_tokens=5, total_tokens=25)
            ),
        ]
    )
    agent = Agent("calculator", provider=model, tools=[add])
    agent.on("LoopStart", loop_start)
    agent.on("LoopEnd", loop_end)
    await agent.chat("What is 2 + 3?")


if __name__ == "__main__":
    asyncio.run(main())
