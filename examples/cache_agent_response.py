"""Skip an agent entirely when its answer for this input is cached.

Seed 003: ``BeforeAgent`` returning ``HookModify`` with a cached ``ChatResponse`` ("skip the
agent entirely"). Here ``pre_agent`` returns ``{"response": ...}``; the answer still lands in
history like a normal one.

Output:
    first:  The Eiffel Tower is 330 m tall. (model calls: 1)
    second: The Eiffel Tower is 330 m tall. (model calls: 1)
    history: ['user', 'assistant', 'user', 'assistant']
"""

import asyncio

from agenthooks import Agent, AgentResponse, ScriptedProvider
from agenthooks.events import PostAgentContext, PreAgentContext

cache: dict[str, str] = {}


def cached(ctx: PreAgentContext) -> dict[str, object] | None:
    answer = cache.get(ctx.input)
    if answer is not None:
        return {"response": AgentResponse(content=answer)}
    return None


def remember(ctx: PostAgentContext) -> None:
    if ctx.response.content is not None:
        cache[ctx.input] = ctx.response.content


async def main() -> None:
    model = ScriptedProvider(["The Eiffel Tower is 330 m tall."])
    agent = Agent("guide", provider=model)
    agent.on("BeforeAgent", cached)
    agent.on("AfterAgent", remember)
    first = await agent.chat("How tall is the Eiffel Tower?")
    print(f"first:  {first.content} (model calls: {len(model.requests)})")
    second = await agent.chat("How tall is the Eiffel Tower?")
    print(f"second: {second.content} (model calls: {len(model.requests)})")
    print("history:", [m.role for m in agent.history])


if __name__ == "__main__":
    asyncio.run(main())
