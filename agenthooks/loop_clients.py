"""One client per running event loop: an asyncio client (redis-py's, say) cannot cross loops,
so a store shared by several loops (a test's, a worker thread's) makes one for each."""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Awaitable, Callable
from typing import Generic, Protocol, TypeVar


class Closable(Protocol):
    """A client closed with ``await client.aclose()``."""

    def aclose(self) -> Awaitable[object]:
        """Close the client and release its connections."""
        ...


C = TypeVar("C", bound=Closable)


class LoopClients(Generic[C]):
    """The client of the running loop, made by ``make`` on first use; or ``given``, used as is
    in every loop and never closed here."""

    def __init__(self, make: Callable[[], C], given: C | None = None) -> None:
        self._make = make
        self._given = given
        self._made: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, C] = (
            weakref.WeakKeyDictionary()
        )

    def get(self) -> C:
        """The client for the running event loop."""
        if self._given is not None:
            return self._given
        loop = asyncio.get_running_loop()
        client = self._made.get(loop)
        if client is None:
            client = self._made[loop] = self._make()
        return client

    async def aclose(self) -> None:
        """Close the running loop's client, if one was made for it here."""
        client = self._made.pop(asyncio.get_running_loop(), None)
        if client is not None:
            await client.aclose()


__all__ = ["Closable", "LoopClients"]
