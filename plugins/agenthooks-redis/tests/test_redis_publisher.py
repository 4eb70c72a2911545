"""RedisEventPublisher against the real Redis: the entries, their order, closing, the bounds."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
import redis
from agenthooks_redis import RedisConfigError, RedisEventPublisher
from agenthooks_redis.entry import RECORD_KEYS
from redis_support import calc_agent, free_port, own_redis
from structlog.testing import capture_logs

from agenthooks import (
    Agent,
    Approve,
    Ask,
    HookBus,
    ProviderResponse,
    ScriptedProvider,
    Session,
    ToolCall,
    tool,
)
from agenthooks.events import EventRecord
from agenthooks.plugins import PluginError
from agenthooks.stores import SQLiteStore
from agenthooks.testing import assert_option_error

pytestmark = pytest.mark.server


def recorded(bus: HookBus) -> list[EventRecord]:
    """Every on_event record of ``bus``, as its in-process handlers see them."""
    seen: list[EventRecord] = []
    bus.on("on_event", seen.append)
    return seen


@tool
def refund(order: int) -> str:
    """Refund an order."""
    return "refunded"


def refund_agent(bus: HookBus, *script: str | ProviderResponse) -> Agent:
    """An agent whose refunds a manager must approve, answering with ``script``."""
    agent = Agent("support", provider=ScriptedProvider(list(script)), tools=[refund], bus=bus)
    agent.on("pre_tool_call", lambda ctx: Ask("a manager decides"))
    return agent


REFUND_7 = ProviderResponse(tool_calls=[ToolCall(id="r1", name="refund", arguments={"order": 7})])


def entries(server: redis.Redis, stream: str) -> list[dict[str, str]]:
    return [fields for _id, fields in server.xrange(stream)]


async def test_every_record_is_one_entry_with_the_four_fields(
    url: str, prefix: str, server: redis.Redis
) -> None:
    stream = prefix + "events"
    publisher = RedisEventPublisher(url, stream=stream)
    bus = HookBus()
    bus.use(publisher)
    seen = recorded(bus)
    for _ in range(2):
        assert (await calc_agent(bus).chat("2+3?")).content == "5"
    await publisher.aclose()
    rows = entries(server, stream)
    assert len(rows) == len(seen) == 48
    assert all(sorted(fields) == ["record", "run_id", "seq", "type"] for fields in rows)
    runs = sorted({r.run_id for r in seen})
    for run_id in runs:
        mine = [f for f in rows if f["run_id"] == run_id]
        assert [int(f["seq"]) for f in mine] == list(range(1, 25))
        assert [f["type"] for f in mine] == [r.type for r in seen if r.run_id == run_id]
    records = [json.loads(f["record"]) for f in rows]
    assert all(list(r) == ["schema", *RECORD_KEYS] and r["schema"] == 1 for r in records)
    assert all(r["type"] == f["type"] and r["run_id"] == f["run_id"] for r, f in zip(records, rows))
    [result] = [r for r in records if r["type"] == "on_tool_call_result"][:1]
    assert (result["tool_name"], result["tool_call_id"], result["output"]) == ("add", "c1", 5)
    assert result["input"] == {"a": 2, "b": 3} and result["is_error"] is False
    assert publisher.stats.sent == 48 and publisher.stats.dropped == 0


async def test_entries_of_each_run_reach_the_stream_in_seq_order(
    url: str, prefix: str, server: redis.Redis
) -> None:
    stream = prefix + "events"
    publisher = RedisEventPublisher(url, stream=stream, batch=7)
    bus = HookBus()
    bus.use(publisher)
    await asyncio.gather(*(calc_agent(bus).chat("2+3?") for _ in range(20)))
    await publisher.aclose()
    rows = entries(server, stream)
    assert len(rows) == 480
    by_run: dict[str, list[int]] = {}
    for fields in rows:
        by_run.setdefault(fields["run_id"], []).append(int(fields["seq"]))
    assert len(by_run) == 20
    assert all(seqs == list(range(1, 25)) for seqs in by_run.values())


def test_built_and_installed_outside_a_loop_across_two_loops(
    url: str, prefix: str, server: redis.Redis
) -> None:
    stream = prefix + "events"
    publisher = RedisEventPublisher(url, stream=stream)
    bus = HookBus()
    dispose = bus.use(publisher)
    for _ in range(2):  # chat_sync: asyncio.run, a new loop each time
        assert calc_agent(bus).chat_sync("2+3?").content == "5"
    dispose()  # flushes what the second loop left buffered
    assert server.xlen(stream) == 48
    asyncio.run(publisher.aclose())  # the second close is a no-op
    assert publisher.stats.sent == 48 and publisher.buffered == 0


async def test_the_disposer_flushes_before_it_returns(
    url: str, prefix: str, server: redis.Redis
) -> None:
    stream = prefix + "events"
    publisher = RedisEventPublisher(url, stream=stream)
    bus = HookBus()
    dispose = bus.use(publisher)
    await calc_agent(bus).chat("2+3?")
    dispose()  # synchronous, inside the running loop, before the sender had its turn
    assert server.xlen(stream) == 24
    assert "redis" not in bus.plugins and bus.handlers("on_event") == []
    await publisher.aclose()
    await calc_agent(bus).chat("2+3?")  # no longer installed: nothing published or counted
    assert server.xlen(stream) == 24
    assert (publisher.stats.sent, publisher.stats.dropped) == (24, 0)


async def test_aclose_flushes_and_removes_it_then_the_disposer_is_a_no_op(
    url: str, prefix: str, server: redis.Redis
) -> None:
    stream = prefix + "events"
    publisher = RedisEventPublisher(url, stream=stream)
    bus = HookBus()
    dispose = bus.use(publisher)
    await calc_agent(bus).chat("2+3?")
    await publisher.aclose()
    assert server.xlen(stream) == 24 and bus.handlers("on_event") == []
    dispose()
    await publisher.aclose()
    assert server.xlen(stream) == 24 and publisher.stats.sent == 24


async def test_redis_down_the_run_completes_and_every_drop_is_counted(prefix: str) -> None:
    closed = f"redis://127.0.0.1:{free_port()}/0"
    publisher = RedisEventPublisher(
        closed, stream=prefix + "events", buffer=5, batch=5, timeout=0.5, flush_timeout=0.5
    )
    bus = HookBus()
    bus.use(publisher)
    with capture_logs() as logs:
        response = await calc_agent(bus).chat("2+3?")
        await publisher.aclose()
    assert response.content == "5"
    assert (publisher.stats.sent, publisher.stats.dropped, publisher.buffered) == (0, 24, 0)
    drops = [line for line in logs if line["event"] == "redis_events_dropped"]
    assert sum(line["dropped"] for line in drops) == 24 and drops[-1]["total"] == 24
    assert all(line["log_level"] == "warning" and line["buffer"] == 5 for line in drops)
    [incomplete] = [line for line in logs if line["event"] == "redis_flush_incomplete"]
    assert (incomplete["lost"], incomplete["how"]) == (5, "aclose")


async def test_publishing_resumes_when_redis_comes_back(tmp_path: Path) -> None:
    with own_redis(tmp_path) as own:
        publisher = RedisEventPublisher(own.url, stream="events", timeout=0.5)
        bus = HookBus()
        bus.use(publisher)
        client = redis.Redis.from_url(own.url, decode_responses=True)
        with capture_logs() as logs:
            await calc_agent(bus).chat("2+3?")
            await until(lambda: publisher.stats.sent == 24)
            own.stop()
            await calc_agent(bus).chat("2+3?")  # buffered while Redis is down
            await until(lambda: publisher.stats.failed_batches > 0)
            own.start()  # the same port, empty (no persistence)
            await until(lambda: publisher.stats.sent == 48)
        await publisher.aclose()
        rows = entries(client, "events")
        client.close()
    assert [int(f["seq"]) for f in rows] == list(range(1, 25))
    assert publisher.stats.dropped == 0
    events = [line["event"] for line in logs]
    assert events.count("redis_publish_failed") == 1 and events.count("redis_publish_resumed") == 1
    assert events.index("redis_publish_failed") < events.index("redis_publish_resumed")


async def test_redis_stopped_in_the_middle_of_a_run(tmp_path: Path) -> None:
    with own_redis(tmp_path) as own:
        publisher = RedisEventPublisher(
            own.url, stream="events", buffer=8, batch=4, timeout=0.5, flush_timeout=0.5
        )
        bus = HookBus()
        bus.use(publisher)
        bus.on("on_tool_call_result", lambda ctx: own.stop())  # Redis goes away mid-run
        response = await calc_agent(bus).chat("2+3?")
        await publisher.aclose()
        own.start()  # empty again: what reached the old one is gone with it
    assert response.content == "5"
    assert publisher.stats.sent + publisher.stats.dropped == 24
    assert publisher.stats.dropped >= 24 - 11  # at most the 11 records before the stop got out


async def until(condition: object, limit: float = 30.0) -> None:
    """Wait for ``condition()`` (polling); fail after ``limit`` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    while not condition():  # type: ignore[operator]
        if loop.time() > deadline:
            raise AssertionError("condition not reached")
        await asyncio.sleep(0.01)


