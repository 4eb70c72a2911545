"""A simple key-value memory for tools, firing the memory events."""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import TYPE_CHECKING, Any

from ..events.contexts import (
    MemoryContext,
    MemoryErrorContext,
    MemoryReadContext,
    MemoryWriteContext,
)

if TYPE_CHECKING:
    from ..bus import HookBus
    from .run_state import Run

_MISSING: Any = object()


class Memory:
    """Key-value memory an agent's tools share (``ToolContext.memory``).

    Reads and writes inside a run fire ``on_memory_read`` / ``on_memory_write`` on the run's
    bus with the run's context; a failed operation fires ``on_memory_error`` and re-raises.

    Args:
        store: Any mutable mapping to keep the values in; default: a new dict.
        bus: Where the events fire for reads and writes outside a run.
    """

    def __init__(
        self, store: MutableMapping[str, Any] | None = None, *, bus: HookBus | None = None
    ) -> None:
        self.store: MutableMapping[str, Any] = {} if store is None else store
        self.bus = bus

    def bind(self, run: Run) -> MemoryView:
        """This memory as seen from inside ``run`` (events carry the run's context)."""
        return MemoryView(self, run)

    async def get(self, key: str, default: Any = _MISSING) -> Any:
        """The value of ``key``; ``default`` when absent, else ``KeyError``."""
        return await MemoryView(self, None).get(key, default)

    async def set(self, key: str, value: Any) -> None:
        """Store ``value`` under ``key``."""
        await MemoryView(self, None).set(key, value)

    async def delete(self, key: str) -> None:
        """Remove ``key`` (``KeyError`` when absent)."""
        await MemoryView(self, None).delete(key)

    def __contains__(self, key: object) -> bool:
        return key in self.store


class MemoryView:
    """A ``Memory`` bound to a run, so its events carry the run's context."""

    __slots__ = ("memory", "run")

    def __init__(self, memory: Memory, run: Run | None) -> None:
        self.memory = memory
        self.run = run

    @property
    def store(self) -> MutableMapping[str, Any]:
        """The mapping the memory keeps its values in."""
        return self.memory.store

    def __contains__(self, key: object) -> bool:
        return key in self.memory.store

    async def get(self, key: str, default: Any = _MISSING) -> Any:
        """The value of ``key``; ``default`` when absent, else ``KeyError``."""
        try:
            if default is _MISSING:
                value = self.memory.store[key]
            else:
                value = self.memory.store.get(key, default)
        except Exception as exc:
            await self._fire("on_memory_error", key=key, operation="read", error=exc)
            raise
        await self._fire("on_memory_read", key=key, value=value, operation="read")
        return value

    async def set(self, key: str, value: Any) -> None:
        """Store ``value`` under ``key``."""
        try:
            self.memory.store[key] = value
        except Exception as exc:
            await self._fire("on_memory_error", key=key, value=value, operation="write", error=exc)
            raise
        await self._fire("on_memory_write", key=key, value=value, operation="write")

    async def delete(self, key: str) -> None:
        """Remove ``key`` (``KeyError`` when absent)."""
        try:
            del self.memory.store[key]
        except Exception as exc:
            await self._fire("on_memory_error", key=key, operation="delete", error=exc)
            raise
        await self._fire("on_memory_write", key=key, value=None, operation="delete")

    async def _fire(self, event: str, **fields: Any) -> None:
        cls = _CONTEXTS[event]
        if self.run is not None:
            await self.run.fire(event, cls, **fields)
            return
        bus = self.memory.bus
        if bus is not None and event in bus.listened:
            await bus.emit(event, cls(**fields))


_CONTEXTS: dict[str, type[MemoryContext]] = {
    "on_memory_read": MemoryReadContext,
    "on_memory_write": MemoryWriteContext,
    "on_memory_error": MemoryErrorContext,
}


__all__ = ["Memory", "MemoryView"]
