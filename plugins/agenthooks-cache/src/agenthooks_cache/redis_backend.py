"""RedisBackend: entries in Redis, shared between processes (the ``[redis]`` extra)."""

from __future__ import annotations

import math
from typing import Any

from agenthooks.plugins import LoopClients

from .settings import CacheConfigError


class RedisBackend:
    """Entries under ``prefix + key`` in the Redis at ``url``, with Redis's own expiry.

    ``pip install 'agenthooks-cache[redis]'``. The size bound is Redis's (``maxmemory`` and
    its eviction policy), not ``max_entries``. Without ``client`` a ``redis.asyncio`` client
    is created per event loop on first use (an asyncio client cannot cross loops); with one,
    that client is used as is. ``await backend.aclose()`` closes the clients it created.
    """

    def __init__(
        self,
        url: str = "redis://127.0.0.1:6379/0",
        *,
        prefix: str = "agenthooks:cache:",
        client: Any = None,
    ) -> None:
        try:
            import redis.asyncio as redis_asyncio
        except ImportError:
            raise CacheConfigError(
                "cache",
                "RedisBackend",
                "redis",
                "the redis package is not installed: pip install 'agenthooks-cache[redis]'",
            ) from None
        if not isinstance(prefix, str):
            raise CacheConfigError("cache", "RedisBackend", "prefix", f"{prefix!r} is not a string")
        self.url = url
        self.prefix = prefix
        self._clients: LoopClients[Any] = LoopClients(
            lambda: redis_asyncio.Redis.from_url(url, decode_responses=True), client
        )
        if client is None:
            from redis.connection import parse_url

            try:  # a bad URL fails here, not mid-run
                parse_url(url)  # type: ignore[no-untyped-call]
            except (TypeError, ValueError) as exc:
                raise CacheConfigError("cache", "RedisBackend", "url", f"{url!r}: {exc}") from None

    def client(self) -> Any:
        """The client for the running event loop."""
        return self._clients.get()

    async def get(self, key: str) -> str | None:
        """The entry under ``prefix + key``, or ``None``."""
        value = await self.client().get(self.prefix + key)
        if isinstance(value, bytes):  # a client given without decode_responses
            return value.decode("utf-8")
        return value if isinstance(value, str) else None

    async def set(self, key: str, value: str, ttl: float | None) -> None:
        """Store ``value`` under ``prefix + key``, expiring after ``ttl`` seconds."""
        px = None if ttl is None else max(1, math.ceil(ttl * 1000))
        await self.client().set(self.prefix + key, value, px=px)

    async def clear(self) -> int:
        """Delete every key under ``prefix``; returns how many."""
        client = self.client()
        keys = [key async for key in client.scan_iter(match=self.prefix + "*")]
        return int(await client.delete(*keys)) if keys else 0

    async def aclose(self) -> None:
        """Close the client of the running loop, if this backend created it."""
        await self._clients.aclose()

    def __repr__(self) -> str:
        return f"RedisBackend({self.url!r}, prefix={self.prefix!r})"


__all__ = ["RedisBackend"]
