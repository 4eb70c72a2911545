"""Sanitize an agent's final answer before it reaches the caller (and history).

Seed 003: ``AfterAgent`` returning ``HookModify`` with ``sanitize(modified.Content)``.

Output:
    caller got: Call me at [phone] or write to [email].
    history has: Call me at [phone] or write to [email].
"""

import asyncio
import re

from agenthooks import Agent, ScriptedProvider
from agenthooks.events import PostAgentContext


def sanitize(text: str) -> str:
    text = re.sub(r"\+?\d[\d -]{7,}\d", "[phone]", text)
    return re.sub(r"\S+@\S+\.\w+", "[email]", text)


def after_agent(ctx: PostAgentContext) -> dict[str, object]:
    content = ctx.response.content
    return {
        "response": ctx.response.model_copy(
            update={"content": sanitize(content) if content else content}
        )
    }


async def main() -> None:
    model = ScriptedProvider(["Call me at +1 555 010 9999 or write to bob@example.com."])
    agent = Agent("support", provider=model)
    agent.on("AfterAgent", after_agent)
    response = await agent.chat("How can I reach Bob?")
    print("caller got:", response.content)
    print("history has:", agent.history[-1].content)


if __name__ == "__main__":
    asyncio.run(main())
