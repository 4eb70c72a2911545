"""Caching provider responses through real agents: hits, misses, what is never stored."""

from __future__ import annotations

from typing import Any

import pytest
from agenthooks_cache import CachePlugin, MemoryBackend, response_key

from agenthooks import (
    Agent,
    ChatMessage,
    Deny,
    HookBus,
    ProviderHTTPError,
    ProviderRequest,
    ProviderResponse,
    ScriptedProvider,
    TextDelta,
    Usage,
)


def answer(text: str, tokens: int = 12) -> ProviderResponse:
    return ProviderResponse(
        content=text, usage=Usage(input_tokens=tokens - 2, output_tokens=2, total_tokens=tokens)
    )


def cached_bus(**options: Any) -> tuple[HookBus, CachePlugin]:
    bus = HookBus()
    plugin = CachePlugin(tools=False, **options)
    bus.use(plugin)
    return bus, plugin


async def test_the_second_identical_run_never_calls_the_provider() -> None:
    bus, plugin = cached_bus()
    responses: list[ProviderResponse] = []
    bus.on("on_response", lambda ctx: responses.append(ctx.response))
    provider = ScriptedProvider([answer("Paris"), answer("must not be used")])
    first = await Agent("geo", "Answer briefly.", provider=provider, bus=bus).chat("Capital?")
    second = await Agent("geo", "Answer briefly.", provider=provider, bus=bus).chat("Capital?")
    assert len(provider.requests) == 1
    assert (first.content, second.content) == ("Paris", "Paris")
    assert second.iterations == 1  # a cache hit is a turn
    assert (first.usage.total_tokens, second.usage.total_tokens) == (12, 0)
    assert [r.raw for r in responses] == [
        None,
        {"cached": True, "key": response_key(provider.requests[0], provider)},
    ]
    assert (plugin.stats.hits, plugin.stats.misses, plugin.stats.stores) == (1, 1, 1)


async def test_a_different_request_is_a_miss() -> None:
    bus, _ = cached_bus()
    provider = ScriptedProvider(["one", "two", "three", "four"])
    await Agent("a", "Be brief.", provider=provider, bus=bus).chat("q")
    await Agent("a", "Be brief.", provider=provider, bus=bus).chat("another q")
    await Agent("a", "Be verbose.", provider=provider, bus=bus).chat("q")
    await Agent("a", "Be brief.", provider=provider, bus=bus, temperature=0.7).chat("q")
    assert len(provider.requests) == 4
    assert (await Agent("a", "Be brief.", provider=provider, bus=bus).chat("q")).content == "one"


def test_every_field_of_the_request_is_part_of_the_key() -> None:
    base = ProviderRequest(
        model="m",
        system="s",
        messages=[ChatMessage(role="user", content="hi")],
        tools=[{"name": "t"}],
        tool_choice="auto",
        temperature=0.2,
        reasoning_effort="low",
    )
    provider = ScriptedProvider(["x"])
    key = response_key(base, provider)
    assert key == response_key(base.model_copy(), provider)
    assert key.startswith("response:") and len(key) == len("response:") + 64
    changes: list[dict[str, Any]] = [
        {"model": "m2"},
        {"system": "s2"},
        {"messages": []},
        {"tools": []},
        {"tool_choice": "none"},
        {"temperature": 0.3},
        {"reasoning_effort": "high"},
        {"messages": [ChatMessage(role="user", content="hi!")]},
    ]
    keys = {response_key(base.model_copy(update=change), provider) for change in changes}
    assert len(keys) == len(changes) and key not in keys
    assert response_key(base, ScriptedProvider(["x"], name="other")) != key


async def test_a_cached_response_streams_as_one_chunk() -> None:
    bus, _ = cached_bus()
    provider = ScriptedProvider(["one two three"])

    async def deltas() -> list[str]:
        agent = Agent("s", provider=provider, bus=bus)
        return [i.text async for i in agent.chat_stream("go") if isinstance(i, TextDelta)]

    assert await deltas() == ["one ", "two ", "three"]
    assert await deltas() == ["one two three"]
    assert len(provider.requests) == 1


async def test_failed_and_recovered_calls_are_never_stored() -> None:
    bus, plugin = cached_bus()
    provider = ScriptedProvider(
        [
            ProviderHTTPError("HTTP 503: busy", status=503),
            ProviderHTTPError("HTTP 503: busy", status=503),
            "real answer",
            "unused",
        ]
    )
    with pytest.raises(ProviderHTTPError):
        await Agent("a", provider=provider, bus=bus).chat("q")
    recover = bus.on(
        "on_model_error", lambda ctx: {"response": ProviderResponse(content="stand-in")}
    )
    assert (await Agent("a", provider=provider, bus=bus).chat("q")).content == "stand-in"
    recover()
    assert (await Agent("a", provider=provider, bus=bus).chat("q")).content == "real answer"
    assert (await Agent("a", provider=provider, bus=bus).chat("q")).content == "real answer"
    assert len(provider.requests) == 3
    assert plugin.stats.stores == 1
    assert plugin._pending == {}


