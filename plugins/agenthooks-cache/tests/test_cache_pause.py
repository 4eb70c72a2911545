"""A call a guard asks about, answered after a pause: the cache keeps no per-run state a
pause could lose. The lookup made before the ``Ask`` is dropped with the paused run's end;
the approved call is looked up again when it runs, and its result is stored."""

from __future__ import annotations

from agenthooks_cache import CachePlugin
from test_cache_tools import Counter

from agenthooks import (
    Agent,
    Approve,
    Ask,
    HookBus,
    ProviderResponse,
    ScriptedProvider,
    ToolCall,
)


async def test_an_approved_call_is_looked_up_again_and_its_result_stored() -> None:
    tools = Counter()
    plugin = CachePlugin(responses=False, tools=True)
    bus = HookBus()
    bus.use(plugin)
    bus.on("pre_tool_call", lambda ctx: Ask("price?"), match="price", guard=True)

    def asking(call_id: str) -> ProviderResponse:
        return ProviderResponse(
            tool_calls=[ToolCall(id=call_id, name="price", arguments={"item": "tea"})]
        )

    provider = ScriptedProvider([asking("c1"), "one", asking("c2"), "two"])
    agent = Agent("shop", provider=provider, bus=bus, tools=[tools.price])
    assert (await agent.chat("price of tea?")).finish_reason == "paused"
    assert (plugin.stats.hits, plugin.stats.misses, plugin.stats.stores) == (0, 1, 0)

    assert (await agent.resume({"c1": Approve()})).content == "one"
    assert tools.runs == [("price", "tea")]
    assert (plugin.stats.hits, plugin.stats.misses, plugin.stats.stores) == (0, 2, 1)

    # a hit now: the guard still asks about it (guards judge cached results too)
    assert (await agent.chat("again?")).finish_reason == "paused"
    assert plugin.stats.hits == 1
    assert (await agent.resume({"c2": Approve()})).content == "two"
    assert tools.runs == [("price", "tea")]  # the answer came from the cache
