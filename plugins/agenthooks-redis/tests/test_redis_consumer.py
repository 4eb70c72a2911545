"""RedisEventConsumer against the real Redis: handlers as on a bus, order, duplicates, gaps,
failures, dead consumers, a clean stop."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from typing import Any

import pytest
import redis
from agenthooks_redis import RedisEventConsumer, StreamRecord
from structlog.testing import capture_logs

from agenthooks import RegistrationError, UnknownEventError

pytestmark = pytest.mark.server


def write(
    server: redis.Redis,
    stream: str,
    run_id: str,
    seq: int,
    event: str = "on_message",
    tool: str | None = None,
) -> str:
    """Add one event entry as a publisher would."""
    record = {"schema": 1, "type": event, "run_id": run_id, "agent": "a", "tool_name": tool}
    fields = {"run_id": run_id, "seq": seq, "type": event, "record": json.dumps(record)}
    return str(server.xadd(stream, fields))


async def until(condition: Callable[[], bool], limit: float = 30.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    while not condition():
        if loop.time() > deadline:
            raise AssertionError("condition not reached")
        await asyncio.sleep(0.01)


async def consume(consumer: RedisEventConsumer, done: Callable[[], bool]) -> None:
    """Run ``consumer`` until ``done()``, then stop it cleanly."""
    task = asyncio.create_task(consumer.run())
    try:
        await until(lambda: done() or task.done())
    finally:
        consumer.stop()
        await task


def make(url: str, prefix: str, **options: Any) -> RedisEventConsumer:
    options.setdefault("group", "g")
    options.setdefault("consumer", "c1")
    return RedisEventConsumer(url, stream=prefix + "events", **options)


async def test_handlers_by_event_alias_and_tool_name(
    url: str, prefix: str, server: redis.Redis
) -> None:
    stream = prefix + "events"
    write(server, stream, "r1", 1, "on_chat_start")
    write(server, stream, "r1", 2, "pre_tool_call", "add")
    write(server, stream, "r1", 3, "pre_tool_call", "search")
    write(server, stream, "r1", 4, "on_chat_done")
    consumer = make(url, prefix)
    every: list[tuple[str, int, str]] = []
    tools: list[str | None] = []
    done: list[int] = []
    gone: list[int] = []
    consumer.on("on_event", lambda r: every.append((r.run_id, r.seq, r.type)))
    consumer.on("PreToolUse", lambda r: tools.append(r.tool_name), match=re.compile("^ad"))

    @consumer.on("onChatDone")
    async def finished(record: StreamRecord) -> None:
        done.append(record.seq)

    dispose = consumer.on("on_chat_start", lambda r: gone.append(r.seq))
    dispose()
    await consume(consumer, lambda: len(every) == 4)
    assert every == [
        ("r1", 1, "on_chat_start"),
        ("r1", 2, "pre_tool_call"),
        ("r1", 3, "pre_tool_call"),
        ("r1", 4, "on_chat_done"),
    ]
    assert (tools, done, gone) == (["add"], [4], [])
    assert server.xpending(stream, "g")["pending"] == 0
    assert consumer.stats.handled == 4


async def test_each_run_in_seq_order_and_duplicates_removed(
    url: str, prefix: str, server: redis.Redis
) -> None:
    stream = prefix + "events"
    for run_id, seq in [
        ("r1", 2),
        ("r1", 1),
        ("r2", 1),
        ("r1", 1),
        ("r1", 3),
        ("r2", 2),
        ("r1", 2),
    ]:
        write(server, stream, run_id, seq)
    consumer = make(url, prefix)
    seen: list[tuple[str, int]] = []
    consumer.on("on_message", lambda r: seen.append((r.run_id, r.seq)))
    await consume(consumer, lambda: consumer.stats.handled + consumer.stats.duplicates == 7)
    assert [s for r, s in seen if r == "r1"] == [1, 2, 3]
    assert [s for r, s in seen if r == "r2"] == [1, 2]
    assert (consumer.stats.handled, consumer.stats.duplicates) == (5, 2)
    assert server.xpending(stream, "g")["pending"] == 0


async def test_two_consumers_of_a_group_keep_each_runs_order(
    url: str, prefix: str, server: redis.Redis
) -> None:
    stream = prefix + "events"
    for seq in range(1, 11):
        for run_id in ("r1", "r2", "r3"):
            write(server, stream, run_id, seq)
    seen: list[tuple[str, int, str]] = []
    first = make(url, prefix, consumer="c1", count=1)
    second = make(url, prefix, consumer="c2", count=1)
    for consumer in (first, second):
        name = consumer.consumer
        consumer.on("on_message", lambda r, name=name: seen.append((r.run_id, r.seq, name)))
    tasks = [asyncio.create_task(c.run()) for c in (first, second)]
    await until(lambda: len(seen) == 30)
    for consumer in (first, second):
        consumer.stop()
    await asyncio.gather(*tasks)
    for run_id in ("r1", "r2", "r3"):
        assert [s for r, s, _ in seen if r == run_id] == list(range(1, 11))
    assert {name for _, _, name in seen} == {"c1", "c2"}  # both did some of the work
    assert server.xpending(stream, "g")["pending"] == 0


async def test_a_gap_is_waited_for_then_skipped_and_counted(
    url: str, prefix: str, server: redis.Redis
) -> None:
    stream = prefix + "events"
    for seq in (1, 2, 4):  # 3 was dropped by the publisher
        write(server, stream, "r1", seq)
    consumer = make(url, prefix, gap_timeout=0.3)
    seen: list[int] = []
    consumer.on("on_message", lambda r: seen.append(r.seq))
    with capture_logs() as logs:
        await consume(consumer, lambda: len(seen) == 3)
    assert seen == [1, 2, 4]
    assert (consumer.stats.gaps, consumer.stats.skipped) == (1, 1)
    [line] = [x for x in logs if x["event"] == "redis_consumer_gap_skipped"]
    assert (line["run_id"], line["missing"], line["waited"]) == ("r1", "3", 0.3)


async def test_a_late_entry_closes_the_gap_before_the_timeout(
    url: str, prefix: str, server: redis.Redis
) -> None:
    stream = prefix + "events"
    write(server, stream, "r1", 1)
    write(server, stream, "r1", 3)
    consumer = make(url, prefix, gap_timeout=30.0)
    seen: list[int] = []
    consumer.on("on_message", lambda r: seen.append(r.seq))
    task = asyncio.create_task(consumer.run())
    await until(lambda: seen == [1] and server.xpending(stream, "g")["pending"] == 1)
    write(server, stream, "r1", 2)
    await until(lambda: len(seen) == 3)
    consumer.stop()
    await task
    assert seen == [1, 2, 3] and consumer.stats.gaps == 0


async def test_an_entry_is_acknowledged_only_after_its_handlers_succeeded(
    url: str, prefix: str, server: redis.Redis
) -> None:
    stream = prefix + "events"
    write(server, stream, "r1", 1)
    consumer = make(url, prefix)
    entered, release = asyncio.Event(), asyncio.Event()

    async def slow(record: StreamRecord) -> None:
        entered.set()
        await release.wait()

    consumer.on("on_message", slow)
    task = asyncio.create_task(consumer.run())
    await entered.wait()
    assert server.xpending(stream, "g")["pending"] == 1  # handling: not acknowledged yet
    release.set()
    await until(lambda: consumer.stats.handled == 1)
    assert server.xpending(stream, "g")["pending"] == 0
    consumer.stop()
    await task


async def test_a_failing_handler_is_retried_then_dead_lettered(
    url: str, prefix: str, server: redis.Redis
) -> None:
    stream = prefix + "events"
    failing = write(server, stream, "r1", 1)
    write(server, stream, "r1", 2)
    consumer = make(url, prefix, max_attempts=3, retry_delay=0.01)
    calls: list[int] = []
    fine: list[int] = []

    def boom(record: StreamRecord) -> None:
        calls.append(record.seq)
        if record.seq == 1:
            raise RuntimeError("boom")

    consumer.on("on_message", boom)
    consumer.on("on_event", lambda r: fine.append(r.seq))
    await consume(consumer, lambda: consumer.stats.handled == 1)
    assert calls == [1, 1, 1, 2]
    assert fine == [1, 2]  # the handler that succeeded is not run again
    assert (consumer.stats.failures, consumer.stats.dead_lettered) == (3, 1)
    [(_, dead)] = server.xrange(stream + ":dead")
    assert (dead["entry_id"], dead["seq"], dead["attempts"], dead["consumer"]) == (
        failing,
        "1",
        "3",
        "c1",
    )
    assert (
        dead["error"]
        == "test_redis_consumer.test_a_failing_handler_is_retried_then_dead_lettered.<locals>.boom: RuntimeError: boom"
    )
    assert json.loads(dead["record"])["run_id"] == "r1"
    assert server.xpending(stream, "g")["pending"] == 0


async def test_a_handler_that_recovers_runs_again_only_where_it_failed(
    url: str, prefix: str, server: redis.Redis
) -> None:
    stream = prefix + "events"
    write(server, stream, "r1", 1)
    consumer = make(url, prefix, retry_delay=0.01)
    attempts: list[int] = []
    consumer.on("on_message", lambda r: attempts.append(r.seq) or (len(attempts) < 3 and 1 / 0))
    await consume(consumer, lambda: consumer.stats.handled == 1)
    assert attempts == [1, 1, 1]
    assert (consumer.stats.failures, consumer.stats.dead_lettered) == (2, 0)


async def test_entries_of_a_dead_consumer_are_reclaimed(
    url: str, prefix: str, server: redis.Redis
) -> None:
    stream = prefix + "events"
    for seq in (1, 2, 3):
        write(server, stream, "r1", seq)
    server.xgroup_create(stream, "g", id="0")
    taken = server.xreadgroup("g", "ghost", {stream: ">"}, count=10)  # read, then it died
    assert len(taken[0][1]) == 3
    consumer = make(url, prefix, claim_idle=0.2)
    seen: list[int] = []
    consumer.on("on_message", lambda r: seen.append(r.seq))
    await consume(consumer, lambda: len(seen) == 3)
    assert seen == [1, 2, 3] and consumer.stats.reclaimed == 3
    assert server.xpending(stream, "g")["pending"] == 0


async def test_an_entry_whose_consumers_keep_dying_is_dead_lettered(
    url: str, prefix: str, server: redis.Redis
) -> None:
    stream = prefix + "events"
    poison = write(server, stream, "r1", 1)
    server.xgroup_create(stream, "g", id="0")
    server.xreadgroup("g", "ghost", {stream: ">"})
    for n in range(3):  # claimed by consumers that died each time
        server.xclaim(stream, "g", f"ghost{n}", 0, [poison])
    consumer = make(url, prefix, claim_idle=0.2, max_attempts=3)
    seen: list[int] = []
    consumer.on("on_message", lambda r: seen.append(r.seq))
    await consume(consumer, lambda: consumer.stats.dead_lettered == 1)
    assert seen == []
    [(_, dead)] = server.xrange(stream + ":dead")
    assert dead["error"] == "delivered 4 times without being acknowledged (its consumers died)"


async def test_an_entry_that_is_not_an_event_goes_to_the_dead_letter_stream(
    url: str, prefix: str, server: redis.Redis
) -> None:
    stream = prefix + "events"
    odd = str(server.xadd(stream, {"hello": "world"}))
    consumer = make(url, prefix)
    await consume(consumer, lambda: consumer.stats.dead_lettered == 1)
    [(_, dead)] = server.xrange(stream + ":dead")
    assert dead == {
        "hello": "world",
        "entry_id": odd,
        "stream": stream,
        "group": "g",
        "error": f"entry {odd} has no run_id, seq, type, record field",
    }
    assert server.xpending(stream, "g")["pending"] == 0


async def test_stop_lets_the_running_handler_finish_and_leaves_the_rest_pending(
    url: str, prefix: str, server: redis.Redis
) -> None:
    stream = prefix + "events"
    for seq in (1, 2, 3):
        write(server, stream, "r1", seq)
    consumer = make(url, prefix)
    entered, release = asyncio.Event(), asyncio.Event()
    seen: list[int] = []

    async def slow(record: StreamRecord) -> None:
        entered.set()
        await release.wait()
        seen.append(record.seq)

    consumer.on("on_message", slow)
    task = asyncio.create_task(consumer.run())
    await entered.wait()
    consumer.stop()
    await asyncio.sleep(0.05)
    assert not task.done()  # waits for the handler in progress
    release.set()
    await task
    assert seen == [1]
    pending = server.xpending_range(stream, "g", "-", "+", 10)
    assert [p["consumer"] for p in pending] == ["c1", "c1"]  # 2 and 3, for a restart or reclaim
    again = make(url, prefix)  # the same consumer name, restarted: its own entries first
    rest: list[int] = []
    again.on("on_message", lambda r: rest.append(r.seq))
    await consume(again, lambda: len(rest) == 2)
    assert rest == [2, 3] and server.xpending(stream, "g")["pending"] == 0


def test_registration_errors_are_clear(url: str, prefix: str) -> None:
    consumer = make(url, prefix)
    with pytest.raises(RegistrationError) as caught:
        consumer.on("on_subagent_start", print, match="helper")
    assert str(caught.value) == (
        "match= is not supported on 'on_subagent_start' by RedisEventConsumer: a stream record "
        "carries the tool name only, so match= works on the tool events"
    )
    with pytest.raises(UnknownEventError) as unknown:
        consumer.on("pre_tool_cal", print)
    assert "pre_tool_call" in str(unknown.value)
    with pytest.raises(RegistrationError):
        consumer.on("on_message", "not callable")  # type: ignore[arg-type]


async def test_handlers_run_by_priority_then_registration(
    url: str, prefix: str, server: redis.Redis
) -> None:
    stream = prefix + "events"
    write(server, stream, "r1", 1, "pre_tool_call", "add")
    consumer = make(url, prefix)
    order: list[str] = []
    consumer.on("on_event", lambda r: order.append("every"))
    consumer.on("pre_tool_call", lambda r: order.append("first"))
    consumer.on("pre_tool_call", lambda r: order.append("urgent"), priority=5)
    assert consumer.off("pre_tool_call", print) is False
    await consume(consumer, lambda: len(order) == 3)
    assert order == ["urgent", "first", "every"]


async def test_entries_trimmed_before_the_group_read_them_are_counted(
    url: str, prefix: str, server: redis.Redis
) -> None:
    stream = prefix + "events"
    server.xgroup_create(stream, "g", id="0", mkstream=True)
    for seq in (1, 2):
        write(server, stream, "r1", seq)
    consumer = make(url, prefix, gap_timeout=0.1)
    seen: list[tuple[str, int]] = []
    consumer.on("on_message", lambda r: seen.append((r.run_id, r.seq)))
    await consume(consumer, lambda: len(seen) == 2)
    # while the group is away: run r2 whole and r3's first 4 entries are trimmed unread
    for seq in range(1, 6):
        write(server, stream, "r2", seq)
    for seq in range(1, 11):
        write(server, stream, "r3", seq)
    server.xtrim(stream, maxlen=6, approximate=False)
    with capture_logs() as logs:
        await consume(consumer, lambda: len(seen) == 8)
    assert seen == [("r1", 1), ("r1", 2), *[("r3", s) for s in range(5, 11)]]
    assert consumer.stats.trimmed == 9  # 5 of r2, 4 of r3
    assert (consumer.stats.gaps, consumer.stats.skipped) == (1, 4)  # r3's, seen from its seq
    [line] = [x for x in logs if x["event"] == "redis_consumer_trimmed"]
    assert (line["lost"], line["group"], line["consumer"]) == (9, "g", "c1")
