"""End the run on any tool error: no further model call after the failing batch.

Seed 002: ``AfterToolCall`` returning ``Terminate`` when the result is an error ("end the run
on any tool error"). Here that is ``{"terminate": True}`` from ``on_tool_call_error``.

Output:
    finish reason: terminated
    model calls: 1
    last tool message: OSError: disk full (error: True)
"""

import asyncio

from agenthooks import Agent, ProviderResponse, ScriptedProvider, ToolCall, tool
from agenthooks.events import ToolErrorContext


@tool
def write_report(text: str) -> str:
    """Write the report to disk."""
    raise OSError("disk full")


def stop_on_error(ctx: ToolErrorContext) -> dict[str, object]:
    return {"terminate": True}


async def main() -> None:
    model = ScriptedProvider(
        [
            ProviderResponse(
                tool_calls=[
                    ToolCall(id="c1", name="write_report", arguments={"text": "Q3 numbers"})
                ]
            ),
            "This answer is never requested.",
        ]
    )
    agent = Agent("reporter", provider=model, tools=[write_report])
    agent.on("on_tool_call_error", stop_on_error)
    response = await agent.chat("Write the Q3 report")
    last = response.messages[-1]
    print("finish reason:", response.finish_reason)
    print("model calls:", len(model.requests))
    print(f"last tool message: {last.content} (error: {last.is_error})")


if __name__ == "__main__":
    asyncio.run(main())
