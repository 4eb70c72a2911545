"""Events to Redis from one process, and delivered to another, against raw redis-py.

1. **Publish**: N on_event records from one process until Redis acknowledged all of them:
   ``RedisEventPublisher`` (numbering, JSON encoding, buffering, pipelined ``XADD``) against
   raw redis-py ``XADD`` of the same entry fields, already encoded, one awaited call each and
   pipelined in batches of the publisher's size. Target: ours >= 80 % of raw pipelined.
2. **End to end**: the records of real agent runs, published, consumed in another process;
   throughput and p50 / p99 latency (receipt minus the record's timestamp), ours
   (``RedisEventConsumer``: ordering, dedup, acknowledgement after the handler) against raw
   (``XADD`` per event, ``XREADGROUP`` + ``XACK``).
3. **Agent run**: ``bench_agent``'s run with the publisher installed, against the same run
   with a no-op ``on_event`` listener (what every record costs the core to make) and with no
   hooks; once with the scripted model answering at once, once with a model taking 5 ms.
   Target: the publisher adds < 5 % to a run.

Needs Redis on 127.0.0.1:6379 (``BENCH_REDIS_URL``); keys under a fresh prefix, removed after.
"""

from __future__ import annotations

import asyncio
import gc
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import redis
import redis.asyncio as redis_asyncio
from agenthooks_redis import RedisEventPublisher
from agenthooks_redis.entry import encode
from bench_agent import make_agent

from agenthooks import Agent, Middleware
from agenthooks.events import EventRecord

URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/0")
HERE = Path(__file__).resolve().parent
N = int(os.environ.get("BENCH_REDIS_EVENTS", "20000"))
BATCH = 500


async def sample_records() -> list[EventRecord]:
    """The on_event records of one bench_agent run (24 records), to publish over and over."""
    agent = make_agent("0 hooks")
    records: list[EventRecord] = []
    agent.on("on_event", records.append)
    await agent.chat("2+3?")
    return records


def records_for(sample: list[EventRecord], count: int) -> list[EventRecord]:
    """``count`` records: the sample repeated, each repetition a run of its own."""
    out = []
    for i in range(count):
        record = sample[i % len(sample)].model_copy(update={"run_id": f"run-{i // len(sample)}"})
        out.append(record)
    return out


async def publish_ours(records: list[EventRecord], stream: str) -> float:
    publisher = RedisEventPublisher(URL, stream=stream, buffer=len(records), batch=BATCH)
    start = time.perf_counter()
    for i, record in enumerate(records):
        publisher.publish(record)
        if i % 100 == 99:
            await asyncio.sleep(0)  # an agent run yields often; so does this loop
    await publisher.aclose()
    elapsed = time.perf_counter() - start
    assert publisher.stats.sent == len(records), publisher.stats
    return elapsed


async def publish_raw(fields: list[dict[str, Any]], stream: str, pipelined: bool) -> float:
    client = redis_asyncio.Redis.from_url(URL)
    start = time.perf_counter()
    if pipelined:
        for at in range(0, len(fields), BATCH):
            pipe = client.pipeline(transaction=False)
            for entry in fields[at : at + BATCH]:
                pipe.xadd(stream, entry, maxlen=100_000, approximate=True)
            await pipe.execute()
    else:
        for entry in fields:
            await client.xadd(stream, entry, maxlen=100_000, approximate=True)
    elapsed = time.perf_counter() - start
    await client.aclose()
    return elapsed


async def publishing(prefix: str) -> list[tuple[str, float]]:
    records = records_for(await sample_records(), N)
    fields = [encode(r, i + 1) for i, r in enumerate(records)]
    best: dict[str, float] = {}
    for round_ in range(3):  # interleaved, best of 3
        for name, run in (
            ("ours", lambda s: publish_ours(records, s)),
            ("raw pipelined", lambda s: publish_raw(fields, s, True)),
            ("raw one by one", lambda s: publish_raw(fields, s, False)),
        ):
            stream = f"{prefix}{name}:{round_}"
            gc.collect()
            seconds = await run(stream)
            best[name] = min(best.get(name, float("inf")), seconds)
    return [(name, N / seconds) for name, seconds in best.items()]


def start_consumer(stream: str, count: int, kind: str) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, str(HERE / "_redis_consumer.py"), URL, stream, str(count), kind],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(HERE)},
    )
    assert process.stdout is not None and process.stdout.readline().strip() == "ready"
    return process


def consumer_result(process: subprocess.Popen[str]) -> dict[str, float]:
    import json

    out, _ = process.communicate(timeout=300)
    return json.loads(out.strip().splitlines()[-1])  # type: ignore[no-any-return]


async def steady(
    prefix: str, runs: int = 200, every: float = 0.02
) -> list[tuple[str, dict[str, float]]]:
    """Latency: one agent run every ``every`` seconds, consumed as it comes."""
    count = runs * 24
    results = []
    for kind in ("ours", "raw"):
        stream = f"{prefix}steady:{kind}"
        process = start_consumer(stream, count, kind)
        agent = make_agent("0 hooks")
        client = redis_asyncio.Redis.from_url(URL)
        publisher = RedisEventPublisher(URL, stream=stream)
        if kind == "ours":
            agent.use(publisher)
        else:
            seqs: dict[str, int] = {}

            async def send(
                record: EventRecord, seqs: dict[str, int] = seqs, stream: str = stream
            ) -> None:
                seqs[record.run_id] = seqs.get(record.run_id, 0) + 1
                await client.xadd(stream, encode(record, seqs[record.run_id]))  # noqa: B023

            agent.on("on_event", send)
        loop = asyncio.get_running_loop()
        start = loop.time()
        for n in range(runs):
            agent._history.clear()
            await agent.chat("2+3?")
            await asyncio.sleep(max(0.0, start + (n + 1) * every - loop.time()))
        await publisher.aclose()
        await client.aclose()
        results.append((kind, await asyncio.to_thread(consumer_result, process)))
    return results


