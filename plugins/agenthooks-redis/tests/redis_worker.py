"""A worker process of the multi-process tests.

    python redis_worker.py publish URL STREAM RUNS
    python redis_worker.py consume URL STREAM GROUP NAME LOG STOP [MODE N]

``publish`` runs RUNS agent runs with a RedisEventPublisher, closes it and prints its stats.
``consume`` runs a RedisEventConsumer whose handler appends ``run_id:seq:NAME`` to the Redis
list LOG, until the key STOP exists; MODE ``kill-before`` / ``kill-after`` makes the process
SIGKILL itself at its Nth entry, before / after the handler's work (that is, between reading
and handling, or between handling and the acknowledgement).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys

import redis.asyncio as redis_asyncio
import structlog
from agenthooks_redis import RedisEventConsumer, RedisEventPublisher, StreamRecord
from redis_support import calc_agent

from agenthooks import HookBus


async def publish(url: str, stream: str, runs: int) -> None:
    publisher = RedisEventPublisher(url, stream=stream)
    bus = HookBus()
    bus.use(publisher)
    for _ in range(runs):
        assert (await calc_agent(bus).chat("2+3?")).content == "5"
    await publisher.aclose()
    print(json.dumps({"sent": publisher.stats.sent, "dropped": publisher.stats.dropped}))


async def consume(
    url: str, stream: str, group: str, name: str, log: str, stop: str, mode: str, nth: int
) -> None:
    client = redis_asyncio.Redis.from_url(url, decode_responses=True)
    consumer = RedisEventConsumer(
        url, stream=stream, group=group, consumer=name, count=5, claim_idle=1.0, gap_timeout=0.5
    )
    seen = 0

    async def handle(record: StreamRecord) -> None:
        nonlocal seen
        seen += 1
        mine = seen  # handlers of other runs may count on while this one awaits
        if mode == "kill-before" and mine == nth:
            await client.set(f"{log}:died:{name}", f"{record.run_id}:{record.seq}")
            os.kill(os.getpid(), signal.SIGKILL)
        await client.rpush(log, f"{record.run_id}:{record.seq}:{name}")
        if mode == "kill-after" and mine == nth:
            await client.set(f"{log}:died:{name}", f"{record.run_id}:{record.seq}")
            os.kill(os.getpid(), signal.SIGKILL)

    consumer.on("on_event", handle)

    async def watch() -> None:
        while not await client.exists(stop):
            await asyncio.sleep(0.05)
        consumer.stop()

    watcher = asyncio.create_task(watch())
    await consumer.run()
    await watcher
    await client.aclose()
    stats = consumer.stats
    print(
        json.dumps(
            {
                "handled": stats.handled,
                "duplicates": stats.duplicates,
                "reclaimed": stats.reclaimed,
                "gaps": stats.gaps,
            }
        )
    )


if __name__ == "__main__":
    structlog.configure(logger_factory=structlog.PrintLoggerFactory(sys.stderr))  # stdout: results
    command, *args = sys.argv[1:]
    if command == "publish":
        asyncio.run(publish(args[0], args[1], int(args[2])))
    else:
        mode, nth = (args[6], int(args[7])) if len(args) > 6 else ("", 0)
        asyncio.run(consume(*args[:6], mode, nth))
