"""Entries lost to stream trimming are counted (agenthooks-redis), against the real Redis on
127.0.0.1:6379.

Every case writes event entries of several runs to a stream bounded by ``MAXLEN`` while the
group's consumers are stopped, reading, or slow, so the stream trims entries the group has not
read: parts of runs, whole runs, everything written before the group existed. Then the
consumers read until they have caught up. What must hold, exactly: every entry the stream
took is either handled by one consumer of the group or counted as trimmed by one
(``stats.trimmed``, summed over the group's consumers), never both and never neither; the
entries a consumer counted as skipped in runs' ``seq`` gaps are among the trimmed ones.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import uuid
from collections.abc import Iterator
from typing import Any

import agenthooks_redis
import pytest
import redis

from agenthooks.testing import Tally

pytestmark = [pytest.mark.server, pytest.mark.slow]

URL = "redis://127.0.0.1:6379/0"
LIMIT = 20.0  # seconds a case may take to catch up

EXACT = "every entry is handled or counted trimmed, exactly once"
SKIPPED = "skipped entries are among the trimmed ones"
LOG = "each count is logged"


@pytest.fixture
def server() -> Iterator[Any]:
    client = redis.Redis.from_url(URL, decode_responses=True)
    try:
        client.ping()
    except redis.RedisError as exc:
        from agenthooks.testing import require

        require(f"no Redis at {URL}: {type(exc).__name__}: {exc}")
    prefix = f"agenthooks-rel:{uuid.uuid4().hex}:"
    client.prefix = prefix  # type: ignore[attr-defined]
    yield client
    keys = list(client.scan_iter(match=prefix + "*", count=1000))
    if keys:
        client.delete(*keys)
    client.close()


class Writer:
    """Event entries into a stream trimmed to exactly ``maxlen`` entries, each run's ``seq``
    from 1: ``interleaved`` (five runs, round robin: a trim cuts into runs, which ``seq`` gaps
    show) or one run per ``write`` (a trim removes whole runs, which no gap shows)."""

    def __init__(self, server: Any, stream: str, layout: str, maxlen: int) -> None:
        self.server, self.stream, self.maxlen = server, stream, maxlen
        self.layout = layout
        self.seqs: dict[str, int] = {}
        self.turn = itertools.cycle([f"r{i}" for i in range(5)])
        self.writes = 0
        self.written = 0

    def write(self, count: int) -> None:
        self.writes += 1
        for _ in range(count):
            run_id = next(self.turn) if self.layout == "interleaved" else f"w{self.writes}"
            self.seqs[run_id] = self.seqs.get(run_id, 0) + 1
            record = {"schema": 1, "type": "on_message", "run_id": run_id, "agent": "a"}
            fields = {
                "run_id": run_id,
                "seq": self.seqs[run_id],
                "type": "on_message",
                "record": json.dumps(record),
            }
            self.server.xadd(self.stream, fields, maxlen=self.maxlen, approximate=False)
            self.written += 1


async def _case(server: Any, number: int, plan: dict[str, Any]) -> list[tuple[str, str]]:
    stream = f"{server.prefix}{number}:events"
    writer = Writer(server, stream, plan["layout"], plan["maxlen"])
    handled: list[str] = []
    consumers = [
        agenthooks_redis.RedisEventConsumer(
            URL,
            stream=stream,
            group="g",
            consumer=f"c{i}",
            gap_timeout=0.05,
            block=0.05,
            count=plan["count"],
        )
        for i in range(plan["consumers"])
    ]

    async def slow(record: Any) -> None:
        handled.append(record.entry_id)
        await asyncio.sleep(plan["pause"])

    for consumer in consumers:
        consumer.on("on_message", slow)
    writer.write(plan["before"])  # before the group exists (it reads from "0")
    if plan["early"]:  # the group reads a little first
        writer.write(3)
        await _run(consumers, lambda: len(handled) >= 2)
    tasks: list[asyncio.Task[None]] = []
    if plan["live"]:  # the consumers read while the writer outpaces them
        tasks = [asyncio.create_task(c.run()) for c in consumers]
        for _ in range(plan["bursts"]):
            writer.write(plan["burst"])
            await asyncio.sleep(0.01)
    else:  # the consumers are stopped while the writer writes
        for _ in range(plan["bursts"]):
            writer.write(plan["burst"])
    if not tasks:
        tasks = [asyncio.create_task(c.run()) for c in consumers]

    def caught_up() -> bool:
        return len(handled) + sum(c.stats.trimmed for c in consumers) >= writer.written

    problems: list[tuple[str, str]] = []
    loop = asyncio.get_running_loop()
    deadline = loop.time() + LIMIT
    while not caught_up() and loop.time() < deadline:
        await asyncio.sleep(0.02)
    await asyncio.sleep(0.1)  # anything counted twice shows now
    for consumer in consumers:
        consumer.stop()
    await asyncio.gather(*tasks)
    trimmed = sum(c.stats.trimmed for c in consumers)
    skipped = sum(c.stats.skipped for c in consumers)
    unique = len(set(handled))
    if unique != len(handled) or unique + trimmed != writer.written:
        problems.append(
            (
                EXACT,
                f"wrote {writer.written}: handled {len(handled)} ({unique} distinct), "
                f"counted trimmed {trimmed}",
            )
        )
    if skipped > trimmed:
        problems.append((SKIPPED, f"skipped {skipped} > trimmed {trimmed}"))
    BEFORE.append((writer.written - unique, skipped))  # lost, and what seq gaps alone showed
    return problems


async def _run(consumers: list[Any], done: Any) -> None:
    tasks = [asyncio.create_task(c.run()) for c in consumers]
    loop = asyncio.get_running_loop()
    deadline = loop.time() + LIMIT
    await asyncio.sleep(0.05)  # running: a stop() before run() began would be lost
    while not done() and loop.time() < deadline:
        await asyncio.sleep(0.01)
    for consumer in consumers:
        consumer.stop()
    await asyncio.gather(*tasks)


BEFORE: list[tuple[int, int]] = []
"""Per case: the entries lost, and those ``skipped`` (the runs' ``seq`` gaps, all there was
before ``trimmed``) showed."""

PLANS = [
    {
        "layout": layout,
        "maxlen": maxlen,
        "consumers": consumers,
        "live": live,
        "before": before,
        "early": early,
        "bursts": 4,
        "burst": 15,
        "count": 5,
        "pause": 0.002 if live else 0.0,
    }
    for layout, maxlen, consumers, live, (before, early) in itertools.product(
        ("interleaved", "run per burst"), (10, 25), (1, 2), (False, True), ((0, True), (30, False))
    )
]
"""Runs interleaved or one per burst, the stream's bound, consumers in the group, whether they
read while the writer outpaces them, and entries written before the group existed (then it
reads nothing first) or a group that read a little first."""


async def test_every_entry_trimmed_before_the_group_read_it_is_counted(server: Any) -> None:
    tally = Tally("entries trimmed before the group read them are counted")
    for number, plan in enumerate(PLANS):
        problems = await _case(server, number, plan)
        label = ", ".join(f"{k}={v}" for k, v in plan.items() if k not in ("bursts", "burst"))
        tally.case(label, problems, group=str(plan["live"]))
    lost, shown = sum(b[0] for b in BEFORE), sum(b[1] for b in BEFORE)
    whole = sum(1 for b in BEFORE if b[0] == b[1])
    print(
        f"[{tally.name}] with seq gaps alone (before stats.trimmed): {whole} of {len(BEFORE)} "
        f"cases accounted for every lost entry; {shown} of {lost} lost entries were counted"
    )
    tally.assert_held()
