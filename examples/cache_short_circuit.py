"""Cache model responses: a ``pre_request`` hit short-circuits the provider call.

Seed 000: "Hook A" checks a cache and returns ``{ response }`` on a hit, which skips the rest of
the chain and the provider; "Hook B" (appending "Be concise." to the system prompt) only runs on
a miss; the cache-hit example of ``preRequest``; ``onResponse`` storing each response.

Output:
    first chat:  Paris. (provider calls so far: 1)
    system prompt the provider saw: 'You answer questions.\\nBe concise.'
    second chat: Paris. (provider calls so far: 1)
"""

import asyncio
import hashlib
import json

from agenthooks import Agent, ProviderRequest, ProviderResponse, ScriptedProvider
from agenthooks.events import PreRequestContext, ResponseContext

cache: dict[str, ProviderResponse] = {}


def key(request: ProviderRequest) -> str:
    # the conversation only: Hook B's change to the system prompt must not change the key
    messages = [m.model_dump(mode="json") for m in request.messages]
    return hashlib.sha256(json.dumps(messages).encode()).hexdigest()


def hook_a_cache_check(ctx: PreRequestContext) -> dict[str, object] | None:
    cached = cache.get(key(ctx.request))
    if cached is not None:
        return {"response": cached}  # short-circuit: Hook B and the provider are skipped
    return None


def hook_b_be_concise(ctx: PreRequestContext) -> dict[str, object]:
    system = (ctx.request.system or "") + "\nBe concise."
    return {"request": ctx.request.model_copy(update={"system": system})}


def store(ctx: ResponseContext) -> None:
    cache[key(ctx.request)] = ctx.response


async def main() -> None:
    model = ScriptedProvider(["Paris."])  # one scripted answer: a second call would fail
    agent = Agent("geo", "You answer questions.", provider=model)
    agent.on("pre_request", hook_a_cache_check)
    agent.on("pre_request", hook_b_be_concise)
    agent.on("on_response", store)

    first = await agent.chat("Capital of France?")
    print(f"first chat:  {first.content} (provider calls so far: {len(model.requests)})")
    print(f"system prompt the provider saw: {model.requests[0].system!r}")

    fresh = Agent("geo", "You answer questions.", provider=model, bus=agent.bus)
    second = await fresh.chat("Capital of France?")
    print(f"second chat: {second.content} (provider calls so far: {len(model.requests)})")


if __name__ == "__main__":
    asyncio.run(main())
