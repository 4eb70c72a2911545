"""Recover from a failed model call with a replacement response, in chat() and chat_stream().

Seed 003: ``OnModelError`` returning ``HookModify`` with "Service temporarily unavailable.
Please try again." (it works in both ``Chat()`` and ``ChatStream()``).

Output:
    OnModelError: ConnectionError: connection reset
    chat():        Service temporarily unavailable. Please try again.
    OnModelError: ConnectionError: connection reset
    chat_stream(): Service temporarily unavailable. Please try again.
"""

import asyncio

from agenthooks import Agent, ProviderResponse, ScriptedProvider, TextDelta
from agenthooks.events import ModelErrorContext


def apologize(ctx: ModelErrorContext) -> dict[str, object]:
    print(f"OnModelError: {type(ctx.error).__name__}: {ctx.error}")
    return {
        "response": ProviderResponse(content="Service temporarily unavailable. Please try again.")
    }


async def main() -> None:
    model = ScriptedProvider(
        [ConnectionError("connection reset"), ConnectionError("connection reset")]
    )
    agent = Agent("assistant", provider=model)
    agent.on("OnModelError", apologize)
    response = await agent.chat("Hello?")
    print("chat():       ", response.content)
    text = "".join(
        [
            item.text
            async for item in agent.chat_stream("Hello again?")
            if isinstance(item, TextDelta)
        ]
    )
    print("chat_stream():", text)


if __name__ == "__main__":
    asyncio.run(main())
