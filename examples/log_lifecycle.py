"""Log a run's lifecycle: its start and result, each tool call and its result, and handoffs.

Seed 004 (hooks.ts): ``beforeRun``, ``afterRun``, ``beforeToolCall``, ``afterToolCall`` and
``beforeHandoff`` given as an agent's hooks, each logging one line.

Output:
    Starting triage with: I was charged twice
    Calling tool: lookup_order
    Tool lookup_order returned: order 7 charged 2x
    Calling tool: transfer_to_billing
    Handoff: triage → billing
    Tool transfer_to_billing returned: Transferred to billing.
    billing finished: Refunded the duplicate charge on order 7.
"""

import asyncio

from agenthooks import Agent, HookBus, ProviderResponse, ScriptedProvider, ToolCall, tool
from agenthooks.events import (
    ChatDoneContext,
    ChatStartContext,
    HandoffContext,
    PreToolCallContext,
    ToolResultContext,
)

hooks = HookBus()


@hooks.on("beforeRun")
def before_run(ctx: ChatStartContext) -> None:
    print(f"Starting {ctx.agent} with: {ctx.message}")


@hooks.on("afterRun")
def after_run(ctx: ChatDoneContext) -> None:
    print(f"{ctx.agent} finished: {ctx.response.content}")


@hooks.on("beforeToolCall")
def before_tool_call(ctx: PreToolCallContext) -> None:
    print(f"Calling tool: {ctx.call.name}")


@hooks.on("afterToolCall")
def after_tool_call(ctx: ToolResultContext) -> None:
    print(f"Tool {ctx.call.name} returned: {ctx.result}")


@hooks.on("beforeHandoff")
def before_handoff(ctx: HandoffContext) -> None:
    print(f"Handoff: {ctx.from_agent} → {ctx.to_agent}")


@tool
def lookup_order(order_id: int) -> str:
    """Look an order up."""
    return f"order {order_id} charged 2x"


async def main() -> None:
    billing = Agent(
        "billing", provider=ScriptedProvider(["Refunded the duplicate charge on order 7."])
    )
    triage = Agent(
        "triage",
        bus=hooks,
        tools=[lookup_order],
        handoffs=[billing],
        provider=ScriptedProvider(
            [
                ProviderResponse(
                    tool_calls=[ToolCall(id="c1", name="lookup_order", arguments={"order_id": 7})]
                ),
                ProviderResponse(tool_calls=[ToolCall(id="c2", name="transfer_to_billing")]),
            ]
        ),
    )
    await triage.chat("I was charged twice")


if __name__ == "__main__":
    asyncio.run(main())
