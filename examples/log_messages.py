"""Log every message as it is committed to history, then stop logging with the disposer.

Seed 000: ``addHook`` returns an idempotent disposer; ``onMessage`` logging what the assistant
said; ``onMessage`` logging each tool result.

Output:
    assistant asked for: get_time
    tool result: call_1 -> 12:00
    assistant said: It is noon.
    second chat, after dispose(): nothing logged
"""

import asyncio

from agenthooks import Agent, ProviderResponse, ScriptedProvider, ToolCall, tool
from agenthooks.events import MessageContext


@tool
def get_time() -> str:
    """The current time."""
    return "12:00"


def log_message(ctx: MessageContext) -> None:
    message = ctx.message
    if message.role == "assistant" and message.tool_calls:
        print("assistant asked for:", ", ".join(call.name for call in message.tool_calls))
    elif message.role == "assistant":
        print("assistant said:", message.content)
    elif message.role == "tool":
        print(f"tool result: {message.tool_call_id} -> {message.content}")


async def main() -> None:
    model = ScriptedProvider(
        [
            ProviderResponse(tool_calls=[ToolCall(id="call_1", name="get_time")]),
            "It is noon.",
            "Still noon.",
        ]
    )
    agent = Agent("clock", provider=model, tools=[get_time])

    dispose = agent.add_hook("on_message", log_message)
    await agent.chat("What time is it?")

    dispose()
    dispose()  # idempotent, like the seed's disposer
    await agent.chat("And now?")
    print("second chat, after dispose(): nothing logged")


if __name__ == "__main__":
    asyncio.run(main())
