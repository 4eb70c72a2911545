"""Counters in Redis: a budget shared by four worker processes holds, and the store keeps the
plugin's per-run semantics."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import redis
from agenthooks_limits import Cap, Limits, RateLimit, RedisStore, parse_limits

from agenthooks import Agent, HookBus, ProviderResponse, ScriptedProvider, StopRun, ToolCall, tool

pytestmark = [pytest.mark.subprocess, pytest.mark.server]

HERE = Path(__file__).resolve().parent


def test_a_budget_shared_by_four_processes(redis_url: str, redis_prefix: str) -> None:
    concurrent = 3
    workers = [
        subprocess.Popen(
            [
                sys.executable,
                str(HERE / "limits_worker.py"),
                redis_url,
                redis_prefix,
                str(concurrent),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    results = []
    for process in workers:
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0, err
        results.append(json.loads(out))
    tool_runs = sum(r["tool_runs"] for r in results)
    model_calls = sum(r["model_calls"] for r in results)
    assert tool_runs == 12  # counted atomically before each call: never exceeded
    in_flight = 4 * concurrent  # model calls that can be under way at once
    assert 10 <= model_calls <= 10 + in_flight  # $0.10 at $0.01 a call, plus what was in flight
    assert all(r["stopped"] == concurrent for r in results)  # every run that went on was stopped
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        assert round(float(client.get(redis_prefix + "budget:cost")), 6) == round(
            model_calls * 0.01, 6
        )
        assert int(float(client.get(redis_prefix + "budget:tool_calls"))) == 12
    finally:
        client.close()


@tool
def search(q: str) -> str:
    """Search."""
    return f"results for {q}"


def searches(count: int) -> ScriptedProvider:
    calls = [ToolCall(id=f"c{i}", name="search", arguments={"q": str(i)}) for i in range(count)]
    return ScriptedProvider([ProviderResponse(tool_calls=calls), "done"])


async def test_per_run_caps_and_rate_limits_in_redis(redis_url: str, redis_prefix: str) -> None:
    store = RedisStore(redis_url, prefix=redis_prefix)
    limits = Limits(
        max_calls_per_tool={"search": 2},
        rate_limits={"search": RateLimit(3, per=60, shared=True)},
        store=store,
    )
    bus = HookBus()
    bus.use(limits)
    first = searches(3)
    await Agent("a", provider=first, tools=[search], bus=bus).chat("go")
    contents = [m.content for m in first.requests[1].messages if m.role == "tool"]
    assert contents == [
        "results for 0",
        "results for 1",
        'Tool call "search" was denied (tool call limit for "search": 2 of 2 calls used)',
    ]
    second = searches(2)  # a new run: its own per-run cap, the shared window has 1 call left
    await Agent("a", provider=second, tools=[search], bus=bus).chat("go")
    contents = [m.content for m in second.requests[1].messages if m.role == "tool"]
    assert contents == [
        "results for 0",
        'Tool call "search" was denied (rate limit for "search": 3 calls in the last 60 '
        "seconds, the limit is 3)",
    ]
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        assert sorted(client.scan_iter(match=redis_prefix + "*")) == [redis_prefix + "rate:search"]
        assert client.zcard(redis_prefix + "rate:search") == 3  # per-run keys went with their runs
    finally:
        client.close()
    await store.aclose()


async def test_the_store_is_chosen_in_the_limits_file(redis_url: str, redis_prefix: str) -> None:
    arguments = parse_limits(
        f'[store]\nurl = "{redis_url}"\nprefix = "{redis_prefix}"\n\n[budget]\nmax_turns = 1\n'
    )
    assert isinstance(arguments["store"], RedisStore) and arguments["store"].prefix == redis_prefix
    limits = Limits(**arguments)
    bus = HookBus()
    bus.use(limits)
    provider = ScriptedProvider(["one", "two"])
    await Agent("a", provider=provider, bus=bus).chat("first")
    try:
        await Agent("a", provider=provider, bus=bus).chat("second")
    except StopRun as stop:
        assert stop.reason == "shared budget: turn limit: 1 of 1 turns used"
    else:
        raise AssertionError("the second run was not stopped")
    assert len(provider.requests) == 1
    assert isinstance(limits.budget["max_turns"], Cap)
    await arguments["store"].aclose()


async def test_a_budget_in_memory_is_shared_by_the_runs_of_one_process() -> None:
    bus = HookBus()
    bus.use(Limits(budget={"max_tool_calls": 3}))
    first, second = searches(2), searches(2)
    await Agent("a", provider=first, tools=[search], bus=bus).chat("go")
    await Agent("a", provider=second, tools=[search], bus=bus).chat("go")
    contents = [
        m.content for p in (first, second) for m in p.requests[1].messages if m.role == "tool"
    ]
    assert contents == [
        "results for 0",
        "results for 1",
        "results for 0",
        'Tool call "search" was denied (tool call limit: 3 of 3 tool calls used)',
    ]
