"""RedisEventPublisher: every ``on_event`` record as one entry of a Redis stream.

The ``on_event`` handler never waits for Redis: it numbers the record within its run, encodes
it and appends it to a bounded buffer. A sender task on the running loop drains the buffer in
batches of ``XADD`` (``MAXLEN ~``), one script call per batch, one batch at a time, so the entries of a run reach
the stream in ``seq`` order. While Redis is slow or down the batch is kept and retried with
backoff; the buffer keeps the newest ``buffer`` entries and counts what it drops.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import redis.asyncio as redis_asyncio
import structlog
from redis.backoff import ExponentialWithJitterBackoff

from .checks import check_whole
from .entry import pack
from .sending import XADD_BATCH, batch_args, send_blocking
from .settings import (
    DEFAULT_BATCH,
    DEFAULT_BUFFER,
    DEFAULT_FLUSH_TIMEOUT,
    DEFAULT_MAX_RUNS,
    DEFAULT_MAXLEN,
    DEFAULT_STREAM,
    DEFAULT_TIMEOUT,
    DEFAULT_URL,
    RedisSettings,
)

if TYPE_CHECKING:
    from agenthooks import HookBus
    from agenthooks.events import EventRecord, RunResumedContext

log = structlog.get_logger("agenthooks.redis")

PUBLISH_PRIORITY = 10**6
"""The ``on_event`` handler runs before ordinary ones, so none of them can keep a record off
the stream."""
DROP_LOG_INTERVAL = 10.0
"""Seconds between two ``redis_events_dropped`` lines while entries are being dropped."""
"""Runs whose last ``seq`` is remembered (least recently active forgotten first)."""

Fields = bytes


@dataclass(slots=True)
class PublisherStats:
    """Counters since the publisher was created."""

    sent: int = 0
    """Entries Redis acknowledged."""
    dropped: int = 0
    """Entries dropped: the buffer was full, or a close could not deliver them in time."""
    failed_batches: int = 0
    """Pipelines that failed (each one kept and retried)."""


class RedisEventPublisher:
    """Send every ``on_event`` record to a Redis stream: ``bus.use(RedisEventPublisher(url))``.

    Build it and ``bus.use`` it anywhere, inside a running loop or not: nothing connects until
    the first record. The disposer ``bus.use`` returned (once every bus it was installed on
    has removed it) and ``await aclose()`` both flush the buffer and stop; whichever comes
    second is a no-op. The disposer is synchronous, so it sends with a blocking client, for
    at most about ``flush_timeout`` seconds.

    Args:
        url: The Redis to write to (``redis://``, ``rediss://``, ``unix://``).
        stream: The stream key.
        maxlen: The stream's bound (``XADD MAXLEN ~``).
        buffer: Entries kept while Redis is slow or down; beyond it the oldest are dropped
            and counted (``stats.dropped``, a ``redis_events_dropped`` warning).
        batch: Entries per pipeline.
        timeout: Seconds a Redis round trip may take.
        flush_timeout: Seconds closing may take to send what is buffered.
        max_runs: Runs whose record numbering is remembered; the least recently active
            is forgotten beyond it.

    Raises:
        RedisConfigError: An option is bad; it names the option.
    """

    name = "redis"

    def __init__(
        self,
        url: str = DEFAULT_URL,
        *,
        stream: str = DEFAULT_STREAM,
        maxlen: int = DEFAULT_MAXLEN,
        buffer: int = DEFAULT_BUFFER,
        batch: int = DEFAULT_BATCH,
        timeout: float = DEFAULT_TIMEOUT,
        flush_timeout: float = DEFAULT_FLUSH_TIMEOUT,
        max_runs: int = DEFAULT_MAX_RUNS,
    ) -> None:
        self._configure(
            RedisSettings.of(
                "RedisEventPublisher",
                url=url,
                stream=stream,
                maxlen=maxlen,
                buffer=buffer,
                batch=batch,
                timeout=timeout,
                flush_timeout=flush_timeout,
                max_runs=max_runs,
            )
        )

    @classmethod
    def from_env(cls) -> RedisEventPublisher:
        """The publisher the ``AGENTHOOKS_REDIS_*`` variables configure (the ``redis`` entry
        point builds it so): ``URL`` (default ``redis://127.0.0.1:6379/0``), ``STREAM``,
        ``MAXLEN``, ``BUFFER``, ``BATCH``, ``TIMEOUT``, ``FLUSH_TIMEOUT``, ``MAX_RUNS``.

        Raises:
            RedisConfigError: Naming the variable that is unknown or bad.
        """
        publisher = cls.__new__(cls)
        publisher._configure(RedisSettings.from_env())
        return publisher

    def _configure(self, options: RedisSettings) -> None:
        self.url = options.url
        self.stream = options.stream
        self.maxlen = options.maxlen
        self.buffer = options.buffer
        self.batch = options.batch
        self.timeout = options.timeout
        self.flush_timeout = options.flush_timeout
        self.max_runs = options.max_runs
        self.stats = PublisherStats()
        self._pending: deque[Fields] = deque()
        self._inflight: list[Fields] = []
        self._seqs: OrderedDict[str, int] = OrderedDict()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._sender: asyncio.Task[None] | None = None
        self._wake: asyncio.Event | None = None
        self._client: Any = None
        self._closing = False
        self._closed = False
        self._installs: list[Callable[[], None]] = []
        self._unlogged_drops = 0
        self._drop_logged = float("-inf")
        self._backoff = ExponentialWithJitterBackoff(base=0.05, cap=2.0)
        self._lock = threading.Lock()  # close() may come from another thread
        self._closer: asyncio.Task[None] | None = None

    def __repr__(self) -> str:
        return f"RedisEventPublisher({self.url!r}, stream={self.stream!r})"

    # installing -----------------------------------------------------------------------------

    def setup(self, bus: HookBus) -> Callable[[], None]:
        """Plugin hook: register the ``on_event`` handler; the undo removes it and, once no bus
        has the publisher any more, flushes and closes (``close()``)."""
        publishing = bus.on("on_event", self.publish, priority=PUBLISH_PRIORITY, errors="isolate")
        # a run resumed in this process continues the numbering of the process that paused it
        resuming = bus.on("on_run_resumed", self._resumed, priority=PUBLISH_PRIORITY)

        def dispose() -> None:
            publishing()
            resuming()

        self._installs.append(dispose)

        def undo() -> None:
            dispose()
            if dispose in self._installs:
                self._installs.remove(dispose)
            if not self._installs:
                self.close()

        return undo

    # the run's side: never waits --------------------------------------------------------------

    def publish(self, record: EventRecord) -> None:
        """The ``on_event`` handler: number ``record`` within its run and buffer its entry."""
        if self._closed:
            self._drop(1)
            return
        run_id = record.run_id
        seqs = self._seqs
        seq = seqs.get(run_id, 0) + 1
        seqs[run_id] = seq
        seqs.move_to_end(run_id)
        if len(seqs) > self.max_runs:
            seqs.popitem(last=False)
        pending = self._pending
        if len(pending) >= self.buffer:
            pending.popleft()
            self._drop(1)
        pending.append(pack(record, seq))
        loop = asyncio.get_running_loop()
        sender = self._sender
        if loop is not self._loop or sender is None or sender.done():
            self._start(loop)
        elif self._wake is not None and not self._wake.is_set():
            self._wake.set()

    def _resumed(self, ctx: RunResumedContext) -> None:
        self.resume_seq(ctx.run_id, ctx.records)

    def last_seq(self, run_id: str) -> int:
        """The ``seq`` of the last entry numbered for ``run_id`` (0: none yet)."""
        return self._seqs.get(run_id, 0)

    def resume_seq(self, run_id: str, last_seq: int) -> None:
        """Continue ``run_id``'s numbering after ``last_seq``: what a process that resumes a
        paused run calls first, with the ``last_seq`` the pausing process stored."""
        self._seqs[run_id] = check_whole(last_seq, "resume_seq", "last_seq", minimum=0)
        self._seqs.move_to_end(run_id)

    @property
    def buffered(self) -> int:
        """Entries not yet acknowledged by Redis (buffered or in flight)."""
        return len(self._pending) + len(self._inflight)

    def _drop(self, count: int) -> None:
        self.stats.dropped += count
        self._unlogged_drops += count
        now = time.monotonic()
        if now - self._drop_logged >= DROP_LOG_INTERVAL:
            self._log_drops(now)

    def _log_drops(self, now: float) -> None:
        log.warning(
            "redis_events_dropped",
            dropped=self._unlogged_drops,
            total=self.stats.dropped,
            buffer=self.buffer,
            stream=self.stream,
        )
        self._unlogged_drops = 0
        self._drop_logged = now

    # the sender -------------------------------------------------------------------------------

    def _start(self, loop: asyncio.AbstractEventLoop) -> None:
        # a client and a task per loop: asyncio clients cannot cross loops (asyncio.run per
        # chat_sync call makes a new loop each time); what the old loop left is still pending
        self._loop = loop
        self._client = redis_asyncio.Redis.from_url(
            self.url, socket_timeout=self.timeout, socket_connect_timeout=self.timeout
        )
        self._wake = wake = asyncio.Event()
        wake.set()
        script = self._client.register_script(XADD_BATCH)
        self._sender = loop.create_task(self._send_loop(script, wake))

    async def _send_loop(self, script: Any, wake: asyncio.Event) -> None:
        failures = 0
        while True:
            if not self._pending:
                if self._closing or self._closed:
                    return
                wake.clear()
                await wake.wait()
                continue
            batch = self._take()
            try:
                await script(keys=[self.stream], args=self._args(batch))
            except asyncio.CancelledError:
                self._put_back(batch)
                raise
            except Exception as exc:  # Redis slow or down: keep the batch, back off, retry
                self._put_back(batch)
                failures += 1
                self.stats.failed_batches += 1
                if failures == 1:
                    log.warning(
                        "redis_publish_failed",
                        error=f"{type(exc).__name__}: {exc}",
                        stream=self.stream,
                        buffered=self.buffered,
                    )
                await asyncio.sleep(self._backoff.compute(failures))
                continue
            self._inflight = []
            self.stats.sent += len(batch)
            if failures:
                if self._unlogged_drops:
                    self._log_drops(time.monotonic())
                log.info(
                    "redis_publish_resumed",
                    failed_batches=failures,
                    dropped_total=self.stats.dropped,
                    stream=self.stream,
                )
                failures = 0

    def _take(self) -> list[Fields]:
        pending = self._pending
        size = min(self.batch, len(pending))
        self._inflight = batch = [pending.popleft() for _ in range(size)]
        return batch

    def _put_back(self, batch: list[Fields]) -> None:
        if self._closed or self._inflight is not batch:
            return  # close() took it over
        self._inflight = []
        pending = self._pending
        pending.extendleft(reversed(batch))
        excess = len(pending) - self.buffer
        if excess > 0:
            for _ in range(excess):
                pending.popleft()
            self._drop(excess)

    def _args(self, batch: list[Fields]) -> list[Any]:
        return batch_args(self.maxlen, batch)

    # closing --------------------------------------------------------------------------------

    async def aclose(self) -> None:
        """Stop taking records, send what is buffered (for at most ``flush_timeout``
        seconds; what is left then is counted as dropped) and close the connection."""
        if self._closed or self._closing:
            return
        self._closing = True
        for dispose in list(self._installs):
            dispose()
        self._installs.clear()
        loop = asyncio.get_running_loop()
        if self.buffered and (
            self._loop is not loop or self._sender is None or self._sender.done()
        ):
            self._start(loop)
        sender = self._sender
        if sender is not None and not sender.done() and self._loop is loop:
            assert self._wake is not None
            self._wake.set()
            try:
                await asyncio.wait_for(asyncio.shield(sender), self.flush_timeout)
            except (asyncio.TimeoutError, TimeoutError):
                sender.cancel()
                try:
                    await sender
                except asyncio.CancelledError:
                    pass
        self._finish("aclose")
        client, self._client = self._client, None
        if client is not None and self._loop is loop:
            await client.aclose()

    def close(self) -> None:
        """Synchronous close (what the plugin's disposer calls): send what is buffered with a
        blocking client, bounded by ``flush_timeout``, and stop the sender. Idempotent."""
        with self._lock:
            if self._closed:
                return
            for dispose in list(self._installs):
                dispose()
            self._installs.clear()
            batch = self._inflight + list(self._pending)  # the batch in flight first: in order
            self._closed = True
            self._inflight = []
            self._pending.clear()
        self._stop_sender()
        if batch:
            self._send_blocking(batch)
        self._finish("close")

    def _stop_sender(self) -> None:
        sender, loop, client = self._sender, self._loop, self._client
        self._client = None
        if sender is None or loop is None or loop.is_closed():
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            sender.cancel()
            if client is not None:
                self._closer = loop.create_task(client.aclose())
        elif loop.is_running():
            loop.call_soon_threadsafe(sender.cancel)

    def _send_blocking(self, batch: list[Fields]) -> None:
        sent = 0
        try:
            for chunk in send_blocking(
                self.url, self.stream, self.maxlen, self.batch, batch, self.flush_timeout
            ):
                sent += chunk
        except Exception as exc:
            log.warning(
                "redis_flush_failed",
                error=f"{type(exc).__name__}: {exc}",
                sent=sent,
                lost=len(batch) - sent,
                stream=self.stream,
            )
            self._drop(len(batch) - sent)
        finally:
            self.stats.sent += sent

    def _finish(self, how: str) -> None:
        left = self.buffered
        self._closed = True
        if left:
            self._inflight = []
            self._pending.clear()
            log.warning("redis_flush_incomplete", lost=left, how=how, stream=self.stream)
            self._drop(left)
        if self._unlogged_drops:
            self._log_drops(time.monotonic())


__all__ = [
    "DROP_LOG_INTERVAL",
    "PUBLISH_PRIORITY",
    "PublisherStats",
    "RedisEventPublisher",
]
