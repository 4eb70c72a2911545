"""The consuming process of ``bench_redis.py``: reads COUNT entries of STREAM, then prints the
delivery latencies (receipt time minus the record's timestamp) and the receipt span.

    python _redis_consumer.py URL STREAM COUNT ours|raw
"""

from __future__ import annotations

import asyncio
import json
import sys
import time

import redis.asyncio as redis_asyncio
import structlog


async def ours(url: str, stream: str, count: int) -> list[tuple[float, float]]:
    from agenthooks_redis import RedisEventConsumer

    seen: list[tuple[float, float]] = []
    consumer = RedisEventConsumer(url, stream=stream, group="bench", consumer="c1", count=500)

    def handle(record) -> None:  # type: ignore[no-untyped-def]
        now = time.time()
        seen.append((now, now - record.timestamp))
        if len(seen) == count:
            consumer.stop()

    consumer.on("on_event", handle)
    print("ready", flush=True)
    await consumer.run()
    return seen


async def raw(url: str, stream: str, count: int) -> list[tuple[float, float]]:
    client = redis_asyncio.Redis.from_url(url, decode_responses=True)
    await client.xgroup_create(stream, "bench", id="0", mkstream=True)
    seen: list[tuple[float, float]] = []
    print("ready", flush=True)
    while len(seen) < count:
        reply = await client.xreadgroup("bench", "c1", {stream: ">"}, count=500, block=1000)
        for _stream, rows in reply or []:
            ids = []
            for entry_id, fields in rows:
                now = time.time()
                record = json.loads(fields["record"])
                seen.append((now, now - record["timestamp"]))
                ids.append(entry_id)
            await client.xack(stream, "bench", *ids)
    await client.aclose()
    return seen


def main() -> None:
    structlog.configure(logger_factory=structlog.PrintLoggerFactory(sys.stderr))
    url, stream, count, kind = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    seen = asyncio.run((ours if kind == "ours" else raw)(url, stream, count))
    latencies = sorted(latency for _, latency in seen)
    times = [at for at, _ in seen]
    print(
        json.dumps(
            {
                "count": len(seen),
                "p50": latencies[len(latencies) // 2],
                "p99": latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))],
                "first": min(times),
                "last": max(times),
            }
        ),
        flush=True,
    )


if __name__ == "__main__":
    main()
