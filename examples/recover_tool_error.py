"""Recover from a tool error with a fallback result; the after-hooks then see a success.

Seed 003: ``OnToolError`` returning ``HookModify`` with "API temporarily unavailable, using
cached data" for ``flaky_api``: the error flag is cleared and ``PostToolUse`` sees a non-error
result; the first recovery wins.

Output:
    OnToolError: flaky_api raised TimeoutError: upstream timed out
    PostToolUse: flaky_api -> API temporarily unavailable, using cached data
    the model read: API temporarily unavailable, using cached data (error: False)
"""

import asyncio

from agenthooks import Agent, ProviderResponse, ScriptedProvider, ToolCall, tool
from agenthooks.events import ToolErrorContext, ToolResultContext


@tool
def flaky_api() -> str:
    """Today's exchange rates."""
    raise TimeoutError("upstream timed out")


def fallback(ctx: ToolErrorContext) -> dict[str, object] | None:
    if ctx.call.name == "flaky_api":
        print(f"OnToolError: {ctx.call.name} raised {type(ctx.error).__name__}: {ctx.error}")
        return {"result": "API temporarily unavailable, using cached data"}
    return None


def never_reached(ctx: ToolErrorContext) -> None:
    raise AssertionError("the first recovery wins: later error handlers are skipped")


def after(ctx: ToolResultContext) -> None:
    print(f"PostToolUse: {ctx.call.name} -> {ctx.result}")


async def main() -> None:
    model = ScriptedProvider(
        [
            ProviderResponse(tool_calls=[ToolCall(id="c1", name="flaky_api")]),
            "Rates are from the cache.",
        ]
    )
    agent = Agent("fx", provider=model, tools=[flaky_api])
    agent.on("OnToolError", fallback)
    agent.on("OnToolError", never_reached)
    agent.on("PostToolUse", after)
    await agent.chat("Exchange rates?")
    seen = model.requests[1].messages[-1]
    print(f"the model read: {seen.content} (error: {seen.is_error})")


if __name__ == "__main__":
    asyncio.run(main())
