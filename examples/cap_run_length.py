"""Guard against a runaway loop: stop gracefully once a run has added too many messages.

Seed 002: ``ShouldStopAfterTurn`` returning ``len(c.NewMessages) > 20`` (the agent has no
built-in cap there). Here the cap is 6 messages and the model would ask for tools forever.

Output:
    finish reason: stopped
    turns: 3
    messages added: 7
"""

import asyncio

from agenthooks import Agent, ProviderRequest, ProviderResponse, ScriptedProvider, ToolCall, tool
from agenthooks.events import TurnContext


@tool
def poll(job: str) -> str:
    """Poll a job's status."""
    return "still running"


def keeps_polling(request: ProviderRequest) -> ProviderResponse:
    return ProviderResponse(tool_calls=[ToolCall(id="", name="poll", arguments={"job": "42"})])


def too_long(ctx: TurnContext) -> bool:
    return len(ctx.new_messages) > 6


async def main() -> None:
    agent = Agent("poller", provider=ScriptedProvider(keeps_polling), tools=[poll])
    agent.on("should_stop", too_long)
    response = await agent.chat("Wait for job 42")
    print("finish reason:", response.finish_reason)
    print("turns:", response.iterations)
    print("messages added:", len(response.messages))


if __name__ == "__main__":
    asyncio.run(main())
