"""What the kit records of a run: every event in firing order with the values a handler saw
(taken when it fired), and the checks every run's end must pass."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..bridges.needs import everywhere
from ..events.catalog import CATALOG

if TYPE_CHECKING:
    from ..bus import HookBus

TERMINAL = ("on_chat_done", "on_chat_error", "on_chat_abort", "on_chat_paused")
"""The events one of which ends every run."""

FIRST = 10**9
"""The log's priority: it hears each event before any handler under test."""


class EventLog:
    """Every event ``bus`` fires, as ``(name, values)``, in order.

    Args:
        bus: The bus to listen on (one observer per event, heard first, returning nothing).
    """

    def __init__(self, bus: HookBus) -> None:
        self.events: list[tuple[str, tuple[Any, ...]]] = []
        for name in CATALOG:
            if name != "on_event":
                bus.on(name, self._recorder(name), priority=FIRST)

    def _recorder(self, name: str) -> Any:
        def record(ctx: Any) -> None:
            self.events.append((name, values(name, ctx)))

        record.__qualname__ = f"EventLog.{name}"
        return everywhere(record)

    def names(self, among: frozenset[str] | None = None) -> list[str]:
        """The events fired (those in ``among``), tool events with their tool's name."""
        return [
            f"{name}:{vals[0]}" if name in _TOOL and vals else name
            for name, vals in self.events
            if among is None or name in among
        ]

    def of(self, name: str) -> list[tuple[Any, ...]]:
        """The values of each firing of ``name``."""
        return [vals for n, vals in self.events if n == name]

    def ending(self) -> str:
        """The run's one terminal event, checked: exactly one terminal event, then exactly
        one ``on_chat_end``, and nothing after it.

        Raises:
            AssertionError: Naming what was wrong, with the events as fired.
        """
        names = [n for n, _ in self.events]
        terminals = [n for n in names if n in TERMINAL]
        ends = [i for i, n in enumerate(names) if n == "on_chat_end"]
        assert len(terminals) == 1, f"expected one terminal event, got {terminals}: {names}"
        assert len(ends) == 1, f"expected one on_chat_end, got {len(ends)}: {names}"
        assert ends[0] == len(names) - 1, f"events fired after on_chat_end: {names}"
        assert names.index(terminals[0]) < ends[0], f"on_chat_end before the end: {names}"
        return terminals[0]


_TOOL = frozenset({"pre_tool_call", "on_tool_call_result", "on_tool_call_error"})


def values(name: str, ctx: Any) -> tuple[Any, ...]:
    """What the kit compares of an event's context, as it was when the event fired."""
    if name in _TOOL:
        call = ctx.call
        if name == "pre_tool_call":
            return (call.name, dict(call.arguments))
        if name == "on_tool_call_result":
            return (call.name, str(ctx.result))
        return (call.name, ctx.source)
    if name in ("on_loop_start", "on_loop_end"):
        return (ctx.iteration,)
    if name in ("on_chat_start", "on_user_message"):
        return (ctx.message,)
    if name in ("prepare_next_turn", "should_stop"):
        message = ctx.message
        return (
            ctx.iteration,
            [c.name for c in message.tool_calls] if message is not None else None,
            [m.content for m in ctx.tool_messages],
        )
    if name == "on_response":
        response = ctx.response
        return (response.content or None, [c.name for c in response.tool_calls])
    if name == "post_agent":
        return (ctx.response.content,)
    if name in ("on_chat_done", "on_chat_paused"):
        response = ctx.response
        return (response.content, str(response.finish_reason), response.usage.total_tokens)
    if name == "on_chat_error":
        return (type(ctx.error).__name__,)
    if name == "on_run_resumed":
        return (sorted(ctx.decisions), [type(d).__name__ for _, d in sorted(ctx.decisions.items())])
    return ()


__all__ = ["TERMINAL", "EventLog", "values"]
