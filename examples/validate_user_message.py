"""Validate the user's message before any model call: reject PII, normalize the rest.

Seed 003: ``OnUserMessage`` returning ``HookDeny`` with "message contains PII", else
``HookModify`` with ``sanitizeInput(uc.Message)``.

Output:
    denied: message contains PII (finish reason: denied, model calls: 0)
    allowed: 'What is the refund policy?' reached the model
    history: ['What is the refund policy?', 'Refunds within 30 days.']
"""

import asyncio
import re

from agenthooks import Agent, Deny, ScriptedProvider
from agenthooks.events import UserMessageContext

SSN = re.compile(r"\b\d{3}-\d{2}-\d{4}\b")


def validate(ctx: UserMessageContext) -> Deny | dict[str, object]:
    if SSN.search(ctx.message):
        return Deny("message contains PII")
    return {"message": " ".join(ctx.message.split())}


async def main() -> None:
    model = ScriptedProvider(["Refunds within 30 days."])
    agent = Agent("support", provider=model)
    agent.on("OnUserMessage", validate)
    denied = await agent.chat("My SSN is 123-45-6789, refund me")
    print(
        f"denied: {denied.content} (finish reason: {denied.finish_reason}, "
        f"model calls: {len(model.requests)})"
    )
    await agent.chat("  What is   the refund\n policy?  ")
    print(f"allowed: {model.requests[0].messages[-1].content!r} reached the model")
    print("history:", [m.content for m in agent.history])


if __name__ == "__main__":
    asyncio.run(main())
