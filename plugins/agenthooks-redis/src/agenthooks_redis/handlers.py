"""The consumer's handler registry: ``.on(event, handler, match=...)`` as on a bus.

Names go through the core's ``resolve`` (canonical names and seed aliases, with suggestions
for a typo); ``match=`` through the core's ``compile_matcher``. A record matches on its
``tool_name``: the only name the stream's records carry, so ``match=`` works on the tool
events and raises on the others.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from agenthooks import Disposer, RegistrationError
from agenthooks.events import resolve
from agenthooks.record import Matcher, compile_matcher, handler_label

from .entry import StreamRecord

Handler = Callable[[StreamRecord], Any]
H = TypeVar("H", bound=Handler)

EVERY = "on_event"
"""Handlers of ``on_event`` receive every record."""


@dataclass(slots=True)
class Registration:
    """One handler on one event."""

    fn: Handler
    event: str
    priority: int
    order: int
    matcher: Callable[[str], bool] | None
    label: str = field(default="")


class Registry:
    """Handlers by canonical event name, each list sorted by priority then registration."""

    def __init__(self) -> None:
        self._by_event: dict[str, list[Registration]] = {}
        self._order = 0

    def on(
        self, event: str, handler: Handler | None, match: Matcher | None, priority: int
    ) -> Disposer | Callable[[H], H]:
        """Register ``handler`` (or return a decorator that does)."""
        spec = resolve(event)
        if match is not None and spec.match != "tool_name":
            raise RegistrationError(
                f"match= is not supported on {spec.name!r} by RedisEventConsumer: a stream "
                "record carries the tool name only, so match= works on the tool events"
            )
        matcher = compile_matcher(spec, match)
        if isinstance(priority, bool) or not isinstance(priority, int):
            raise RegistrationError(f"priority= must be an int, not {type(priority).__name__}")

        def add(fn: Handler) -> Disposer:
            if not callable(fn):
                raise RegistrationError(f"handler for {spec.name!r} must be callable, not {fn!r}")
            self._order += 1
            reg = Registration(fn, spec.name, priority, self._order, matcher, handler_label(fn))
            regs = self._by_event.setdefault(spec.name, [])
            regs.append(reg)
            regs.sort(key=lambda r: (-r.priority, r.order))
            return Disposer(lambda: self._remove(reg))

        if handler is None:

            def decorate(fn: H) -> H:
                add(fn)
                return fn

            return decorate
        return add(handler)

    def off(self, event: str, handler: Handler) -> bool:
        """Remove every registration of ``handler`` on ``event``; True if one was removed."""
        name = resolve(event).name
        found = [r for r in self._by_event.get(name, ()) if r.fn is handler or r.fn == handler]
        for reg in found:
            self._remove(reg)
        return bool(found)

    def _remove(self, reg: Registration) -> None:
        regs = self._by_event.get(reg.event)
        if regs and reg in regs:
            regs.remove(reg)

    def for_record(self, event: str, tool_name: str | None) -> list[Registration]:
        """The handlers a record of ``event`` goes to: the event's own, then ``on_event``'s."""
        chosen = [
            r
            for r in self._by_event.get(event, ())
            if r.matcher is None or (tool_name is not None and r.matcher(tool_name))
        ]
        if event != EVERY:
            chosen += self._by_event.get(EVERY, ())
        return chosen

    @property
    def empty(self) -> bool:
        """True when no handler is registered."""
        return not any(self._by_event.values())


async def call(reg: Registration, record: StreamRecord) -> None:
    """Call one handler, awaiting what it returns if that is awaitable."""
    result = reg.fn(record)
    if inspect.isawaitable(result):
        await result


__all__ = ["EVERY", "Handler", "Registration", "Registry", "call"]