async def test_the_stream_is_bounded(url: str, prefix: str, server: redis.Redis) -> None:
    stream = prefix + "events"
    publisher = RedisEventPublisher(url, stream=stream, maxlen=50)
    bus = HookBus()
    bus.use(publisher)
    for _ in range(10):
        await calc_agent(bus).chat("2+3?")
    await publisher.aclose()
    node = int(server.config_get("stream-node-max-entries")["stream-node-max-entries"])
    assert publisher.stats.sent == 240
    assert 50 <= server.xlen(stream) <= 50 + node  # MAXLEN ~: whole nodes are trimmed


async def test_a_resumed_run_continues_its_seq(url: str, prefix: str, server: redis.Redis) -> None:
    stream = prefix + "events"
    first = RedisEventPublisher(url, stream=stream)
    first.publish(EventRecord(type="on_chat_start", run_id="run-1"))
    first.publish(EventRecord(type="on_chat_done", run_id="run-1"))
    stored = first.last_seq("run-1")  # what a paused run keeps with its state
    await first.aclose()
    second = RedisEventPublisher(url, stream=stream)  # another process resumes it
    second.resume_seq("run-1", stored)
    second.publish(EventRecord(type="on_chat_start", run_id="run-1"))
    await second.aclose()
    assert [(f["seq"], f["type"]) for f in entries(server, stream)] == [
        ("1", "on_chat_start"),
        ("2", "on_chat_done"),
        ("3", "on_chat_start"),
    ]


