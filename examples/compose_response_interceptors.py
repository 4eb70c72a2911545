"""Interceptors compose: each ``on_response`` handler sees what the previous one returned.

Seed 000: one ``onResponse`` hook trims the content, the next (registered after it) upper-cases
the trimmed content.

Output:
    model said:  '   hello there   '
    caller got:  'HELLO THERE'
"""

import asyncio

from agenthooks import Agent, ScriptedProvider
from agenthooks.events import ResponseContext


def trim(ctx: ResponseContext) -> dict[str, object]:
    content = ctx.response.content
    return {
        "response": ctx.response.model_copy(
            update={"content": content.strip() if content else content}
        )
    }


def shout(ctx: ResponseContext) -> dict[str, object]:
    # runs after trim: it sees the trimmed content
    content = ctx.response.content
    return {
        "response": ctx.response.model_copy(
            update={"content": content.upper() if content else content}
        )
    }


async def main() -> None:
    agent = Agent("echo", provider=ScriptedProvider(["   hello there   "]))
    agent.on("on_response", trim)
    agent.on("on_response", shout)
    response = await agent.chat("Say hello")
    print("model said: ", repr("   hello there   "))
    print("caller got: ", repr(response.content))


if __name__ == "__main__":
    asyncio.run(main())
