"""Serve a tool result from a cache: a ``pre_tool_call`` short-circuit skips the tool.

Seed 000: the ``preToolCall`` cached-result short-circuit for ``fetch_weather``, keyed by the
call's ``city`` argument.

Output:
    Paris: 18°C and sunny (cached: True)
    Oslo: 4°C, rain (cached: False)
    the tool itself ran for: ['Oslo']
"""

import asyncio

from agenthooks import Agent, ProviderResponse, ScriptedProvider, ToolCall, tool
from agenthooks.events import PreToolCallContext

weather_cache = {"Paris": "18°C and sunny"}
ran_for: list[str] = []


@tool
def fetch_weather(city: str) -> str:
    """The current weather in a city."""
    ran_for.append(city)
    return "4°C, rain"


def cached_weather(ctx: PreToolCallContext) -> dict[str, object] | None:
    cached = weather_cache.get(ctx.call.arguments["city"])
    if cached is not None:
        return {"result": cached}  # short-circuit: the tool does not run
    return None


async def main() -> None:
    model = ScriptedProvider(
        [
            ProviderResponse(
                tool_calls=[
                    ToolCall(id="c1", name="fetch_weather", arguments={"city": "Paris"}),
                    ToolCall(id="c2", name="fetch_weather", arguments={"city": "Oslo"}),
                ]
            ),
            "Paris is sunny, Oslo is rainy.",
        ]
    )
    agent = Agent("weather", provider=model, tools=[fetch_weather])
    agent.on("pre_tool_call", cached_weather, match="fetch_weather")
    response = await agent.chat("Weather in Paris and Oslo?")
    for message in response.messages:
        if message.role == "tool":
            city = "Paris" if message.tool_call_id == "c1" else "Oslo"
            print(f"{city}: {message.content} (cached: {city in weather_cache})")
    print("the tool itself ran for:", ran_for)


if __name__ == "__main__":
    asyncio.run(main())
