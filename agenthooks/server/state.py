"""What a session keeps between requests, where every worker can read it.

A session's run lives as long as the client's session, across requests that any worker may
answer: who opened it (a session is served to that caller only), whether its start was fired
(once, by whichever worker claimed it first), and why it stopped, if a handler stopped it.
``MemoryState`` keeps that in this process (one worker); ``RedisState`` in Redis, so several
workers and hosts serve one session as one run.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass
from typing import Any, Protocol

from ..loop_clients import LoopClients


@dataclass
class Session:
    """One session's shared state."""

    owner: str
    started: bool = False
    stopped: str | None = None
    records: int = 0
    """The ``on_event`` records the session's run emitted so far, in every worker (so the
    worker that takes the session up next numbers its records on from there)."""


class SessionState(Protocol):
    """Where sessions' state lives."""

    async def open(self, key: str, caller: str) -> Session:
        """The session ``key``'s state, created with ``caller`` as its owner if new."""
        ...

    async def claim_start(self, key: str) -> bool:
        """True for the one caller that first claims the session's start."""
        ...

    async def stop(self, key: str, reason: str) -> None:
        """Remember why the session stopped: every later request is answered with it."""
        ...

    async def forget(self, key: str) -> None:
        """Drop an ended session (the same id later starts a new run)."""
        ...

    async def note_records(self, key: str, count: int) -> None:
        """The session's run has emitted ``count`` records so far (kept when it is more than
        the count known)."""
        ...

    async def spend(self, caller: str, calls: int, per: float) -> int | None:
        """Count one request of ``caller`` in a sliding window of ``per`` seconds: ``None``
        when it is within ``calls``, else the number already made in the window (the request
        is then not counted)."""
        ...

    async def aclose(self) -> None:
        """Release connections."""
        ...


class MemoryState:
    """Sessions' state in this process: right for one worker."""

    def __init__(self) -> None:
        self._sessions: dict[str, Session] = {}
        self._windows: dict[str, deque[float]] = {}

    async def open(self, key: str, caller: str) -> Session:
        """See ``SessionState.open``."""
        return self._sessions.setdefault(key, Session(caller))

    async def claim_start(self, key: str) -> bool:
        """See ``SessionState.claim_start``."""
        session = self._sessions.get(key)
        if session is None or session.started:
            return False
        session.started = True
        return True

    async def stop(self, key: str, reason: str) -> None:
        """See ``SessionState.stop``."""
        session = self._sessions.get(key)
        if session is not None:
            session.stopped = reason

    async def forget(self, key: str) -> None:
        """See ``SessionState.forget``."""
        self._sessions.pop(key, None)

    async def note_records(self, key: str, count: int) -> None:
        """See ``SessionState.note_records``."""
        session = self._sessions.get(key)
        if session is not None and count > session.records:
            session.records = count

    async def spend(self, caller: str, calls: int, per: float) -> int | None:
        """See ``SessionState.spend``."""
        now = time.monotonic()
        window = self._windows.setdefault(caller, deque())
        while window and window[0] <= now - per:
            window.popleft()
        if len(window) >= calls:
            return len(window)
        window.append(now)
        return None

    async def aclose(self) -> None:
        """Nothing to release."""


_SPEND = """
local now = redis.call('TIME')
local micros = tonumber(now[1]) * 1000000 + tonumber(now[2])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', micros - window)
local made = redis.call('ZCARD', KEYS[1])
if made >= tonumber(ARGV[1]) then
  return made
end
redis.call('ZADD', KEYS[1], micros, micros .. '-' .. redis.call('INCR', KEYS[1] .. ':n'))
redis.call('PEXPIRE', KEYS[1], math.ceil(window / 1000))
redis.call('PEXPIRE', KEYS[1] .. ':n', math.ceil(window / 1000))
return -1
"""
"""A sliding window per caller: drop what left it, refuse when full, else count this one
(members are unique: two requests in one microsecond both count)."""


_MAX_RECORDS = """
if redis.call('EXISTS', KEYS[1]) == 1 and
   tonumber(redis.call('HGET', KEYS[1], 'records') or '0') < tonumber(ARGV[1]) then
  redis.call('HSET', KEYS[1], 'records', ARGV[1])
end
"""


class RedisState:
    """Sessions' state in Redis (one hash per session, ``PREFIX + key``), so any worker on
    any host answers any session. A Redis that cannot be reached fails the request (a 500
    the client reads as a failure: closed for its gates), never an allow.

    Args:
        url: The Redis (``redis://127.0.0.1:6379/0``).
        prefix: The key prefix of the sessions' hashes.
        ttl: Seconds a session's state is kept after its last request (a client that
            never sends its end leaves nothing behind for good).
    """

    def __init__(
        self, url: str, *, prefix: str = "agenthooks:server:session:", ttl: int = 7 * 86400
    ) -> None:
        import redis.asyncio as aioredis  # the redis distribution: agenthooks-redis brings it

        self.url = url
        self.prefix = prefix
        self.ttl = ttl
        self._clients: LoopClients[Any] = LoopClients(
            lambda: aioredis.Redis.from_url(url, decode_responses=True, socket_timeout=5)
        )

    def __repr__(self) -> str:
        return f"RedisState({self.url!r})"

    async def open(self, key: str, caller: str) -> Session:
        """See ``SessionState.open``: one round trip (HSETNX, EXPIRE, HGETALL)."""
        client = self._clients.get()
        name = self.prefix + key
        async with client.pipeline(transaction=True) as pipe:
            pipe.hsetnx(name, "owner", caller)
            pipe.expire(name, self.ttl)
            pipe.hgetall(name)
            *_, fields = await pipe.execute()
        return Session(
            owner=fields.get("owner", caller),
            started=fields.get("started") == "1",
            stopped=fields.get("stopped"),
            records=int(fields.get("records", 0)),
        )

    async def claim_start(self, key: str) -> bool:
        """See ``SessionState.claim_start`` (HSETNX: one winner across workers)."""
        return bool(await self._clients.get().hsetnx(self.prefix + key, "started", "1"))

    async def stop(self, key: str, reason: str) -> None:
        """See ``SessionState.stop``."""
        await self._clients.get().hset(self.prefix + key, "stopped", reason)

    async def forget(self, key: str) -> None:
        """See ``SessionState.forget``."""
        await self._clients.get().delete(self.prefix + key)

    async def note_records(self, key: str, count: int) -> None:
        """See ``SessionState.note_records`` (one script: set when greater)."""
        await self._clients.get().eval(_MAX_RECORDS, 1, self.prefix + key, count)

    async def spend(self, caller: str, calls: int, per: float) -> int | None:
        """See ``SessionState.spend``: one script, on Redis's clock, so every worker and
        host counts against one window per caller."""
        client = self._clients.get()
        made = await client.eval(
            _SPEND, 1, f"{self.prefix}rate:{caller}", calls, int(per * 1_000_000)
        )
        return None if int(made) < 0 else int(made)

    async def aclose(self) -> None:
        """Close this process's Redis clients."""
        await self._clients.aclose()


__all__ = ["MemoryState", "RedisState", "Session", "SessionState"]
