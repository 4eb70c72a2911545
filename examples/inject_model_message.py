"""Add a message to what the model sees on every request, without storing it in history.

Seed 003: ``PreModelCall`` returning ``HookModify`` with ``append(mc.Messages,
"Remember: always respond in JSON.")``.

Output:
    the model saw: ['user: List two colors', 'user: Remember: always respond in JSON.']
    stored history: ['user: List two colors', 'assistant: ["red", "blue"]']
"""

import asyncio

from agenthooks import Agent, ChatMessage, ScriptedProvider
from agenthooks.events import PreRequestContext

REMINDER = ChatMessage(role="user", content="Remember: always respond in JSON.")


def remind(ctx: PreRequestContext) -> dict[str, object]:
    request = ctx.request
    return {"request": request.model_copy(update={"messages": [*request.messages, REMINDER]})}


async def main() -> None:
    model = ScriptedProvider(['["red", "blue"]'])
    agent = Agent("colors", provider=model)
    agent.on("PreModelCall", remind)
    await agent.chat("List two colors")
    print("the model saw:", [f"{m.role}: {m.content}" for m in model.requests[0].messages])
    print("stored history:", [f"{m.role}: {m.content}" for m in agent.history])


if __name__ == "__main__":
    asyncio.run(main())
