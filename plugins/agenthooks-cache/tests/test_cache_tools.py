"""Caching tool results through real agents: hits, the tool filter, what is never stored."""

from __future__ import annotations

from typing import Any

from agenthooks_cache import CachePlugin, tool_key
from pydantic import BaseModel

from agenthooks import (
    Agent,
    Deny,
    FinalResponse,
    HookBus,
    ProviderResponse,
    ScriptedProvider,
    ToolCall,
    ToolCallEnd,
    tool,
)


class Counter:
    """Tools that count their own executions."""

    def __init__(self) -> None:
        self.runs: list[tuple[str, Any]] = []

        @tool
        def price(item: str) -> dict[str, Any]:
            """The price of an item."""
            self.runs.append(("price", item))
            return {"item": item, "eur": 3.5}

        @tool
        def clock() -> str:
            """The time (never the same twice)."""
            self.runs.append(("clock", None))
            return f"tick {len(self.runs)}"

        @tool
        def fragile(item: str) -> str:
            """Always fails."""
            self.runs.append(("fragile", item))
            raise RuntimeError(f"no {item}")

        self.price, self.clock, self.fragile = price, clock, fragile


def calls_then_answer(*calls: tuple[str, dict[str, Any]], runs: int = 2) -> ScriptedProvider:
    """A script making the same tool calls in each of ``runs`` runs."""
    script: list[Any] = []
    for _ in range(runs):
        script.append(
            ProviderResponse(
                tool_calls=[
                    ToolCall(id=f"call_{i}", name=name, arguments=args)
                    for i, (name, args) in enumerate(calls)
                ]
            )
        )
        script.append("done")
    return ScriptedProvider(script)


def tool_messages(provider: ScriptedProvider) -> list[list[tuple[str | None, bool]]]:
    """Per request that follows tool calls: the tool messages the model read."""
    return [
        [(m.content, m.is_error) for m in r.messages if m.role == "tool"]
        for r in provider.requests[1::2]
    ]


async def run_twice(
    plugin: CachePlugin, tools: Counter, provider: ScriptedProvider, bus: HookBus | None = None
) -> list[Any]:
    bus = bus or HookBus()
    bus.use(plugin)
    ends: list[Any] = []
    for _ in range(2):
        agent = Agent(
            "shop", provider=provider, bus=bus, tools=[tools.price, tools.clock, tools.fragile]
        )
        async for item in agent.chat_stream("price of tea?"):
            if isinstance(item, (ToolCallEnd, FinalResponse)):
                ends.append(item)
    return ends


async def test_the_second_identical_call_never_runs_the_tool() -> None:
    tools = Counter()
    provider = calls_then_answer(("price", {"item": "tea"}))
    plugin = CachePlugin(responses=False, tools=True)
    ends = await run_twice(plugin, tools, provider)
    assert tools.runs == [("price", "tea")]
    assert len(provider.requests) == 4  # responses=False: the model is asked every time
    expected = [('{"item": "tea", "eur": 3.5}', False)]
    assert tool_messages(provider) == [expected, expected]
    first, second = (e for e in ends if isinstance(e, ToolCallEnd))
    assert first.result == second.result == {"item": "tea", "eur": 3.5}
    assert (plugin.stats.hits, plugin.stats.misses, plugin.stats.stores) == (1, 1, 1)


async def test_the_key_is_the_tool_name_and_its_arguments() -> None:
    tools = Counter()
    provider = ScriptedProvider(
        [
            ProviderResponse(
                tool_calls=[
                    ToolCall(id="a", name="price", arguments={"item": "tea"}),
                    ToolCall(id="b", name="price", arguments={"item": "cake"}),
                    ToolCall(id="c", name="price", arguments={"item": "tea"}),
                ]
            ),
            "done",
        ]
    )
    bus = HookBus()
    bus.use(CachePlugin(responses=False, tools=True))
    await Agent("shop", provider=provider, bus=bus, tools=[tools.price]).chat("prices")
    assert tools.runs == [("price", "tea"), ("price", "cake")]  # the third call was a hit
    assert tool_key("price", {"item": "tea"}) == tool_key("price", {"item": "tea"})
    assert tool_key("price", {"item": "tea"}) != tool_key("price", {"item": "cake"})
    assert tool_key("price", {"item": "tea"}) != tool_key("cost", {"item": "tea"})
    assert tool_key("t", {"a": 1, "b": 2}) == tool_key("t", {"b": 2, "a": 1})


async def test_only_the_named_tools_are_cached() -> None:
    tools = Counter()
    provider = calls_then_answer(("price", {"item": "tea"}), ("clock", {}))
    await run_twice(CachePlugin(responses=False, tools=["clock"]), tools, provider)
    assert tools.runs == [("price", "tea"), ("clock", None), ("price", "tea")]
    assert tool_messages(provider)[1][1] == ("tick 2", False)  # the cached first tick


