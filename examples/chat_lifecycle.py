"""Observe how each chat starts and ends: done, aborted or failed (exactly one of them).

Seed 000: ``onChatStart`` logging the message, ``onChatDone`` logging the finish reason,
``onChatAbort`` logging the reason, ``onChatError`` logging the error.

Output:
    chat started: Hello
    chat done: stop
    chat started: Start the long job
    chat cancelled: user pressed stop
    caller got RunAborted: run aborted: user pressed stop
    chat started: Hello again
    chat failed: ConnectionError('model server is down')
    caller got ConnectionError: model server is down
"""

import asyncio

from agenthooks import Agent, ProviderResponse, RunAborted, ScriptedProvider, ToolCall, tool
from agenthooks.events import (
    ChatAbortContext,
    ChatDoneContext,
    ChatErrorContext,
    ChatStartContext,
)

stop = asyncio.Event()


@tool
async def long_job() -> str:
    """A job that runs until the user stops it."""
    stop.reason = "user pressed stop"  # type: ignore[attr-defined]  # read by the runtime
    stop.set()  # the user presses stop while the tool runs
    await asyncio.sleep(3600)
    return "finished"


def started(ctx: ChatStartContext) -> None:
    print("chat started:", ctx.message)


def done(ctx: ChatDoneContext) -> None:
    print("chat done:", ctx.response.finish_reason)


def aborted(ctx: ChatAbortContext) -> None:
    print("chat cancelled:", ctx.reason)


def failed(ctx: ChatErrorContext) -> None:
    print("chat failed:", repr(ctx.error))


async def main() -> None:
    model = ScriptedProvider(
        [
            "Hi!",
            ProviderResponse(tool_calls=[ToolCall(id="c1", name="long_job")]),
            ConnectionError("model server is down"),
        ]
    )
    agent = Agent("assistant", provider=model, tools=[long_job])

    agent.on("on_chat_start", started)
    agent.on("on_chat_done", done)
    agent.on("on_chat_abort", aborted)
    agent.on("on_chat_error", failed)

    await agent.chat("Hello")
    try:
        await agent.chat("Start the long job", signal=stop)
    except RunAborted as exc:
        print("caller got RunAborted:", exc)
    try:
        await agent.chat("Hello again")
    except ConnectionError as exc:
        print("caller got ConnectionError:", exc)


if __name__ == "__main__":
    asyncio.run(main())
