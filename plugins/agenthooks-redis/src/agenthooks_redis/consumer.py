"""RedisEventConsumer: observers of the event stream in another process, at least once and in
``seq`` order per run.

It reads with ``XREADGROUP`` (a group shares the work; each group sees every entry),
acknowledges an entry only after its handlers succeeded (``GroupState.commit``), reclaims the
entries of dead consumers with ``XAUTOCLAIM``, deduplicates redeliveries by ``(run_id, seq)``,
moves an entry that failed ``max_attempts`` times to a dead-letter stream, orders each
run's entries (``runs.work``) and counts the entries the stream trimmed before the group read
them (``trimming.py``).
"""

from __future__ import annotations

import asyncio
import os
import socket
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, TypeVar

import redis.asyncio as redis_asyncio
import structlog
from redis.backoff import ExponentialWithJitterBackoff
from redis.exceptions import ResponseError

from agenthooks.record import Matcher

from .checks import check_name, check_seconds, check_url, check_whole
from .entry import EntryError, decode
from .handlers import Handler, Registry
from .reclaim import deliver_claimed, reclaim_loop
from .runs import RunQueue, work
from .settings import DEFAULT_STREAM, DEFAULT_URL, RedisConfigError
from .state import Commits, GroupState
from .trimming import TrimmedReader

log = structlog.get_logger("agenthooks.redis")

H = TypeVar("H", bound=Handler)
SOURCE = "RedisEventConsumer"


@dataclass(slots=True)
class ConsumerStats:
    """Counters since the consumer was created."""

    handled: int = 0
    """Entries whose handlers all succeeded (then acknowledged)."""
    duplicates: int = 0
    """Redelivered or repeated entries whose ``(run_id, seq)`` was handled already."""
    gaps: int = 0
    """Gaps in a run's ``seq`` skipped after ``gap_timeout``; ``skipped``: entries in them."""
    skipped: int = 0
    trimmed: int = 0
    """Entries the stream trimmed (``MAXLEN``) before the group handled them, whole runs
    included: before the group read them (counted by the read that passed them) or while
    they were pending with a consumer that stopped or died. The group's consumers add up to
    the group's count; an entry trimmed from inside a run also shows in ``skipped``."""
    failures: int = 0
    """Handler failures (each retried, up to ``max_attempts``)."""
    dead_lettered: int = 0
    reclaimed: int = 0
    """Entries taken over from consumers idle for ``claim_idle``."""


