"""A typed answer: the agent's final answer is a pydantic model, and a hook checks it too.

Not from a seed. ``Agent(output_type=Forecast)`` asks the model for a JSON object of that type
(the OpenAI-compatible provider sends a ``json_schema`` response format, Claude gets a forced
tool; the scripted model here reads the schema in its instructions) and validates the answer:
``response.output`` is the ``Forecast``. An answer that fails goes back to the model with a
correction naming each problem, at most ``output_retries`` times (then
``OutputValidationError``). An ``on_output`` hook sees every check: it may reject a valid
answer with its own reason (the same correction round), replace the value, or deny.

Output:
    check 1: invalid: temperature_c: Input should be a valid number, unable to parse string as a number
    check 2: rejected: the forecast is for Paris, but Berlin was asked
    check 3: valid
    the model read, after its first answer:
      Your answer is not a valid Forecast:
      - temperature_c: Input should be a valid number, unable to parse string as a number
      Answer again with only the corrected JSON object.
    output: city='Berlin' temperature_c=21.5 sky='sunny'
    turns: 3
"""

import asyncio
from typing import Literal

from pydantic import BaseModel, ValidationError

from agenthooks import Agent, ScriptedProvider
from agenthooks.events import OutputContext


class Forecast(BaseModel):
    """Tomorrow's weather in one city."""

    city: str
    temperature_c: float
    sky: Literal["sunny", "cloudy", "rain"]


ASKED = "Berlin"


def same_city(ctx: OutputContext) -> dict[str, str] | None:
    if isinstance(ctx.error, ValidationError):
        first = ctx.error.errors()[0]
        print(f"check {ctx.attempt}: invalid: {first['loc'][0]}: {first['msg']}")
        return None
    if ctx.output.city != ASKED:
        reason = f"the forecast is for {ctx.output.city}, but {ASKED} was asked"
        print(f"check {ctx.attempt}: rejected: {reason}")
        return {"error": reason}
    print(f"check {ctx.attempt}: valid")
    return None


async def main() -> None:
    model = ScriptedProvider(
        [
            '{"city": "Berlin", "temperature_c": "warm", "sky": "sunny"}',
            '{"city": "Paris", "temperature_c": 24, "sky": "sunny"}',
            '{"city": "Berlin", "temperature_c": 21.5, "sky": "sunny"}',
        ]
    )
    agent = Agent("weather", "You forecast the weather.", provider=model, output_type=Forecast)
    agent.on("on_output", same_city)
    response = await agent.chat(f"Tomorrow's weather in {ASKED}?")
    print("the model read, after its first answer:")
    for line in (model.requests[1].messages[-1].content or "").splitlines():
        print("  " + line)
    print("output:", response.output)
    print("turns:", response.iterations)


if __name__ == "__main__":
    asyncio.run(main())
