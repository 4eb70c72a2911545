"""The blinker side of the bus, and the uniform ``on_event`` record of each emission.

blinker is the namespace, not the dispatcher: one named signal per event, so third-party code
can ``bus.signal("pre_tool_call").connect(receiver)``. Receivers are held strongly (a lambda
connected inside a function stays connected) and are called after the ordered chain, with
observer semantics, as ``receiver(bus, ctx=ctx)``.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable
from functools import cache
from typing import Any

import blinker

from ..decisions import Ask, Deny
from ..events.contexts import EventContext, EventRecord


class BusSignal(blinker.NamedSignal):
    """A named blinker signal that holds receivers strongly and tells its bus when receivers
    come and go, so the zero-listener shortcut never skips an event someone connected to."""

    def __init__(self, name: str, changed: Callable[[], None]) -> None:
        super().__init__(name)
        self._changed = changed

    def connect(self, receiver: Any, sender: Any = blinker.ANY, weak: bool = False) -> Any:
        """Connect ``receiver``; strongly unless ``weak=True`` is asked for explicitly."""
        result = super().connect(receiver, sender, weak)
        self._changed()
        return result

    def disconnect(self, receiver: Any, sender: Any = blinker.ANY) -> None:
        """Disconnect ``receiver`` (from ``sender`` only, if given) and tell the bus to recount."""
        super().disconnect(receiver, sender)
        self._changed()

    def _make_cleanup_receiver(self, receiver_id: Any) -> Callable[[Any], None]:
        cleanup = super()._make_cleanup_receiver(receiver_id)

        def cleaned(ref: Any) -> None:
            # a weakly connected receiver was collected: the bus recounts its listeners
            cleanup(ref)
            self._changed()

        return cleaned


async def send_receivers(
    signal: BusSignal, bus: Any, ctx: EventContext, failed: Callable[[Any, Exception], Any]
) -> None:
    """Call every receiver of ``signal`` with ``ctx``; ``failed(receiver, exc)`` decides what a
    receiver's exception means."""
    for receiver in list(signal.receivers_for(bus)):
        try:
            result = receiver(bus, ctx=ctx)
            if inspect.isawaitable(result):
                await result
        except Exception as exc:
            failed(receiver, exc)


def error_text(exc: BaseException) -> str:
    """An exception as one line of text: its message, else its type's name."""
    return str(exc) or type(exc).__name__


def typed_error_text(exc: BaseException) -> str:
    """An exception as ``TypeName: message`` (its type's name alone when it has no message)."""
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


RECORD_COUNTS: dict[str, int] = {}
"""run id -> the ``on_event`` records emitted for it so far, for the runs being counted (a
top-level run while it runs: a paused run stores its count, so its resumption, in any
process, tells exporters where its numbering goes on)."""


_READ = ("error", "call", "tool_call_id", "duration")
"""The fields a record reads from the contexts that declare them."""


@cache
def _declared(kind: type[EventContext]) -> tuple[str, ...]:
    """Which of ``_READ`` ``kind`` declares, looked up once per class: reading a field a
    context lacks goes through the model's ``__getattr__`` (2.2 µs a miss)."""
    return tuple(name for name in _READ if name in kind.model_fields)


def event_record(name: str, ctx: EventContext, deny: Deny | Ask | None) -> EventRecord:
    """The uniform ``on_event`` record of one emission of ``name``."""
    asked = None
    if deny is not None and type(deny) is Ask:
        asked, deny = deny, None
    fields = {field: getattr(ctx, field) for field in _declared(type(ctx))}
    error = fields.get("error")
    inp, out = ctx.record_io()
    call = fields.get("call")
    tool_name = call.name if call is not None else None
    return EventRecord(
        run_id=ctx.run_id,
        parent_run_id=ctx.parent_run_id,
        session_id=ctx.session_id,
        agent=ctx.agent,
        branch=ctx.branch,
        iteration=ctx.iteration,
        usage=ctx.usage,
        signal=None,
        type=name,
        timestamp=time.time(),
        tool_call_id=fields.get("tool_call_id"),
        tool_name=tool_name,
        input=inp,
        output=out,
        is_error=error is not None or deny is not None,
        duration=fields.get("duration"),
        # an exception keeps its type, as the model reads it ("FileNotFoundError: /tmp/x");
        # a text (a deny reason, a handler's replacement) is given as it is
        error=None
        if error is None
        else typed_error_text(error)
        if isinstance(error, BaseException)
        else str(error),
        denied=None if deny is None else deny.text(tool_name),
        asked=None if asked is None else asked.text(tool_name),
    )


__all__ = [
    "RECORD_COUNTS",
    "BusSignal",
    "error_text",
    "event_record",
    "send_receivers",
    "typed_error_text",
]
