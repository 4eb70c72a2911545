"""Draft on a fast model, then review on a stronger one: switch provider and model between
turns.

Seed 002: ``PrepareNextTurn`` returning a new ``Model`` once the draft turn is done (the new
model may even speak another wire protocol: here it is another provider object).

Output:
    turn 1: fast-provider / fast-small
    turn 2: strong-provider / strong-large
    answer: Reviewed: the draft is correct.
"""

import asyncio

from agenthooks import Agent, ProviderResponse, ScriptedProvider, ToolCall, tool
from agenthooks.events import TurnContext

fast = ScriptedProvider(
    [
        ProviderResponse(
            tool_calls=[ToolCall(id="c1", name="save_draft", arguments={"text": "2 + 2 = 4"})]
        ),
    ],
    name="fast-provider",
)
strong = ScriptedProvider(["Reviewed: the draft is correct."], name="strong-provider")


@tool
def save_draft(text: str) -> str:
    """Save a draft answer."""
    return "saved"


def review_on_a_stronger_model(ctx: TurnContext) -> dict[str, object] | None:
    if len(ctx.new_messages) == 3:  # the question, the draft turn and its tool result
        return {"provider": strong, "model": "strong-large"}
    return None


async def main() -> None:
    agent = Agent("writer", provider=fast, model="fast-small", tools=[save_draft])
    agent.on("prepare_next_turn", review_on_a_stronger_model)
    response = await agent.chat("What is 2 + 2? Draft, then review.")
    served = [(p.name, r.model) for p in (fast, strong) for r in p.requests]
    for turn, (provider, model) in enumerate(served, start=1):
        print(f"turn {turn}: {provider} / {model}")
    print("answer:", response.content)


if __name__ == "__main__":
    asyncio.run(main())