async def test_tools_false_caches_only_responses() -> None:
    tools = Counter()
    provider = calls_then_answer(("price", {"item": "tea"}), runs=1)
    bus = HookBus()
    bus.use(CachePlugin(tools=False))
    assert bus.tool_stack.layers == ()
    for _ in range(2):
        await Agent("shop", provider=provider, bus=bus, tools=[tools.price]).chat("tea?")
    assert len(provider.requests) == 2
    assert tools.runs == [("price", "tea"), ("price", "tea")]


async def test_a_denied_result_is_not_stored() -> None:
    tools = Counter()
    provider = calls_then_answer(("price", {"item": "tea"}), runs=3)
    bus = HookBus()
    deny = bus.on("on_tool_call_result", lambda ctx: Deny("prices are secret"))
    bus.use(CachePlugin(responses=False, tools=True))
    await Agent("shop", provider=provider, bus=bus, tools=[tools.price]).chat("tea?")
    deny()
    guard = bus.on("on_tool_call_result", lambda ctx: Deny("still secret"), guard=True)
    await Agent("shop", provider=provider, bus=bus, tools=[tools.price]).chat("tea?")
    guard()
    await Agent("shop", provider=provider, bus=bus, tools=[tools.price]).chat("tea?")
    assert tools.runs == [("price", "tea")] * 3
    assert tool_messages(provider) == [
        [("prices are secret", True)],
        [("still secret", True)],
        [('{"item": "tea", "eur": 3.5}', False)],
    ]


async def test_a_pre_tool_call_deny_runs_and_stores_nothing() -> None:
    tools = Counter()
    provider = calls_then_answer(("price", {"item": "tea"}))
    bus = HookBus()
    bus.once("pre_tool_call", lambda ctx: Deny("not now"))
    plugin = CachePlugin(responses=False, tools=True)
    await run_twice(plugin, tools, provider, bus)
    assert tools.runs == [("price", "tea")]  # the denied first call never ran
    assert tool_messages(provider) == [
        [("not now", True)],
        [('{"item": "tea", "eur": 3.5}', False)],
    ]
    assert plugin.stats.stores == 1


async def test_errors_and_recoveries_are_not_stored() -> None:
    tools = Counter()
    provider = calls_then_answer(("fragile", {"item": "milk"}), runs=3)
    bus = HookBus()
    plugin = CachePlugin(responses=False, tools=True)
    bus.use(plugin)
    for recovered in (False, True, False):
        with bus.connected(
            "on_tool_call_error",
            lambda ctx, r=recovered: {"result": "oat milk instead"} if r else None,
        ):
            await Agent("shop", provider=provider, bus=bus, tools=[tools.fragile]).chat("milk?")
    assert tools.runs == [("fragile", "milk")] * 3
    assert tool_messages(provider) == [
        [("RuntimeError: no milk", True)],
        [("oat milk instead", False)],
        [("RuntimeError: no milk", True)],
    ]
    assert plugin.stats.stores == 0
    assert plugin._pending == {}


async def test_a_non_json_result_is_replayed_as_the_text_the_model_read() -> None:
    class Quote(BaseModel):
        item: str
        eur: float

    runs: list[str] = []

    @tool
    def quote(item: str) -> Quote:
        """A price quote."""
        runs.append(item)
        return Quote(item=item, eur=2.0)

    @tool
    def pair(item: str) -> tuple[str, int]:
        """An item and its stock."""
        runs.append(item)
        return (item, 4)

    provider = calls_then_answer(("quote", {"item": "tea"}), ("pair", {"item": "tea"}))
    bus = HookBus()
    bus.use(CachePlugin(responses=False, tools=True))
    seen: list[Any] = []
    bus.on("on_tool_call_result", lambda ctx: seen.append(ctx.result))
    for _ in range(2):
        await Agent("shop", provider=provider, bus=bus, tools=[quote, pair]).chat("tea?")
    assert runs == ["tea", "tea"]
    first, second = tool_messages(provider)
    assert first == second == [('{"item":"tea","eur":2.0}', False), ('["tea", 4]', False)]
    assert seen == [
        Quote(item="tea", eur=2.0),
        ("tea", 4),
        '{"item":"tea","eur":2.0}',
        '["tea", 4]',
    ]


async def test_sub_agents_are_left_out_unless_named() -> None:
    async def orchestrate(tools: Any) -> list[str]:
        helper = Agent("helper", "Help.", provider=ScriptedProvider(["help 1", "help 2"]))
        provider = ScriptedProvider(
            [
                ProviderResponse(
                    tool_calls=[ToolCall(id="c", name="helper", arguments={"task": "assist"})]
                ),
                "done",
            ]
            * 2
        )
        bus = HookBus()
        bus.use(CachePlugin(responses=False, tools=tools))
        for _ in range(2):
            await Agent("boss", provider=provider, bus=bus, sub_agents=[helper]).chat("go")
        return [m[0][0] for m in tool_messages(provider)]

    assert await orchestrate(True) == ["help 1", "help 2"]
    assert await orchestrate(["helper"]) == ["help 1", "help 1"]
