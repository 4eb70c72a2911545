"""Report what a run starts with and ends with: session, goal, parent, result or error,
iterations, tool calls and tokens.

Seed 001: ``AgentStart`` logging the session id, the goal and the parent span; ``AgentEnd``
logging the result or the error, the iterations, the tool calls and the total tokens.

Output:
    [planner] Session: s-42
    [planner] Goal: "Plan a trip to Rome"
    [planner] Parent span: none
    [booker] Session: s-42
    [booker] Goal: "Book a hotel in Rome"
    [booker] Parent span: the run of planner
    [booker] Result: "Hotel booked."
    [booker] Iterations: 1
    [booker] Tool calls: 0
    [booker] Tokens: 30
    [planner] Result: "Trip planned: hotel booked."
    [planner] Iterations: 2
    [planner] Tool calls: 1
    [planner] Tokens: 125
"""

import asyncio

from agenthooks import (
    Agent,
    HookBus,
    ProviderResponse,
    ScriptedProvider,
    Session,
    ToolCall,
    Usage,
)
from agenthooks.events import ChatEndContext, ChatStartContext

bus = HookBus()
runs: dict[str, str] = {}


@bus.on("AgentStart")
def agent_start(ctx: ChatStartContext) -> None:
    runs[ctx.run_id] = ctx.agent
    parent = "none" if ctx.parent_run_id is None else f"the run of {runs[ctx.parent_run_id]}"
    print(f"[{ctx.agent}] Session: {ctx.session_id}")
    print(f'[{ctx.agent}] Goal: "{ctx.message}"')
    print(f"[{ctx.agent}] Parent span: {parent}")


@bus.on("AgentEnd")
def agent_end(ctx: ChatEndContext) -> None:
    if ctx.error is not None:
        print(f"[{ctx.agent}] Failed: {ctx.error}")
        return
    assert ctx.response is not None
    calls = sum(len(m.tool_calls) for m in ctx.response.messages)
    print(f'[{ctx.agent}] Result: "{ctx.response.content}"')
    print(f"[{ctx.agent}] Iterations: {ctx.response.iterations}")
    print(f"[{ctx.agent}] Tool calls: {calls}")
    print(f"[{ctx.agent}] Tokens: {ctx.response.usage.total_tokens}")


def tokens(n: int) -> Usage:
    return Usage(input_tokens=n - 5, output_tokens=5, total_tokens=n)


async def main() -> None:
    booker = Agent(
        "booker",
        "Book hotels.",
        provider=ScriptedProvider([ProviderResponse(content="Hotel booked.", usage=tokens(30))]),
    )
    planner = Agent(
        "planner",
        "Plan trips.",
        bus=bus,
        sub_agents=[booker],
        provider=ScriptedProvider(
            [
                ProviderResponse(
                    tool_calls=[
                        ToolCall(id="c1", name="booker", arguments={"task": "Book a hotel in Rome"})
                    ],
                    usage=tokens(40),
                ),
                ProviderResponse(content="Trip planned: hotel booked.", usage=tokens(55)),
            ]
        ),
    )
    async with Session(planner, session_id="s-42") as session:
        await session.chat("Plan a trip to Rome")


if __name__ == "__main__":
    asyncio.run(main())
