"""Log why a run was stopped before its limit error is raised.

Seed 004 (on-stop.ts): ``onStop`` with ``reason`` ``"max_turns"`` or ``"max_budget"``, logged to
analytics before ``MaxTurnsExceededError`` / ``MaxBudgetExceededError`` is thrown.

Output:
    analytics: agent_stopped {'agent': 'looper', 'reason': 'max_turns'}
    caller got MaxTurnsExceeded after 3 turns (7 messages kept)
    analytics: agent_stopped {'agent': 'spender', 'reason': 'max_budget'}
    caller got BudgetExceeded: agent 'spender' used 120 tokens of max_total_tokens=100
"""

import asyncio

from agenthooks import (
    Agent,
    BudgetExceeded,
    HookBus,
    MaxTurnsExceeded,
    ProviderRequest,
    ProviderResponse,
    ScriptedProvider,
    ToolCall,
    Usage,
    tool,
)
from agenthooks.events import StopContext

bus = HookBus()


async def log_to_analytics(name: str, data: dict[str, str]) -> None:
    print(f"analytics: {name} {data}")


@bus.on("onStop")
async def on_stop(ctx: StopContext) -> None:
    await log_to_analytics("agent_stopped", {"agent": ctx.agent, "reason": ctx.reason})


@tool
def poll() -> str:
    """Poll for news."""
    return "nothing yet"


def forever(request: ProviderRequest) -> ProviderResponse:
    return ProviderResponse(
        tool_calls=[ToolCall(id="", name="poll")],
        usage=Usage(input_tokens=50, output_tokens=10, total_tokens=60),
    )


async def main() -> None:
    looper = Agent("looper", bus=bus, tools=[poll], max_turns=3, provider=ScriptedProvider(forever))
    try:
        await looper.chat("Wait for news")
    except MaxTurnsExceeded as exc:
        print(f"caller got MaxTurnsExceeded after 3 turns ({len(exc.messages)} messages kept)")

    spender = Agent(
        "spender", bus=bus, tools=[poll], max_total_tokens=100, provider=ScriptedProvider(forever)
    )
    try:
        await spender.chat("Wait for news")
    except BudgetExceeded as exc:
        print(f"caller got BudgetExceeded: {exc}")


if __name__ == "__main__":
    asyncio.run(main())
