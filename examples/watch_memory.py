"""Watch the agent's memory: every read, write and failed operation its tools make.

Seed 001: ``MemoryRead`` (key and whether a value was found), ``MemoryWrite`` (key and value
as JSON), ``MemoryError`` (operation and error).

Output:
    Memory read: favorite_color = False
    Memory write: favorite_color = "blue"
    Memory read: favorite_color = True
    Memory read failed: KeyError('shoe_size')
    the model read: KeyError: 'shoe_size'
"""

import asyncio
import json

from agenthooks import (
    Agent,
    Memory,
    ProviderResponse,
    ScriptedProvider,
    ToolCall,
    ToolContext,
    tool,
)
from agenthooks.events import MemoryContext


@tool
async def remember(key: str, value: str, ctx: ToolContext) -> str:
    """Remember a fact unless one is known already."""
    assert ctx.memory is not None
    if await ctx.memory.get(key, None) is None:
        await ctx.memory.set(key, value)
    return "ok"


@tool
async def recall(key: str, ctx: ToolContext) -> str:
    """Recall a fact."""
    assert ctx.memory is not None
    return str(await ctx.memory.get(key))


def memory_read(ctx: MemoryContext) -> None:
    print(f"Memory read: {ctx.key} = {ctx.value is not None}")


def memory_write(ctx: MemoryContext) -> None:
    print(f"Memory write: {ctx.key} = {json.dumps(ctx.value)}")


def memory_error(ctx: MemoryContext) -> None:
    print(f"Memory {ctx.operation} failed: {ctx.error!r}")


async def main() -> None:
    model = ScriptedProvider(
        [
            ProviderResponse(
                tool_calls=[
                    ToolCall(
                        id="c1",
                        name="remember",
                        arguments={"key": "favorite_color", "value": "blue"},
                    )
                ]
            ),
            ProviderResponse(
                tool_calls=[
                    ToolCall(id="c2", name="recall", arguments={"key": "favorite_color"}),
                    ToolCall(id="c3", name="recall", arguments={"key": "shoe_size"}),
                ]
            ),
            "Your favorite color is blue; I do not know your shoe size.",
        ]
    )
    agent = Agent("assistant", provider=model, tools=[remember, recall], memory=Memory())
    agent.on("MemoryRead", memory_read)
    agent.on("MemoryWrite", memory_write)
    agent.on("MemoryError", memory_error)
    await agent.chat("My favorite color is blue. What is my shoe size?")
    print("the model read:", model.requests[2].messages[-1].content)


if __name__ == "__main__":
    asyncio.run(main())
