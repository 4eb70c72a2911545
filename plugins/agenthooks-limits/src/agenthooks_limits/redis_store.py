"""RedisStore: the limits' counters in Redis, shared by every process that uses it (the
``[redis]`` extra). One Lua script per check keeps it atomic across processes; the sliding
windows read Redis's own clock, so processes on different machines share one time line."""

from __future__ import annotations

import math
import uuid
from collections.abc import Sequence
from typing import Any

from agenthooks.plugins import LoopClients

from .settings import LimitsConfigError
from .store import Check

COUNT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local used = {}
local blocked = false
for i, key in ipairs(KEYS) do
  local base = (i - 1) * 5
  local per = tonumber(ARGV[base + 4])
  local u
  if per > 0 then
    redis.call('ZREMRANGEBYSCORE', key, '-inf', now - per)
    u = redis.call('ZCARD', key)
  else
    u = tonumber(redis.call('GET', key) or '0')
  end
  used[i] = string.format('%.17g', u)
  local block = ARGV[base + 3]
  if block ~= '' and u / tonumber(ARGV[base + 2]) >= tonumber(block) then
    blocked = true
  end
end
if not blocked then
  for i, key in ipairs(KEYS) do
    local base = (i - 1) * 5
    local amount = tonumber(ARGV[base + 1])
    local per = tonumber(ARGV[base + 4])
    local ttl = tonumber(ARGV[base + 5])
    if amount ~= 0 then
      if per > 0 then
        redis.call('ZADD', key, now, ARGV[#ARGV] .. ':' .. i)
        redis.call('PEXPIRE', key, math.ceil(per * 1000))
      else
        redis.call('INCRBYFLOAT', key, amount)
        if ttl > 0 then redis.call('PEXPIRE', key, ttl) end
      end
    end
  end
end
table.insert(used, 1, blocked and '0' or '1')
return used
"""
"""KEYS: the counters. ARGV: per key amount, limit, block level ('' never), per (0: a total),
TTL in ms (0: none); last a token unique to the call. Returns [counted, used...]."""

ADD = """
local total = redis.call('INCRBYFLOAT', KEYS[1], ARGV[1])
if tonumber(ARGV[2]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return total
"""


class RedisStore:
    """Counters under ``prefix`` in the Redis at ``url`` (``pip install 'agenthooks-limits[redis]'``).

    Use the same ``url`` and ``prefix`` in every process that shares a budget. Without
    ``client`` a ``redis.asyncio`` client is made per event loop; ``await store.aclose()``
    closes it.
    """

    def __init__(
        self,
        url: str = "redis://127.0.0.1:6379/0",
        *,
        prefix: str = "agenthooks:limits:",
        client: Any = None,
    ) -> None:
        try:
            import redis.asyncio as redis_asyncio
            from redis.connection import parse_url
        except ImportError:
            raise LimitsConfigError(
                "the redis package is not installed: pip install 'agenthooks-limits[redis]'",
                key="store",
            ) from None
        if not isinstance(prefix, str):
            raise LimitsConfigError(f"expected a string, got {prefix!r}", key="store.prefix")
        if client is None:
            try:
                parse_url(url)  # type: ignore[no-untyped-call]
            except (TypeError, ValueError) as exc:
                raise LimitsConfigError(f"{url!r}: {exc}", key="store.url") from None
        self.url = url
        self.prefix = prefix
        self._clients: LoopClients[Any] = LoopClients(
            lambda: redis_asyncio.Redis.from_url(url, decode_responses=True), client
        )

    def client(self) -> Any:
        """The client for the running event loop."""
        return self._clients.get()

    async def count(self, checks: Sequence[Check]) -> tuple[list[float], bool]:
        """See ``LimitsStore.count``."""
        args: list[Any] = []
        for check in checks:
            args += [
                repr(float(check.amount)),
                repr(float(check.limit)),
                "" if check.block is None else repr(float(check.block)),
                repr(float(check.per or 0)),
                0 if check.ttl is None else max(1, math.ceil(check.ttl * 1000)),
            ]
        args.append(uuid.uuid4().hex)
        keys = [self.prefix + check.key for check in checks]
        result = await self.client().eval(COUNT, len(keys), *keys, *args)
        return [float(u) for u in result[1:]], str(result[0]) == "1"

    async def add(self, key: str, amount: float, ttl: float | None) -> float:
        """See ``LimitsStore.add``."""
        ms = 0 if ttl is None else max(1, math.ceil(ttl * 1000))
        total = await self.client().eval(ADD, 1, self.prefix + key, repr(float(amount)), ms)
        return float(total)

    async def forget(self, keys: Sequence[str]) -> None:
        """See ``LimitsStore.forget``."""
        if keys:
            await self.client().delete(*(self.prefix + key for key in keys))

    async def aclose(self) -> None:
        """Close the client of the running loop, if this store created it."""
        await self._clients.aclose()

    def __repr__(self) -> str:
        return f"RedisStore({self.url!r}, prefix={self.prefix!r})"


__all__ = ["ADD", "COUNT", "RedisStore"]
