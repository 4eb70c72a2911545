"""Where entries live: the backend protocol and the in-memory LRU backend."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Protocol, runtime_checkable

from .settings import CacheConfigError


@runtime_checkable
class CacheBackend(Protocol):
    """Stores entries (JSON text) under keys. Methods may be sync or async.

    A raising backend never breaks a run: the plugin logs the error and treats it as a miss.
    """

    def get(self, key: str) -> str | Awaitable[str | None] | None:
        """The entry stored under ``key``, or ``None`` when it is missing or expired."""
        ...

    def set(self, key: str, value: str, ttl: float | None) -> Awaitable[None] | None:
        """Store ``value`` under ``key``, expiring after ``ttl`` seconds (``None``: never)."""
        ...


class MemoryBackend:
    """An in-process LRU: at most ``max_entries`` entries, the least recently used dropped
    first; an expired entry is dropped when read. ``clock`` (seconds, monotonic) is for tests.
    Not shared between processes; safe for the concurrent runs of one event loop."""

    def __init__(
        self, max_entries: int = 1024, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if isinstance(max_entries, bool) or not isinstance(max_entries, int) or max_entries < 1:
            raise CacheConfigError(
                "cache",
                "MemoryBackend",
                "max_entries",
                f"{max_entries!r} is not a whole number >= 1",
            )
        self.max_entries = max_entries
        self._clock = clock
        # key -> (expires at or None, entry); order: least recently used first
        self._entries: OrderedDict[str, tuple[float | None, str]] = OrderedDict()

    def get(self, key: str) -> str | None:
        """The entry under ``key``, or ``None``; a hit becomes the most recently used."""
        found = self._entries.get(key)
        if found is None:
            return None
        expires, value = found
        if expires is not None and self._clock() >= expires:
            del self._entries[key]
            return None
        self._entries.move_to_end(key)
        return value

    def set(self, key: str, value: str, ttl: float | None) -> None:
        """Store ``value`` under ``key`` (most recently used), evicting beyond the bound."""
        expires = None if ttl is None else self._clock() + ttl
        self._entries[key] = (expires, value)
        self._entries.move_to_end(key)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)

    def keys(self) -> list[str]:
        """The keys held, least recently used first (expired ones included until read)."""
        return list(self._entries)

    def clear(self) -> None:
        """Drop every entry."""
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"MemoryBackend({len(self)}/{self.max_entries} entries)"


__all__ = ["CacheBackend", "MemoryBackend"]
