"""Print a streamed answer as it arrives, with the stream's start, end and errors.

Seed 001: ``StreamStart``, ``StreamChunk`` writing each delta to stdout, ``StreamEnd`` and
``StreamError``. The stream events fire in ``chat_stream()`` in addition to every event
``chat()`` fires.

Output:
    Stream started (1 messages)
    Hooks fire at every step of the loop.
    Stream ended: 8 chunks, 37 characters
    Stream started (3 messages)
    Stream error: model server hung up
    the caller got: ConnectionError
"""

import asyncio
import sys

from agenthooks import Agent, ScriptedProvider
from agenthooks.events import StreamContext


def stream_start(ctx: StreamContext) -> None:
    print(f"Stream started ({len(ctx.request.messages)} messages)")


chunks = 0


def stream_chunk(ctx: StreamContext) -> None:
    global chunks
    chunks += 1
    sys.stdout.write(ctx.delta)


def stream_end(ctx: StreamContext) -> None:
    print(f"\nStream ended: {chunks} chunks, {len(ctx.accumulated)} characters")


def stream_error(ctx: StreamContext) -> None:
    print(f"Stream error: {ctx.error}")


async def main() -> None:
    model = ScriptedProvider(
        ["Hooks fire at every step of the loop.", ConnectionError("model server hung up")]
    )
    agent = Agent("explainer", "Explain briefly.", provider=model)
    agent.on("StreamStart", stream_start)
    agent.on("StreamChunk", stream_chunk)
    agent.on("StreamEnd", stream_end)
    agent.on("StreamError", stream_error)

    async for _ in agent.chat_stream("What are hooks?"):
        pass  # a UI would render the TextDelta items; the hooks print here
    try:
        async for _ in agent.chat_stream("And middleware?"):
            pass
    except ConnectionError as exc:
        print("the caller got:", type(exc).__name__)


if __name__ == "__main__":
    asyncio.run(main())