async def test_a_denied_response_is_not_stored() -> None:
    bus, plugin = cached_bus()
    provider = ScriptedProvider(["leaked secret", "clean answer"])
    deny = bus.on("on_response", lambda ctx: Deny("withheld"))
    denied = await Agent("a", provider=provider, bus=bus).chat("q")
    assert (denied.content, denied.finish_reason) == ("withheld", "denied")
    deny()
    guard = bus.on(
        "on_response",
        lambda ctx: Deny("policy") if "secret" in (ctx.response.content or "") else None,
        guard=True,
    )
    assert (await Agent("a", provider=provider, bus=bus).chat("q")).content == "clean answer"
    guard()
    assert (await Agent("a", provider=provider, bus=bus).chat("q")).content == "clean answer"
    assert len(provider.requests) == 2
    assert plugin.stats.stores == 1


async def test_what_is_stored_is_what_the_provider_returned() -> None:
    bus, _ = cached_bus()
    bus.on(
        "on_response",
        lambda ctx: {
            "response": ctx.response.model_copy(
                update={"content": f"{ctx.response.content} [checked]"}
            )
        },
    )
    provider = ScriptedProvider(["hello"])
    first = await Agent("a", provider=provider, bus=bus).chat("q")
    second = await Agent("a", provider=provider, bus=bus).chat("q")
    assert (first.content, second.content) == ("hello [checked]", "hello [checked]")


async def test_another_short_circuit_is_not_stored() -> None:
    bus, plugin = cached_bus()
    bus.once("pre_request", lambda ctx: {"response": ProviderResponse(content="canned")})
    provider = ScriptedProvider(["live"])
    assert (await Agent("a", provider=provider, bus=bus).chat("q")).content == "canned"
    assert (await Agent("a", provider=provider, bus=bus).chat("q")).content == "live"
    assert (await Agent("a", provider=provider, bus=bus).chat("q")).content == "live"
    assert len(provider.requests) == 1
    assert plugin.stats.stores == 1


async def test_entries_expire_after_the_ttl() -> None:
    now = [100.0]
    bus, _ = cached_bus(ttl=30, backend=MemoryBackend(clock=lambda: now[0]))
    provider = ScriptedProvider(["first", "second"])
    assert (await Agent("a", provider=provider, bus=bus).chat("q")).content == "first"
    now[0] += 29
    assert (await Agent("a", provider=provider, bus=bus).chat("q")).content == "first"
    now[0] += 1
    assert (await Agent("a", provider=provider, bus=bus).chat("q")).content == "second"
    assert len(provider.requests) == 2


async def test_the_least_recently_used_entry_is_evicted() -> None:
    bus, plugin = cached_bus(max_entries=2)
    provider = ScriptedProvider(["A", "B", "C", "A again"])
    for question in ("a", "b", "a", "c"):  # the second "a" is a hit: "b" is now the oldest
        await Agent("x", provider=provider, bus=bus).chat(question)
    assert len(provider.requests) == 3
    assert len(plugin.backend) == 2  # type: ignore[arg-type]
    assert (await Agent("x", provider=provider, bus=bus).chat("a")).content == "A"
    assert (await Agent("x", provider=provider, bus=bus).chat("c")).content == "C"
    assert (await Agent("x", provider=provider, bus=bus).chat("b")).content == "A again"


async def test_every_turn_of_a_tool_using_run_is_cached() -> None:
    from agenthooks import ToolCall, tool

    runs: list[int] = []

    @tool
    def lookup(city: str) -> str:
        """Weather of a city."""
        runs.append(1)
        return "sunny"

    bus, _ = cached_bus()
    provider = ScriptedProvider(
        [
            ProviderResponse(
                tool_calls=[ToolCall(id="c1", name="lookup", arguments={"city": "Oslo"})]
            ),
            "Sunny in Oslo.",
        ]
    )
    for _ in range(2):
        response = await Agent("w", provider=provider, tools=[lookup], bus=bus).chat("Oslo?")
        assert (response.content, response.iterations) == ("Sunny in Oslo.", 2)
    assert len(provider.requests) == 2
    assert len(runs) == 2  # tools=False: the tool itself ran both times


async def test_removing_the_plugin_removes_every_part() -> None:
    bus = HookBus()
    dispose = bus.use(CachePlugin(tools=True))
    assert len(bus.provider_stack) == len(bus.tool_stack) == 1
    dispose()
    assert (bus.provider_stack.layers, bus.tool_stack.layers, bus.listened) == ((), (), frozenset())
    assert "cache" not in bus.plugins
