"""Modify a tool call's parameters before it runs; ``afterToolCall`` still fires.

Seed 004 (modify-tool.ts): ``beforeToolCall`` returning ``{ decision: "modify",
modifiedParams: { query: "safe version of the query" } }`` for ``search``. Here the hook
returns ``{"call": ...}`` with the new arguments; they are validated again before the tool
runs.

Output:
    the model asked: {'query': 'how to pick a lock'}
    afterToolCall saw: results for 'safe version of the query'
    search ran with: {'query': 'safe version of the query'}
"""

import asyncio

from agenthooks import Agent, ProviderResponse, ScriptedProvider, ToolCall, tool
from agenthooks.events import PreToolCallContext, ToolResultContext

ran_with: list[dict[str, str]] = []


@tool
def search(query: str) -> str:
    """Search the web."""
    ran_with.append({"query": query})
    return f"results for {query!r}"


def make_safe(ctx: PreToolCallContext) -> dict[str, object] | None:
    if ctx.call.name == "search":
        return {
            "call": ctx.call.model_copy(
                update={"arguments": {"query": "safe version of the query"}}
            )
        }
    return None


def after(ctx: ToolResultContext) -> None:
    print("afterToolCall saw:", ctx.result)


async def main() -> None:
    asked = {"query": "how to pick a lock"}
    model = ScriptedProvider(
        [
            ProviderResponse(tool_calls=[ToolCall(id="c1", name="search", arguments=asked)]),
            "Here is what I found.",
        ]
    )
    agent = Agent("searcher", provider=model, tools=[search])
    agent.on("beforeToolCall", make_safe)
    agent.on("afterToolCall", after)
    print("the model asked:", asked)
    await agent.chat("How do I pick a lock?")
    print("search ran with:", ran_with[0])


if __name__ == "__main__":
    asyncio.run(main())
