"""One run's entries inside a consumer: handled one at a time, in ``seq`` order.

Entries of a run may reach several consumers of the group; the group's shared ``seq``
(``GroupState``) orders them. An entry whose turn has not come (``seq`` above the run's last
handled + 1) waits: for a consumer holding the earlier entry to commit it, for an earlier
entry to arrive here, or, after ``gap_timeout``, for a look at the group's pending entries:
an earlier entry pending with a consumer idle for ``claim_idle`` (dead) is claimed and handled
here first; one pending with a live consumer is waited for again; none at all means the
publisher dropped it, and the gap is skipped and counted.
"""

from __future__ import annotations

import asyncio
import heapq
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import structlog

from .entry import Entry, to_record
from .handlers import call
from .reclaim import deliver_claimed

if TYPE_CHECKING:
    from .consumer import RedisEventConsumer

log = structlog.get_logger("agenthooks.redis")


@dataclass
class RunQueue:
    """The entries of one run held by this consumer, smallest ``seq`` first."""

    run_id: str
    heap: list[tuple[int, str, Entry, int]] = field(default_factory=list)
    """(seq, entry id, entry, deliveries before this one)"""
    arrived: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[None] | None = None

    def push(self, entry: Entry, redelivered: int) -> None:
        """Hold ``entry`` (and wake a worker waiting on a gap)."""
        heapq.heappush(self.heap, (entry.seq, entry.id, entry, redelivered))
        self.arrived.set()


async def work(consumer: RedisEventConsumer, queue: RunQueue) -> None:
    """Handle ``queue``'s entries in order until it is empty or the consumer stops."""
    state = consumer._state
    known = consumer._known
    while queue.heap and not consumer._stopping:
        seq, entry_id, entry, redelivered = queue.heap[0]
        last = known.get(queue.run_id)
        if last is None or last + 1 != seq:  # ask the group (ours may lag behind others')
            last = consumer._remember(queue.run_id, await state.last(queue.run_id))
        if seq <= last:
            heapq.heappop(queue.heap)
            consumer._ack(entry_id)
            consumer.stats.duplicates += 1
            continue
        if seq > last + 1 and not await _turn(consumer, queue, entry, last):
            continue  # something changed (an earlier entry arrived, the run moved): look again
        if queue.heap[0][2] is not entry:
            continue
        heapq.heappop(queue.heap)
        await _handle(consumer, queue.run_id, entry, redelivered)


