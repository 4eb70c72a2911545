"""Where the counters live: in this process (``MemoryStore``, the default) or anywhere a
``LimitsStore`` reaches (``RedisStore``: every process on one Redis shares them).

A check is atomic over all its counters: either every counter whose amount is not zero is
counted, or, when one of them has reached its blocking level (a ``deny`` / ``stop`` step),
none is. That is what keeps a budget shared by several processes from being overspent by
more than the calls already in flight.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from .state import Window


@dataclass(frozen=True)
class Check:
    """One counter of a check: ``key``; ``amount`` to add when nothing blocks (0: only read);
    it blocks when ``used / limit >= block`` (``block`` ``None``: never); ``per``: a sliding
    window of that many seconds counting calls, instead of a running total; ``ttl``: seconds
    the counter lives after its last change (``None``: for ever)."""

    key: str
    amount: float
    limit: float
    block: float | None = None
    per: float | None = None
    ttl: float | None = None

    def blocks(self, used: float) -> bool:
        """Whether ``used`` reached the blocking level (the same test every store makes)."""
        return self.block is not None and used / self.limit >= self.block


@runtime_checkable
class LimitsStore(Protocol):
    """Counters for ``Limits``; methods may be sync or async."""

    def count(
        self, checks: Sequence[Check]
    ) -> tuple[list[float], bool] | Awaitable[tuple[list[float], bool]]:
        """Atomically: the used amount of each check (before), and whether they were counted
        (False when one of them blocks)."""
        ...

    def add(self, key: str, amount: float, ttl: float | None) -> float | Awaitable[float]:
        """Add ``amount`` to the total ``key`` (tokens or cost, known after a call); returns
        the new total."""
        ...

    def forget(self, keys: Sequence[str]) -> Awaitable[None] | None:
        """Drop counters (a finished run's)."""
        ...


class MemoryStore:
    """Counters in this process (``clock``: monotonic seconds, for the sliding windows)."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.totals: dict[str, float] = {}
        self.windows: dict[str, Window] = {}

    def count(self, checks: Sequence[Check]) -> tuple[list[float], bool]:
        """See ``LimitsStore.count``."""
        now = math.nan
        used: list[float] = []
        for check in checks:
            if check.per is None:
                used.append(self.totals.get(check.key, 0.0))
                continue
            if now != now:  # one clock reading per check
                now = self.clock()
            window = self.windows.get(check.key)
            if window is None:
                window = self.windows[check.key] = Window(check.per)
            used.append(float(window.used(now)))
        if any(check.blocks(u) for check, u in zip(checks, used)):
            return used, False
        for check in checks:
            if not check.amount:
                continue
            if check.per is None:
                self.totals[check.key] = self.totals.get(check.key, 0.0) + check.amount
            else:
                self.windows[check.key].add(now)
        return used, True

    def add(self, key: str, amount: float, ttl: float | None) -> float:
        """See ``LimitsStore.add``."""
        total = self.totals[key] = self.totals.get(key, 0.0) + amount
        return total

    def forget(self, keys: Sequence[str]) -> None:
        """See ``LimitsStore.forget``."""
        for key in keys:
            self.totals.pop(key, None)
            self.windows.pop(key, None)

    def __repr__(self) -> str:
        return f"MemoryStore({len(self.totals)} totals, {len(self.windows)} windows)"


__all__ = ["Check", "LimitsStore", "MemoryStore"]
