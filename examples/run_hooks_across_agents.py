"""Run-wide hooks: observe every agent of a run, including the one a handoff passes to.

Seed 004 (run-hooks.ts): ``onAgentStart``, ``onAgentEnd``, ``onHandoff``, ``onToolStart``,
``onToolEnd``, ``onLlmStart``, ``onLlmEnd`` given to ``run(agent, "Hello", { runHooks })``:
they fire across all agents of the run. Here they sit on the run's bus.

Output:
    Agent started: triage
    LLM call with 1 messages
    LLM responded: 1 tool calls
    Tool started: transfer_to_billing
    Agent started: billing
    Tool ended: transfer_to_billing
    Handoff: triage → billing
    LLM call with 3 messages
    LLM responded: 0 tool calls
    Agent ended: billing
    answer from billing: Your invoice is attached.
"""

import asyncio

from agenthooks import Agent, HookBus, ProviderResponse, ScriptedProvider, ToolCall
from agenthooks.events import (
    HandoffContext,
    PostAgentContext,
    PreAgentContext,
    PreRequestContext,
    PreToolCallContext,
    ResponseContext,
    ToolResultContext,
)

run_hooks = HookBus()


@run_hooks.on("onAgentStart")
def agent_start(ctx: PreAgentContext) -> None:
    print(f"Agent started: {ctx.agent}")


@run_hooks.on("onAgentEnd")
def agent_end(ctx: PostAgentContext) -> None:
    print(f"Agent ended: {ctx.agent}")


@run_hooks.on("onHandoff")
def handoff(ctx: HandoffContext) -> None:
    print(f"Handoff: {ctx.from_agent} → {ctx.to_agent}")


@run_hooks.on("onToolStart")
def tool_start(ctx: PreToolCallContext) -> None:
    print(f"Tool started: {ctx.call.name}")


@run_hooks.on("onToolEnd")
def tool_end(ctx: ToolResultContext) -> None:
    print(f"Tool ended: {ctx.call.name}")


@run_hooks.on("onLlmStart")
def llm_start(ctx: PreRequestContext) -> None:
    print(f"LLM call with {len(ctx.request.messages)} messages")


@run_hooks.on("onLlmEnd")
def llm_end(ctx: ResponseContext) -> None:
    print(f"LLM responded: {len(ctx.response.tool_calls)} tool calls")


async def main() -> None:
    billing = Agent("billing", provider=ScriptedProvider(["Your invoice is attached."]))
    triage = Agent(
        "triage",
        handoffs=[billing],
        bus=run_hooks,
        provider=ScriptedProvider(
            [ProviderResponse(tool_calls=[ToolCall(id="h1", name="transfer_to_billing")])]
        ),
    )
    response = await triage.chat("Where is my invoice?")
    print(f"answer from {response.agent}: {response.content}")


if __name__ == "__main__":
    asyncio.run(main())
