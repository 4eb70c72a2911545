"""Entries whose consumer died: taken over with ``XAUTOCLAIM`` after ``claim_idle``; and the
entries a live consumer holds, kept fresh (``XCLAIM ... JUSTID`` resets their idle time) so
nobody takes them over while their handlers run."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

import structlog

if TYPE_CHECKING:
    from .consumer import RedisEventConsumer

log = structlog.get_logger("agenthooks.redis")


async def reclaim_loop(self: RedisEventConsumer) -> None:
    """Every ``claim_idle / 3`` seconds (at most 5): keep the held entries fresh, then take
    over the entries idle for ``claim_idle``."""
    interval = min(self.claim_idle / 3, 5.0)
    failures = 0
    while not self._stopping:
        await asyncio.sleep(interval)
        try:
            await _keep_fresh(self, interval)
            await _reclaim(self)
        except Exception as exc:
            failures = await self._failed("reclaim", exc, failures)
        else:
            failures = 0


async def _keep_fresh(self: RedisEventConsumer, interval: float) -> None:
    """Reset the idle time of the entries held here, so no one takes them over."""
    now = time.monotonic()
    old = [entry_id for entry_id, since in self._held.items() if now - since >= interval]
    for start in range(0, len(old), 500):
        chunk = old[start : start + 500]
        await self._client.xclaim(self.stream, self.group, self.consumer, 0, chunk, justid=True)
        for entry_id in chunk:
            if entry_id in self._held:
                self._held[entry_id] = now


async def _reclaim(self: RedisEventConsumer) -> None:
    start = "0-0"
    while not self._stopping:
        result = await self._client.xautoclaim(
            self.stream,
            self.group,
            self.consumer,
            int(self.claim_idle * 1000),
            start_id=start,
            count=self.count,
        )
        start, claimed = result[0], result[1]
        fresh = [(i, f) for i, f in claimed if f is not None and i not in self._held]
        if fresh:
            self.stats.reclaimed += len(fresh)
            log.info(
                "redis_consumer_reclaimed",
                entries=len(fresh),
                stream=self.stream,
                consumer=self.consumer,
            )
            await deliver_claimed(self, fresh)
        if start in ("0-0", b"0-0"):
            return


async def deliver_claimed(self: RedisEventConsumer, entries: list[tuple[str, Any]]) -> None:
    """Deliver entries that were delivered before, with how often (for dead-lettering)."""
    live = [(i, f) for i, f in entries if f]
    gone = [i for i, f in entries if not f]  # trimmed from the stream meanwhile
    if gone:
        await self._client.xack(self.stream, self.group, *gone)
        self._trimmed(len(gone), pending=True)
    if not live:
        return
    async with self._client.pipeline(transaction=False) as pipe:
        for entry_id, _ in live:
            pipe.xpending_range(self.stream, self.group, min=entry_id, max=entry_id, count=1)
        counts = await pipe.execute()
    for (entry_id, fields), found in zip(live, counts):
        times = found[0]["times_delivered"] if found else 1
        await self._deliver(entry_id, fields, max(0, times - 1))


__all__ = ["deliver_claimed", "reclaim_loop"]
