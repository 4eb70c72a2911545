"""Register hooks under the seed's names, and unregister them with the returned disposer.

Seed 001: ``registerHook(HookEvents.AgentStart, ...)`` returning an unregister function, and
``on(HookEvents.AgentEnd, ...)`` (equivalent) reporting the number of tool calls. Seed names
are aliases: ``AgentStart`` is ``on_chat_start``, ``AgentEnd`` is ``on_chat_end``.

Output:
    Agent started: MyAgent
    Agent finished with 1 tool calls
    after unregister(): only AgentEnd fired
    Agent finished with 0 tool calls
"""

import asyncio

from agenthooks import Agent, ProviderResponse, ScriptedProvider, ToolCall, tool
from agenthooks.events import ChatEndContext, ChatStartContext


@tool
def search(query: str) -> str:
    """Search the web."""
    return "results"


def agent_start(ctx: ChatStartContext) -> None:
    print(f"Agent started: {ctx.agent}")


def agent_end(ctx: ChatEndContext) -> None:
    messages = ctx.response.messages if ctx.response is not None else []
    calls = sum(len(m.tool_calls) for m in messages)
    print(f"Agent finished with {calls} tool calls")


async def main() -> None:
    model = ScriptedProvider(
        [
            ProviderResponse(
                tool_calls=[ToolCall(id="c1", name="search", arguments={"query": "x"})]
            ),
            "Found it.",
            "Hello again.",
        ]
    )
    agent = Agent("MyAgent", "Help users.", provider=model, tools=[search])

    unregister = agent.add_hook("AgentStart", agent_start)  # registerHook(...)
    agent.on("AgentEnd", agent_end)  # on(...) is the same
    await agent.chat("Search for x")

    unregister()
    print("after unregister(): only AgentEnd fired")
    await agent.chat("Hi")


if __name__ == "__main__":
    asyncio.run(main())
