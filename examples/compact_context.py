"""Compact the context the model sees, without touching the stored transcript.

Seed 002: ``TransformContext`` returning ``compact(messages)`` once the transcript is longer
than a limit; it runs per request and never mutates the agent's memory.

Output:
    request 1: 1 messages
    request 2: 3 messages
    request 3: 5 messages
    request 4: 5 messages, starting with: [summary of 3 earlier messages]
    request 5: 5 messages, starting with: [summary of 5 earlier messages]
    stored history: 10 messages
"""

import asyncio

from agenthooks import Agent, ChatMessage, ScriptedProvider
from agenthooks.events import TransformContextContext

LIMIT = 5
KEEP = 4


def compact(messages: list[ChatMessage]) -> list[ChatMessage]:
    older, recent = messages[:-KEEP], messages[-KEEP:]
    summary = ChatMessage(role="user", content=f"[summary of {len(older)} earlier messages]")
    return [summary, *recent]


def transform_context(ctx: TransformContextContext) -> dict[str, object] | None:
    if len(ctx.messages) <= LIMIT:
        return None
    return {"messages": compact(ctx.messages)}


async def main() -> None:
    model = ScriptedProvider([f"answer {n}" for n in range(1, 6)])
    agent = Agent("chatty", provider=model)
    agent.on("TransformContext", transform_context)
    for n in range(1, 6):
        await agent.chat(f"question {n}")
    for n, request in enumerate(model.requests, start=1):
        first = request.messages[0].content or ""
        note = f", starting with: {first}" if first.startswith("[summary") else ""
        print(f"request {n}: {len(request.messages)} messages{note}")
    print("stored history:", len(agent.history), "messages")


if __name__ == "__main__":
    asyncio.run(main())