class RedisEventConsumer:
    """Handle the events of a Redis stream in this process: ``.on(event, h)``, ``await run()``.

    A handler gets a ``StreamRecord`` (an ``EventRecord`` with ``seq`` and ``entry_id``).
    ``stop()`` ends ``run()`` cleanly: no new reads, the handlers running now finish, entries
    not handled stay pending for the group.

    Args:
        url: The Redis to read from (``redis://``, ``rediss://``, ``unix://``).
        stream: The stream key.
        group: The consumer group: the consumers of one group share the entries; each group
            gets all of them.
        consumer: This consumer's name in the group; default: ``host-pid``.
        dead_letter: The stream failed entries go to; default: ``STREAM:dead``.
        max_attempts: Handler failures (or deliveries to consumers that died) after which
            an entry goes to ``dead_letter``.
        retry_delay: Seconds of the first pause between attempts, doubling.
        claim_idle: Seconds an entry may stay unacknowledged with a consumer before another
            one takes it over (``XAUTOCLAIM``); a live consumer keeps its entries fresh.
        gap_timeout: Seconds an entry waits for a missing earlier one of its run before the
            gap is skipped and counted.
        start: Where a new group starts: ``"0"``, the whole stream, or ``"$"``, new
            entries only.
        state_ttl: Seconds the group remembers a run's last handled ``seq``.
        block: Seconds a read waits for a new entry when all are read.
        count: Entries per read.
        max_in_flight: Entries read and not yet handled, at most; reading pauses beyond.
        connections: Redis connections in the pool (at least 2).
        stop_timeout: Seconds ``stop()`` waits for the loops and the running handlers.

    Raises:
        RedisConfigError: An option is bad; it names the option.
    """

    def __init__(
        self,
        url: str = DEFAULT_URL,
        *,
        stream: str = DEFAULT_STREAM,
        group: str = "agenthooks",
        consumer: str | None = None,
        dead_letter: str | None = None,
        max_attempts: int = 5,
        retry_delay: float = 0.1,
        claim_idle: float = 30.0,
        gap_timeout: float = 5.0,
        start: str = "0",
        state_ttl: float = 86_400.0,
        block: float = 1.0,
        count: int = 100,
        max_in_flight: int = 1000,
        connections: int = 16,
        stop_timeout: float = 10.0,
    ) -> None:
        self.url = check_url(url, SOURCE)
        self.stream = check_name(stream, SOURCE, "stream")
        self.group = check_name(group, SOURCE, "group")
        self.consumer = check_name(
            consumer if consumer is not None else f"{socket.gethostname()}-{os.getpid()}",
            SOURCE,
            "consumer",
        )
        self.dead_letter = check_name(
            dead_letter if dead_letter is not None else f"{stream}:dead", SOURCE, "dead_letter"
        )
        self.max_attempts = check_whole(max_attempts, SOURCE, "max_attempts")
        self.retry_delay = check_seconds(retry_delay, SOURCE, "retry_delay")
        self.claim_idle = check_seconds(claim_idle, SOURCE, "claim_idle")
        self.gap_timeout = check_seconds(gap_timeout, SOURCE, "gap_timeout")
        if start not in ("0", "$"):
            raise RedisConfigError(
                "redis", SOURCE, "start", f"{start!r} is not '0' (all) or '$' (new)"
            )
        self.start = start
        self.state_ttl = check_seconds(state_ttl, SOURCE, "state_ttl")
        self.block = check_seconds(block, SOURCE, "block")
        self.count = check_whole(count, SOURCE, "count")
        self.max_in_flight = check_whole(max_in_flight, SOURCE, "max_in_flight")
        self.connections = check_whole(connections, SOURCE, "connections", minimum=2)
        self.stop_timeout = check_seconds(stop_timeout, SOURCE, "stop_timeout")
        self.scan = 1000
        self.maxlen_dead = 100_000
        self.stats = ConsumerStats()
        self._registry = Registry()
        self._runs: dict[str, RunQueue] = {}
        self._held: dict[str, float] = {}
        self._known: OrderedDict[str, int] = OrderedDict()
        self._commits: Commits = None  # type: ignore[assignment]
        self._stopping = False
        self._running = False
        self._stopped: asyncio.Event | None = None
        self._space: asyncio.Event | None = None
        self._client: Any = None
        self._state: GroupState = None  # type: ignore[assignment]
        self._reader: TrimmedReader = None  # type: ignore[assignment]
        self._backoff = ExponentialWithJitterBackoff(base=0.05, cap=2.0)

    def __repr__(self) -> str:
        return (
            f"RedisEventConsumer({self.url!r}, stream={self.stream!r}, group={self.group!r}, "
            f"consumer={self.consumer!r})"
        )

    # registration, as on a bus ----------------------------------------------------------------

    def on(
        self,
        event: str,
        handler: Handler | None = None,
        *,
        match: Matcher | None = None,
        priority: int = 0,
    ) -> Any:
        """Register ``handler`` for ``event`` (a canonical name or a seed alias; ``on_event``
        for every record); ``match=`` a tool name, a regex or a list of those (tool events).
        Returns a disposer, or without ``handler`` a decorator."""
        return self._registry.on(event, handler, match, priority)

    def off(self, event: str, handler: Handler) -> bool:
        """Remove every registration of ``handler`` on ``event``; True if one was removed."""
        return self._registry.off(event, handler)

    # running --------------------------------------------------------------------------------

    async def run(self) -> None:
        """Read and handle entries until ``stop()``; returns once stopped cleanly."""
        if self._running:
            raise RuntimeError(f"{self!r} is already running")
        self._running, self._stopping = True, False
        self._stopped, self._space = asyncio.Event(), asyncio.Event()
        pool = redis_asyncio.BlockingConnectionPool.from_url(
            self.url,
            max_connections=self.connections,
            timeout=None,
            decode_responses=True,
            socket_timeout=max(5.0, self.block + 5.0),
        )
        self._client = redis_asyncio.Redis(connection_pool=pool)
        self._state = GroupState(self._client, self.stream, self.group, self.state_ttl)
        self._commits = Commits(self._state, self._release)
        self._reader = TrimmedReader(self._client, self.stream, self.group, self.consumer)
        tasks: list[asyncio.Task[None]] = []
        try:
            await self._ensure_group()
            await self._read_own_pending()
            tasks = [
                asyncio.create_task(self._read_loop()),
                asyncio.create_task(reclaim_loop(self)),
                asyncio.create_task(self._commits.loop(lambda: self._stopping, self._failed)),
            ]
            await self._stopped.wait()
        finally:
            self._stopping = True
            self._commits.wake.set()
            for task in tasks:
                task.cancel()
            # each loop also ends by itself on the stop flag: a cancellation that a client
            # library swallowed mid-command cannot hold the stop up
            if tasks:
                await asyncio.wait(tasks, timeout=self.stop_timeout)
            workers = [q.task for q in self._runs.values() if q.task is not None]
            if workers:
                _, late = await asyncio.wait(workers, timeout=self.stop_timeout)
                for task in late:
                    task.cancel()
                await asyncio.gather(*workers, return_exceptions=True)
            try:
                await self._commits.flush()  # what was handled is acknowledged before leaving
            except Exception as exc:
                log.warning("redis_consumer_commit_failed", error=f"{type(exc).__name__}: {exc}")
            self._runs.clear()
            self._held.clear()
            await self._client.aclose()
            await pool.disconnect()
            self._running = False

    def stop(self) -> None:
        """End ``run()``: stop reading, let running handlers finish, then return."""
        self._stopping = True
        if self._stopped is not None:
            self._stopped.set()
        if self._commits is not None:
            self._commits.wake.set()
        if self._space is not None:
            self._space.set()

    async def _ensure_group(self) -> None:
        try:
            await self._client.xgroup_create(self.stream, self.group, id=self.start, mkstream=True)
        except ResponseError as exc:
            if "BUSYGROUP" not in str(exc):
                raise

    async def _read_own_pending(self) -> None:
        """Entries this consumer name was given before (a restart): handled first."""
        start = "0"
        while not self._stopping:
            response = await self._client.xreadgroup(
                self.group, self.consumer, {self.stream: start}, count=self.count
            )
            entries = _entries(response)
            if not entries:
                return
            await deliver_claimed(self, entries)
            start = entries[-1][0]

    async def _read_loop(self) -> None:
        failures = 0
        assert self._space is not None
        while not self._stopping:
            if len(self._held) >= self.max_in_flight:
                self._space.clear()
                await self._space.wait()
                continue
            try:
                lost, entries, last = await self._reader.read(self.count)
                if lost:
                    self._trimmed(lost)
                if not entries:  # all read: wait for a new entry without taking it
                    await self._client.xread(
                        {self.stream: last}, count=1, block=int(self.block * 1000)
                    )
            except ResponseError as exc:
                if "NOGROUP" in str(exc) or "no such key" in str(exc):
                    await self._ensure_group()  # the stream or group was deleted: start again
                    continue
                failures = await self._failed("read", exc, failures)
                continue
            except Exception as exc:  # Redis down or slow: back off, read again
                failures = await self._failed("read", exc, failures)
                continue
            if failures:
                log.info("redis_consumer_resumed", stream=self.stream, consumer=self.consumer)
                failures = 0
            for entry_id, fields in entries:
                await self._deliver(entry_id, fields, 0)

    def _trimmed(self, lost: int, pending: bool = False) -> None:
        """Count ``lost`` entries the stream trimmed before the group read them, or (with
        ``pending``) after a consumer read them and before one handled them."""
        self.stats.trimmed += lost
        log.warning(
            "redis_consumer_trimmed",
            lost=lost,
            stream=self.stream,
            group=self.group,
            consumer=self.consumer,
            note=(
                "the stream trimmed these entries (maxlen) while they were pending, before "
                "they were handled"
                if pending
                else "the stream trimmed these entries (maxlen) before the group read them"
            ),
        )

    async def _failed(self, what: str, exc: BaseException, failures: int) -> int:
        if failures == 0:
            log.warning(
                f"redis_consumer_{what}_failed",
                error=f"{type(exc).__name__}: {exc}",
                stream=self.stream,
                consumer=self.consumer,
            )
        failures += 1
        await asyncio.sleep(self._backoff.compute(failures))
        return failures

    # delivery -------------------------------------------------------------------------------

    async def _deliver(self, entry_id: str, fields: Any, redelivered: int) -> None:
        if entry_id in self._held:
            return
        try:
            entry = decode(entry_id, fields)
        except EntryError as exc:
            await self._reject(entry_id, fields, str(exc))
            return
        self._held[entry_id] = time.monotonic()
        queue = self._runs.get(entry.run_id)
        if queue is None:
            queue = self._runs[entry.run_id] = RunQueue(entry.run_id)
        queue.push(entry, redelivered)
        if queue.task is None or queue.task.done():
            queue.task = asyncio.create_task(self._work(queue))

    async def _work(self, queue: RunQueue) -> None:
        try:
            await work(self, queue)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # Redis failed mid-entry: the entries stay pending, reclaimed
            log.warning(
                "redis_consumer_run_failed",
                run_id=queue.run_id,
                error=f"{type(exc).__name__}: {exc}",
                left_pending=len(queue.heap),
            )
            for item in queue.heap:
                self._release(item[1])
            queue.heap.clear()
        finally:
            if not queue.heap and self._runs.get(queue.run_id) is queue:
                del self._runs[queue.run_id]

    async def _reject(self, entry_id: str, fields: Any, problem: str) -> None:
        """An entry that is not an event entry: to the dead-letter stream, acknowledged."""
        data = {str(k): v for k, v in (fields or {}).items()}
        data.update(entry_id=entry_id, stream=self.stream, group=self.group, error=problem)
        await self._client.xadd(self.dead_letter, data, maxlen=self.maxlen_dead)
        await self._client.xack(self.stream, self.group, entry_id)
        self.stats.dead_lettered += 1
        log.error("redis_consumer_dead_letter", entry_id=entry_id, error=problem)

    def _commit(self, run_id: str, seq: int, entry_id: str) -> None:
        """Count ``entry_id`` (the run's ``seq``) as handled: here at once, in Redis at the
        committer's next pass."""
        self._remember(run_id, seq)
        self._commits.add(run_id, seq, entry_id)

    def _ack(self, entry_id: str) -> None:
        """Acknowledge a duplicate at the committer's next pass."""
        self._commits.ack(entry_id)

    def _release(self, entry_id: str) -> None:
        self._held.pop(entry_id, None)
        if self._space is not None and len(self._held) < self.max_in_flight:
            self._space.set()

    def _remember(self, run_id: str, last: int) -> int:
        """Note ``last`` as the run's handled ``seq`` (the higher of it and what is known here:
        our own commits reach Redis a moment later); returns that."""
        known = self._known
        last = max(last, known.get(run_id, 0))
        known[run_id] = last
        known.move_to_end(run_id)
        if len(known) > 10_000:
            known.popitem(last=False)
        return last


def _entries(response: Any) -> list[tuple[str, Any]]:
    """The (id, fields) pairs of an ``XREADGROUP`` reply (RESP2 list or RESP3 map)."""
    if not response:
        return []
    items = response.items() if isinstance(response, dict) else response
    out: list[tuple[str, Any]] = []
    for _stream, entries in items:
        out.extend((entry_id, fields) for entry_id, fields in entries)
    return out


__all__ = ["ConsumerStats", "RedisEventConsumer"]
