"""``HookTurn``: the handler chains of a run take turns while its tools run in parallel."""

from __future__ import annotations

import asyncio
from typing import Any


class HookTurn:
    """One handler chain of a run at a time, while its tools run in parallel: events fired
    from inside those tools (memory, sub-agent events) and the batch's after-events wait for
    each other. Re-entrant for the task holding it (a handler may fire a nested event)."""

    __slots__ = ("_lock", "_owner", "_depth")

    def __init__(self) -> None:
        self._lock = asyncio.Lock()
        self._owner: asyncio.Task[Any] | None = None
        self._depth = 0

    async def __aenter__(self) -> None:
        task = asyncio.current_task()
        if self._owner is not task:
            await self._lock.acquire()
            self._owner = task
        self._depth += 1

    async def __aexit__(self, *exc: object) -> None:
        self._depth -= 1
        if self._depth == 0:
            self._owner = None
            self._lock.release()


__all__ = ["HookTurn"]
