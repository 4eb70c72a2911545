"""Rewrite a tool error before the model reads it: classify validation failures.

Seed 000: ``onToolCallError`` replacing a tool validation error with
``Bad arguments for <tool>``.

Output:
    source: validation
    original: invalid arguments for tool 'get_weather': days: Input should be a valid integer, unable to parse string as an integer
    the model read: Bad arguments for get_weather
"""

import asyncio

from agenthooks import Agent, ProviderResponse, ScriptedProvider, ToolCall, tool
from agenthooks.errors import ToolValidationError
from agenthooks.events import ToolErrorContext


@tool
def get_weather(city: str, days: int) -> str:
    """The forecast for a city."""
    return f"{days} sunny days in {city}"


def classify(ctx: ToolErrorContext) -> dict[str, object] | None:
    if isinstance(ctx.error, ToolValidationError):
        print("source:", ctx.source)
        print("original:", ctx.error)
        return {"error": ValueError(f"Bad arguments for {ctx.call.name}")}
    return None


async def main() -> None:
    model = ScriptedProvider(
        [
            ProviderResponse(
                tool_calls=[
                    ToolCall(
                        id="c1", name="get_weather", arguments={"city": "Rome", "days": "a few"}
                    )
                ]
            ),
            "Let me retry with a number.",
        ]
    )
    agent = Agent("weather", provider=model, tools=[get_weather])
    agent.on("on_tool_call_error", classify)
    await agent.chat("Weather in Rome for a few days?")
    print("the model read:", model.requests[1].messages[-1].content)


if __name__ == "__main__":
    asyncio.run(main())