async def drain(prefix: str, count: int = 9600) -> dict[str, float]:
    """Delivery rate: ``count`` entries already in the stream, consumed as fast as possible."""
    records = records_for(await sample_records(), count)
    rates = {}
    for kind in ("ours", "raw"):
        stream = f"{prefix}drain:{kind}"
        publisher = RedisEventPublisher(URL, stream=stream, buffer=count)
        for i, record in enumerate(records):
            publisher.publish(record)
            if i % 100 == 99:
                await asyncio.sleep(0)
        await publisher.aclose()
        process = start_consumer(stream, count, kind)
        result = await asyncio.to_thread(consumer_result, process)
        rates[kind] = result["count"] / max(result["last"] - result["first"], 1e-9)
    return rates


class SlowModel(Middleware):
    """A model call that takes ``delay`` seconds."""

    stacks = ("provider",)

    def __init__(self, delay: float) -> None:
        self.delay = delay

    async def wrap(self, ctx: Any, call_next: Any) -> Any:
        await asyncio.sleep(self.delay)
        return await call_next(ctx)


async def agent_runs(prefix: str, number: int, repeat: int, delay: float) -> dict[str, float]:
    """Seconds per run: no hooks, a no-op on_event listener, the publisher (interleaved)."""
    agents: dict[str, Agent] = {}
    publishers = []
    for name in ("0 hooks", "on_event no-op", "publisher"):
        agent = make_agent("on_event" if name == "on_event no-op" else "0 hooks")
        if name == "publisher":
            publisher = RedisEventPublisher(URL, stream=f"{prefix}runs")
            publishers.append(publisher)
            agent.use(publisher)
        if delay:
            agent.use(SlowModel(delay))
        agents[name] = agent
    best = dict.fromkeys(agents, float("inf"))
    for _ in range(repeat):
        for name, agent in agents.items():
            gc.collect()
            start = time.perf_counter()
            for _ in range(number):
                agent._history.clear()
                await agent.chat("2+3?")
                await asyncio.sleep(0)  # the scripted run never waits: let the sender run
            best[name] = min(best[name], (time.perf_counter() - start) / number)
    for publisher in publishers:
        await publisher.aclose()
        assert publisher.stats.dropped == 0
    return best


def main() -> None:
    """Print the three tables."""
    client = redis.Redis.from_url(URL, socket_connect_timeout=2)
    try:
        client.ping()
    except redis.RedisError as exc:
        print(f"## Redis\n(skipped: no Redis at {URL}: {exc})")
        return
    prefix = f"agenthooks-bench:{uuid.uuid4().hex}:"
    try:
        published = asyncio.run(publishing(prefix))
        latency = asyncio.run(steady(prefix))
        rates = asyncio.run(drain(prefix))
        runs = [
            ("answers at once", asyncio.run(agent_runs(prefix, 1000, 5, 0.0))),
            ("takes 5 ms", asyncio.run(agent_runs(prefix, 40, 5, 0.005))),
            ("takes 50 ms", asyncio.run(agent_runs(prefix, 10, 3, 0.05))),
        ]
    finally:
        keys = list(client.scan_iter(match=prefix + "*", count=1000))
        if keys:
            client.delete(*keys)
        client.close()
    raw = dict(published)["raw pipelined"]
    print(f"\n## Redis: publishing {N:,} on_event records from one process")
    print(f"{'case':26} {'events/s':>10} {'× raw pipelined':>16}")
    for name, rate in published:
        print(f"{name:26} {rate:10,.0f} {rate / raw:16.2f}")
    print("target: ours ≥ 0.80 × raw pipelined XADD")
    print("\n## Redis: end to end, consumed in another process")
    print(f"{'case':8} {'p50 ms':>8} {'p99 ms':>8} {'drain events/s':>15}")
    for kind, r in latency:
        print(f"{kind:8} {r['p50'] * 1000:8.2f} {r['p99'] * 1000:8.2f} {rates[kind]:15,.0f}")
    print("latency: an agent run (24 records) every 20 ms, receipt minus the record's timestamp;")
    print("drain: 9,600 entries already in the stream, read, handled and acknowledged")
    print("\n## Redis: one agent run (24 records) with the publisher installed")
    print(
        f"{'model call':16} {'0 hooks µs':>11} {'on_event no-op µs':>18} {'publisher µs':>13} "
        f"{'+ vs no-op':>11} {'+ vs 0 hooks':>13}"
    )
    for label, row in runs:
        zero, noop, ours = row["0 hooks"], row["on_event no-op"], row["publisher"]
        print(
            f"{label:16} {zero * 1e6:11.1f} {noop * 1e6:18.1f} {ours * 1e6:13.1f} "
            f"{(ours / noop - 1) * 100:10.1f}% {(ours / zero - 1) * 100:12.1f}%"
        )
    print("target: the publisher adds < 5 % to an agent run's time (local Redis)")


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    main()
