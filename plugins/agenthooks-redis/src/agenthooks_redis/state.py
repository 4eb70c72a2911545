"""What the consumers of one group share in Redis: the last handled ``seq`` of each run.

``{stream}:{group}:seq:{run_id}`` holds the highest ``seq`` of the run whose handlers
succeeded (or that was dead-lettered or skipped past), with a TTL refreshed on each write.
Handled entries are committed with one script per run: the run's ``seq`` raised (never
lowered) and the entries acknowledged, atomically, so an acknowledged entry always counts as
handled and a redelivered one is recognized as a duplicate. A consumer commits what it handled
in one pipeline per pass of its committer, not one round trip per entry.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

COMMIT = """
local last = tonumber(redis.call('GET', KEYS[1]) or '0')
local seq = tonumber(ARGV[2])
if seq > last then
  redis.call('SET', KEYS[1], seq, 'PX', ARGV[3])
end
redis.call('XACK', KEYS[2], ARGV[1], unpack(ARGV, 4))
return last
"""
"""KEYS: the run's seq key, the stream. ARGV: group, seq, TTL (ms), entry ids. Returns the
``seq`` the run had before."""


class GroupState:
    """The shared per-run ``seq`` of one consumer group, and the commit script."""

    def __init__(self, client: Any, stream: str, group: str, ttl: float) -> None:
        self.client = client
        self.stream = stream
        self.group = group
        self.prefix = f"{stream}:{group}:seq:"
        self.ttl_ms = max(1, int(ttl * 1000))
        self._commit = client.register_script(COMMIT)

    def key(self, run_id: str) -> str:
        """The key of ``run_id``'s last handled ``seq``."""
        return self.prefix + run_id

    async def last(self, run_id: str) -> int:
        """The last handled ``seq`` of ``run_id`` (0: none)."""
        value = await self.client.get(self.key(run_id))
        return int(value) if value is not None else 0

    async def commit(self, runs: dict[str, tuple[int, list[str]]], acks: list[str]) -> None:
        """In one pipeline: for each run, raise its ``seq`` to the given one and acknowledge
        its entries; acknowledge ``acks`` (duplicates) as they are."""
        async with self.client.pipeline(transaction=False) as pipe:
            for run_id, (seq, ids) in runs.items():
                await self._commit(
                    keys=[self.key(run_id), self.stream],
                    args=[self.group, seq, self.ttl_ms, *ids],
                    client=pipe,
                )
            if acks:
                pipe.xack(self.stream, self.group, *acks)
            await pipe.execute()


class Commits:
    """What a consumer handled and has not committed yet, committed in one pipeline per pass
    of ``loop``; ``release(entry_id)`` is called for each entry once it is acknowledged."""

    def __init__(self, state: GroupState, release: Callable[[str], None]) -> None:
        self.state = state
        self.release = release
        self.runs: dict[str, tuple[int, list[str]]] = {}
        self.acks: list[str] = []
        self.wake = asyncio.Event()

    def add(self, run_id: str, seq: int, entry_id: str) -> None:
        """Commit ``entry_id``, raising the run's ``seq`` to ``seq``."""
        known = self.runs.get(run_id)
        if known is None:
            self.runs[run_id] = (seq, [entry_id])
        else:
            known[1].append(entry_id)
            self.runs[run_id] = (max(known[0], seq), known[1])
        self.wake.set()

    def ack(self, entry_id: str) -> None:
        """Acknowledge ``entry_id`` as it is (a duplicate)."""
        self.acks.append(entry_id)
        self.wake.set()

    async def flush(self) -> None:
        """Commit everything waiting; on failure it waits for the next pass."""
        runs, acks = self.runs, self.acks
        if not runs and not acks:
            return
        self.runs, self.acks = {}, []
        try:
            await self.state.commit(runs, acks)
        except BaseException:
            for run_id, (seq, ids) in runs.items():
                for entry_id in ids:
                    self.add(run_id, seq, entry_id)
            self.acks[:0] = acks
            raise
        for _seq, ids in runs.values():
            for entry_id in ids:
                self.release(entry_id)
        for entry_id in acks:
            self.release(entry_id)

    async def loop(
        self,
        stopping: Callable[[], bool],
        failed: Callable[[str, BaseException, int], Awaitable[int]],
    ) -> None:
        """Flush whenever something waits, until ``stopping()`` (the owner flushes once more
        after its handlers finished). ``failed`` logs and backs off."""
        failures = 0
        while not stopping():
            await self.wake.wait()
            self.wake.clear()
            if stopping():
                return
            try:
                await self.flush()
            except Exception as exc:
                failures = await failed("commit", exc, failures)
                self.wake.set()
            else:
                failures = 0


__all__ = ["COMMIT", "Commits", "GroupState"]
