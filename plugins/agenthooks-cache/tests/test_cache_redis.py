"""RedisBackend against the real Redis on 127.0.0.1:6379, each test under its own key prefix."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator

import pytest
import redis
from agenthooks_cache import CachePlugin, RedisBackend

from agenthooks import Agent, HookBus, ProviderResponse, ScriptedProvider, ToolCall, tool

pytestmark = pytest.mark.server

URL = "redis://127.0.0.1:6379/0"


@pytest.fixture
def prefix() -> Iterator[str]:
    """A key prefix no other test uses; every key under it is deleted afterwards."""
    value = f"agenthooks-test:{uuid.uuid4().hex}:"
    yield value
    client = redis.Redis.from_url(URL)
    try:
        keys = list(client.scan_iter(match=value + "*"))
        if keys:
            client.delete(*keys)
    finally:
        client.close()


@pytest.fixture
def server() -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(URL, decode_responses=True)
    yield client
    client.close()


@tool
def weather(city: str) -> dict[str, str]:
    """The weather in a city."""
    return {"city": city, "sky": "clear"}


def script() -> list[ProviderResponse | str]:
    return [
        ProviderResponse(
            tool_calls=[ToolCall(id="c1", name="weather", arguments={"city": "Oslo"})]
        ),
        "Clear skies in Oslo.",
    ]


async def test_entries_live_in_redis_with_their_ttl(prefix: str, server: redis.Redis) -> None:
    backend = RedisBackend(URL, prefix=prefix)
    bus = HookBus()
    bus.use(CachePlugin(backend=backend, tools=True, ttl=120))
    provider = ScriptedProvider(script())
    await Agent("w", provider=provider, tools=[weather], bus=bus).chat("Oslo?")
    keys = sorted(server.scan_iter(match=prefix + "*"))
    assert [k[len(prefix) :].split(":")[0] for k in keys] == ["response", "response", "tool"]
    for key in keys:
        assert 0 < server.pttl(key) <= 120_000
    [tool_entry] = [k for k in keys if ":tool:" in k]
    assert json.loads(server.get(tool_entry)) == {"value": {"city": "Oslo", "sky": "clear"}}
    second = await Agent("w", provider=provider, tools=[weather], bus=bus).chat("Oslo?")
    assert second.content == "Clear skies in Oslo."
    assert len(provider.requests) == 2
    await backend.aclose()


async def test_another_process_reads_the_same_entries(prefix: str) -> None:
    writer = RedisBackend(URL, prefix=prefix)
    bus = HookBus()
    bus.use(CachePlugin(backend=writer, tools=True))
    provider = ScriptedProvider(script())
    await Agent("w", provider=provider, tools=[weather], bus=bus).chat("Oslo?")
    await writer.aclose()

    reader = RedisBackend(URL, prefix=prefix)  # a fresh plugin and client: nothing in memory
    bus = HookBus()
    plugin = CachePlugin(backend=reader, tools=True)
    bus.use(plugin)
    fresh = ScriptedProvider([])
    response = await Agent("w", provider=fresh, tools=[weather], bus=bus).chat("Oslo?")
    assert response.content == "Clear skies in Oslo."
    assert len(fresh.requests) == 0
    assert (plugin.stats.hits, plugin.stats.misses) == (3, 0)
    await reader.aclose()


async def test_without_ttl_entries_do_not_expire(prefix: str, server: redis.Redis) -> None:
    backend = RedisBackend(URL, prefix=prefix)
    await backend.set("k", "v", None)
    await backend.set("t", "w", 99.0001)  # whole milliseconds, rounded up
    assert server.pttl(prefix + "k") == -1
    assert 98_000 < server.pttl(prefix + "t") <= 99_001
    assert await backend.get("k") == "v"
    assert await backend.get("missing") is None
    server.set("agenthooks-test:other:" + prefix, "kept")
    try:
        assert await backend.clear() == 2
        assert server.get("agenthooks-test:other:" + prefix) == "kept"
    finally:
        server.delete("agenthooks-test:other:" + prefix)
    await backend.aclose()


async def test_a_given_client_is_used_as_is(prefix: str) -> None:
    import redis.asyncio

    client = redis.asyncio.Redis.from_url(URL)  # bytes, not decoded
    backend = RedisBackend(prefix=prefix, client=client)
    await backend.set("k", "välue", 5)
    assert await backend.get("k") == "välue"
    await backend.aclose()  # not ours to close
    assert await client.get(prefix + "k") == "välue".encode()
    await client.aclose()


def test_one_backend_serves_several_event_loops(prefix: str) -> None:

    backend = RedisBackend(URL, prefix=prefix)
    bus = HookBus()
    bus.use(CachePlugin(backend=backend, tools=False))
    provider = ScriptedProvider(["cached across loops"])
    for _ in range(3):  # each asyncio.run is a new loop: a client per loop
        agent = Agent("w", provider=provider, bus=bus)
        assert agent.chat_sync("hello").content == "cached across loops"
    assert len(provider.requests) == 1


async def test_the_entry_point_uses_redis_when_given_a_url(
    prefix: str, monkeypatch: pytest.MonkeyPatch, server: redis.Redis
) -> None:
    monkeypatch.setenv("AGENTHOOKS_CACHE_REDIS_URL", URL)
    monkeypatch.setenv("AGENTHOOKS_CACHE_REDIS_PREFIX", prefix)
    monkeypatch.setenv("AGENTHOOKS_CACHE_TTL", "30")
    bus = HookBus(plugins=["cache"], strict=True)
    plugin = bus.plugins["cache"].plugin
    assert isinstance(plugin, CachePlugin)
    assert isinstance(plugin.backend, RedisBackend) and plugin.backend.prefix == prefix
    provider = ScriptedProvider(["from redis"])
    for _ in range(2):
        assert (await Agent("w", provider=provider, bus=bus).chat("q")).content == "from redis"
    assert len(provider.requests) == 1
    [key] = server.scan_iter(match=prefix + "response:*")
    assert 0 < server.pttl(key) <= 30_000
    await plugin.backend.aclose()
