"""Backends: the in-memory LRU, a custom async backend, and backends that fail."""

from __future__ import annotations

import json

import pytest
import structlog
from agenthooks_cache import (
    CacheBackend,
    CacheConfigError,
    CachePlugin,
    MemoryBackend,
    RedisBackend,
)
from agenthooks_cache.codec import decode_result, encode_result
from pydantic import BaseModel

from agenthooks import (
    Agent,
    HookBus,
    ProviderResponse,
    ScriptedProvider,
    ToolCall,
    tool,
)


def test_memory_backend_is_an_lru_with_expiry() -> None:
    now = [0.0]
    backend = MemoryBackend(3, clock=lambda: now[0])
    assert isinstance(backend, CacheBackend)
    for key in "abc":
        backend.set(key, key.upper(), None)
    assert backend.get("a") == "A"  # a is now the most recently used
    backend.set("d", "D", None)
    assert backend.keys() == ["c", "a", "d"]  # b, the least recently used, went
    assert backend.get("b") is None
    backend.set("e", "E", 10)
    assert backend.keys() == ["a", "d", "e"]
    now[0] = 9
    assert backend.get("e") == "E"
    now[0] = 10
    assert backend.get("e") is None
    assert backend.keys() == ["a", "d"]
    backend.set("a", "A2", None)
    assert (backend.get("a"), backend.keys()) == ("A2", ["d", "a"])
    backend.clear()
    assert len(backend) == 0


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "10"])
def test_memory_backend_bound_must_be_positive(bad: object) -> None:
    with pytest.raises(CacheConfigError) as caught:
        MemoryBackend(bad)  # type: ignore[arg-type]
    assert (
        str(caught.value)
        == f"cache plugin: MemoryBackend: max_entries: {bad!r} is not a whole number >= 1"
    )


class DictBackend:
    """A custom async backend: what a user writes for their own store."""

    def __init__(self) -> None:
        self.data: dict[str, tuple[str, float | None]] = {}

    async def get(self, key: str) -> str | None:
        found = self.data.get(key)
        return None if found is None else found[0]

    async def set(self, key: str, value: str, ttl: float | None) -> None:
        self.data[key] = (value, ttl)


async def test_a_custom_async_backend_gets_json_entries() -> None:
    backend = DictBackend()
    bus = HookBus()
    bus.use(CachePlugin(backend=backend, tools=True, ttl=60))
    provider = ScriptedProvider([ProviderResponse(content="hi", finish_reason="length")])
    await Agent("a", provider=provider, bus=bus).chat("q")
    second = await Agent("a", provider=provider, bus=bus).chat("q")
    assert (second.content, second.finish_reason) == ("hi", "length")
    [(key, (entry, ttl))] = backend.data.items()
    assert key.startswith("response:") and ttl == 60.0
    assert json.loads(entry) == {
        "content": "hi",
        "tool_calls": [],
        "thinking_blocks": [],
        "finish_reason": "length",
        "usage": {
            "input_tokens": 0,
            "output_tokens": 0,
            "total_tokens": 0,
            "cost": 0.0,
            "cache_read_tokens": 0,
            "cache_write_tokens": 0,
        },
    }


class Broken:
    """A backend whose every operation fails."""

    def get(self, key: str) -> str | None:
        raise OSError("store is down")

    def set(self, key: str, value: str, ttl: float | None) -> None:
        raise OSError("store is down")


class WriteOnlyBroken(DictBackend):
    """Reads work, writes fail: the storing guard must not turn this into a deny."""

    async def set(self, key: str, value: str, ttl: float | None) -> None:
        raise OSError("disk full")


@tool
def double(x: int) -> int:
    """Twice x."""
    return 2 * x


def tool_script(runs: int) -> ScriptedProvider:
    return ScriptedProvider(
        [
            ProviderResponse(tool_calls=[ToolCall(id="c1", name="double", arguments={"x": 4})]),
            "eight",
        ]
        * runs
    )


@pytest.mark.parametrize("backend", [Broken(), WriteOnlyBroken()])
async def test_a_failing_backend_never_breaks_a_run(backend: object) -> None:
    bus = HookBus()  # errors="raise", and the storing handlers are guards (fail closed)
    plugin = CachePlugin(backend=backend, tools=True)  # type: ignore[arg-type]
    bus.use(plugin)
    provider = tool_script(2)
    with structlog.testing.capture_logs() as logs:
        for _ in range(2):
            response = await Agent("a", provider=provider, tools=[double], bus=bus).chat("2x4?")
            assert (response.content, response.finish_reason) == ("eight", "stop")
    assert len(provider.requests) == 4
    assert [m.content for m in provider.requests[1].messages if m.role == "tool"] == ["8"]
    failures = [e for e in logs if e["event"] == "cache_backend_failed"]
    per_call = ["get", "set"] if isinstance(backend, Broken) else ["set"]
    # per run: the first response, the tool result, the final response
    assert [e["operation"] for e in failures] == per_call * 3 * 2
    assert {e["log_level"] for e in failures} == {"warning"}
    assert plugin.stats.errors == len(failures) and plugin.stats.stores == 0


async def test_an_unreachable_redis_is_a_miss_not_a_failure() -> None:
    backend = RedisBackend("redis://127.0.0.1:1/0", prefix="agenthooks-test:unreachable:")
    bus = HookBus()
    plugin = CachePlugin(backend=backend, tools=True)
    bus.use(plugin)
    provider = tool_script(2)
    with structlog.testing.capture_logs() as logs:
        for _ in range(2):
            response = await Agent("a", provider=provider, tools=[double], bus=bus).chat("2x4?")
            assert response.content == "eight"
    assert len(provider.requests) == 4
    failures = [e for e in logs if e["event"] == "cache_backend_failed"]
    assert failures and all(e["error"].startswith("ConnectionError") for e in failures)
    assert plugin.stats.hits == 0
    await backend.aclose()


def test_tool_result_entries() -> None:
    class Quote(BaseModel):
        eur: float

    for value in ({"a": [1, 2.5, None, True]}, "text", 3, None, [1, "x"]):
        assert decode_result(encode_result(value)) == value
    assert decode_result(encode_result((1, 2))) == "[1, 2]"
    assert decode_result(encode_result({1: "a"})) == '{"1": "a"}'
    assert decode_result(encode_result(Quote(eur=1.5))) == '{"eur":1.5}'
