"""Subscribe with ``on``, once with ``once``, and unsubscribe with ``off``.

Seed 001: the event-emitter pattern: ``on(AgentStart, handler)``, ``once(AgentEnd, ...)``
(removed after its first call), ``off(AgentStart, handler)``.

Output:
    Started: greeter
    First run complete: Hello!
    Started: greeter
    after off(): the third run printed nothing
"""

import asyncio

from agenthooks import Agent, ScriptedProvider
from agenthooks.events import ChatEndContext, ChatStartContext


def handler(ctx: ChatStartContext) -> None:
    print(f"Started: {ctx.agent}")


def first_run(ctx: ChatEndContext) -> None:
    assert ctx.response is not None
    print(f"First run complete: {ctx.response.content}")


async def main() -> None:
    agent = Agent("greeter", provider=ScriptedProvider(["Hello!", "Hi again!", "Bye!"]))
    agent.on("AgentStart", handler)
    agent.once("AgentEnd", first_run)
    await agent.chat("hi")
    await agent.chat("hi")
    agent.off("AgentStart", handler)
    await agent.chat("bye")
    print("after off(): the third run printed nothing")


if __name__ == "__main__":
    asyncio.run(main())