@pytest.mark.parametrize(
    ("options", "key", "problem"),
    [
        ({"buffer": 0}, "buffer", "0: Input should be greater than or equal to 1"),
        ({"maxlen": -5}, "maxlen", "-5: Input should be greater than or equal to 1"),
        ({"timeout": 0}, "timeout", "0: Input should be greater than 0"),
        ({"stream": ""}, "stream", "'': String should have at least 1 character"),
        ({"buffer": 10, "batch": 20}, "batch", "20 is larger than the buffer (10)"),
        (
            {"url": "http://127.0.0.1"},
            "url",
            "Redis URL must specify one of the following schemes (redis://, rediss://, unix://)",
        ),
    ],
)
def test_bad_options_name_the_option(options: dict[str, object], key: str, problem: str) -> None:
    error = assert_option_error(
        lambda: RedisEventPublisher(**options),  # type: ignore[arg-type]
        key=key,
        source="RedisEventPublisher",
        says=problem,
    )
    assert isinstance(error, RedisConfigError)
    assert str(error).startswith(f"redis plugin: RedisEventPublisher: {key}: ")


async def test_the_entry_point_reads_the_environment(
    url: str, prefix: str, server: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AGENTHOOKS_REDIS_URL", raising=False)
    monkeypatch.setenv("AGENTHOOKS_REDIS_STREAM", prefix + "events")
    monkeypatch.setenv("AGENTHOOKS_REDIS_BUFFER", "500")
    bus = HookBus(plugins=["redis"], strict=True)
    publisher = bus.plugins["redis"].plugin
    assert isinstance(publisher, RedisEventPublisher)
    assert (publisher.url, publisher.stream) == ("redis://127.0.0.1:6379/0", prefix + "events")
    assert (publisher.buffer, publisher.maxlen, publisher.batch) == (500, 100_000, 500)
    assert bus.plugins["redis"].distribution == "agenthooks-redis"
    await calc_agent(bus).chat("2+3?")
    await publisher.aclose()
    assert server.xlen(prefix + "events") == 24


def test_a_bad_variable_names_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTHOOKS_REDIS_BUFFER", "lots")
    with pytest.raises(PluginError) as caught:
        HookBus(plugins=["redis"], strict=True)
    assert str(caught.value) == (
        "plugin 'redis' (distribution agenthooks-redis) failed: RedisConfigError: redis plugin: "
        "environment: AGENTHOOKS_REDIS_BUFFER: 'lots': Input should be a valid integer, unable "
        "to parse string as an integer"
    )
    monkeypatch.delenv("AGENTHOOKS_REDIS_BUFFER")
    monkeypatch.setenv("AGENTHOOKS_REDIS_STRAEM", "events")
    assert_option_error(
        RedisEventPublisher.from_env,
        key="AGENTHOOKS_REDIS_STRAEM",
        closest="AGENTHOOKS_REDIS_STREAM",
        source="environment",
    )


async def test_a_run_resumed_in_another_process_continues_its_seq_by_itself(
    url: str, prefix: str, server: redis.Redis, tmp_path: Path
) -> None:
    stream = prefix + "events"
    store = SQLiteStore(tmp_path / "sessions.db")
    pausing = RedisEventPublisher(url, stream=stream)
    bus = HookBus()
    bus.use(pausing)
    first = recorded(bus)
    paused = await Session(refund_agent(bus, REFUND_7), store=store, session_id="t-1").chat(
        "refund 7"
    )
    assert paused.finish_reason == "paused"
    await pausing.aclose()
    resuming = RedisEventPublisher(url, stream=stream)  # a new process knows nothing of the run
    other = HookBus()
    other.use(resuming)
    second = recorded(other)
    done = await Session(refund_agent(other, "refunded"), store=store, session_id="t-1").resume(
        {"r1": Approve()}
    )
    await resuming.aclose()
    assert done.content == "refunded"
    rows = entries(server, stream)
    assert {f["run_id"] for f in rows} == {r.run_id for r in first} == {r.run_id for r in second}
    assert [int(f["seq"]) for f in rows] == list(range(1, len(first) + len(second) + 1))
    assert [f["type"] for f in rows] == [r.type for r in first + second]
    assert rows[len(first)]["type"] == "on_run_resumed"