async def _turn(consumer: RedisEventConsumer, queue: RunQueue, entry: Entry, last: int) -> bool:
    """Wait for ``entry``'s turn. False: look again (the run's ``seq`` moved, or an earlier
    entry is now first here); True: handle ``entry`` now, past a gap that was skipped."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + consumer.gap_timeout
    delay = 0.002
    while not consumer._stopping:
        queue.arrived.clear()
        try:
            await asyncio.wait_for(queue.arrived.wait(), delay)
        except (asyncio.TimeoutError, TimeoutError):
            pass
        if queue.heap[0][2] is not entry:
            return False
        last = consumer._remember(queue.run_id, await consumer._state.last(queue.run_id))
        if entry.seq <= last + 1:
            return False
        if loop.time() >= deadline:
            found = await _missing(consumer, queue, entry, last)
            if found == "claimed" or queue.heap[0][2] is not entry:
                return False  # an earlier entry arrived here meanwhile
            if found == "none":
                # read the run's seq again: another consumer may have handled (and acked) the
                # entries before this one since ``last`` was read, skipping the same gap
                last = consumer._remember(queue.run_id, await consumer._state.last(queue.run_id))
                if entry.seq <= last + 1:
                    return False
                missing = entry.seq - 1 - last
                consumer.stats.gaps += 1
                consumer.stats.skipped += missing
                log.warning(
                    "redis_consumer_gap_skipped",
                    run_id=queue.run_id,
                    missing=f"{last + 1}..{entry.seq - 1}" if missing > 1 else str(last + 1),
                    waited=consumer.gap_timeout,
                    stream=consumer.stream,
                )
                return True
            deadline = loop.time() + consumer.gap_timeout  # held by a live consumer: wait on
        delay = min(delay * 2, 0.1)
    return False


async def _missing(consumer: RedisEventConsumer, queue: RunQueue, entry: Entry, last: int) -> str:
    """Where the run's entries between ``last`` and ``entry`` are: ``claimed`` (pending with
    a dead consumer: now ours), ``pending`` (with a live one) or ``none`` (never written)."""
    client = consumer._client
    pending = await client.xpending_range(
        consumer.stream, consumer.group, min="-", max=f"({entry.id}", count=consumer.scan
    )
    # our own entries that are not held here are on their way in (just reclaimed): alive
    others = [p for p in pending if p["message_id"] not in consumer._held]
    if not others:
        return "none"
    async with client.pipeline(transaction=False) as pipe:
        for item in others:
            pipe.xrange(consumer.stream, item["message_id"], item["message_id"])
        found = await pipe.execute()
    dead: list[str] = []
    alive = False
    for item, rows in zip(others, found):
        ours = item["consumer"] == consumer.consumer
        idle = item["time_since_delivered"] >= consumer.claim_idle * 1000
        if not rows:
            # trimmed while pending: its run is unknown here, and its holder may still have
            # it in hand (then it may be this run's missing entry): wait for a live holder,
            # take it over from a dead one (it is then acknowledged and counted trimmed)
            if not ours and idle:
                dead.append(item["message_id"])
            else:
                alive = True
            continue
        fields = rows[0][1]
        if fields.get("run_id") != queue.run_id:
            continue
        try:
            seq = int(fields.get("seq", "0"))
        except ValueError:
            continue
        if not last < seq < entry.seq:
            continue
        if not ours and idle:
            dead.append(item["message_id"])
        else:
            alive = True
    if dead:
        claimed = await client.xclaim(
            consumer.stream,
            consumer.group,
            consumer.consumer,
            int(consumer.claim_idle * 1000),
            dead,
        )
        if claimed:
            await deliver_claimed(consumer, claimed)
            return "claimed"
        return "pending"  # claimed by another consumer (or our reclaim) just now
    return "pending" if alive else "none"


async def _handle(
    consumer: RedisEventConsumer, run_id: str, entry: Entry, redelivered: int
) -> None:
    """Run the handlers of ``entry`` (retrying the failed ones), then commit it, or move it to
    the dead-letter stream once it failed ``max_attempts`` times."""
    attempts = redelivered
    error: str | None = None
    if attempts >= consumer.max_attempts:
        error = f"delivered {attempts} times without being acknowledged (its consumers died)"
    else:
        try:
            record = to_record(entry)
        except Exception as exc:  # a record this version cannot read: retrying cannot help
            error = f"the record does not parse: {type(exc).__name__}: {exc}"
            pending = []
        else:
            pending = consumer._registry.for_record(entry.type, record.tool_name)
        delay = consumer.retry_delay
        while pending:
            failed = []
            for reg in pending:
                try:
                    await call(reg, record)
                except Exception as exc:
                    failed.append(reg)
                    error = f"{reg.label}: {type(exc).__name__}: {exc}"
                    log.warning(
                        "redis_consumer_handler_failed",
                        run_id=run_id,
                        seq=entry.seq,
                        hook_event=entry.type,
                        handler=reg.label,
                        error=f"{type(exc).__name__}: {exc}",
                        attempt=attempts + 1,
                    )
            if not failed:
                error = None
                break
            attempts += 1
            consumer.stats.failures += 1
            if attempts >= consumer.max_attempts:
                break
            if consumer._stopping:
                consumer._release(entry.id)  # left pending: handled after a restart or reclaim
                return
            await asyncio.sleep(delay)
            delay = min(delay * 2, 5.0)
            pending = failed
    if error is not None:
        await _dead_letter(consumer, entry, error, attempts)
    consumer._commit(run_id, entry.seq, entry.id)
    if error is None:
        consumer.stats.handled += 1


async def _dead_letter(
    consumer: RedisEventConsumer, entry: Entry, error: str, attempts: int
) -> None:
    fields: dict[str, Any] = {
        "run_id": entry.run_id,
        "seq": entry.seq,
        "type": entry.type,
        "record": _json(entry.record),
        "entry_id": entry.id,
        "stream": consumer.stream,
        "group": consumer.group,
        "consumer": consumer.consumer,
        "attempts": attempts,
        "error": error,
    }
    await consumer._client.xadd(consumer.dead_letter, fields, maxlen=consumer.maxlen_dead)
    consumer.stats.dead_lettered += 1
    log.error(
        "redis_consumer_dead_letter",
        run_id=entry.run_id,
        seq=entry.seq,
        hook_event=entry.type,
        entry_id=entry.id,
        attempts=attempts,
        error=error,
        dead_letter=consumer.dead_letter,
    )


def _json(value: Any) -> str:
    import json

    return json.dumps(value, ensure_ascii=False, default=str)


__all__ = ["RunQueue", "work"]
