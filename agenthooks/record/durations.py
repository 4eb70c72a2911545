"""The ``duration`` of a recorded line: the record's own, else, for an event that closes a
span, the monotonic time since the event that opened it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..events.contexts import EventRecord

# opening event -> (span kind, keyed by iteration?); closing event -> span kind
_OPENS = {
    "pre_request": "model",
    "on_loop_start": "turn",
    "pre_agent": "agent",
    "on_stream_start": "stream",
}
_CLOSES = {
    "on_response": "model",
    "on_model_error": "model",
    "on_loop_end": "turn",
    "post_agent": "agent",
    "on_stream_end": "stream",
    "on_stream_error": "stream",
}
_KEEPS_OPEN = frozenset({"on_model_error"})  # a recovered call still gets its on_response


class SpanDurations:
    """The spans open so far (by run, kind and iteration) and when each opened; the recorder
    calls it under its lock."""

    def __init__(self) -> None:
        self._open: dict[tuple[str, str, Any], float] = {}

    def duration(self, record: EventRecord, mono: float) -> float | None:
        """The record's own duration, else the time since the event that opened its span."""
        event = record.type
        if event in _OPENS:
            self._open.setdefault(self._key(record, _OPENS[event]), mono)
        own = record.duration
        if own is not None:
            return own
        kind = _CLOSES.get(event)
        if kind is None:
            return None
        key = self._key(record, kind)
        started = self._open.get(key) if event in _KEEPS_OPEN else self._open.pop(key, None)
        return None if started is None else mono - started

    def forget(self, run_id: Any) -> None:
        """Drop the spans ``run_id`` left open (its run has ended)."""
        for key in [k for k in self._open if k[0] == run_id]:
            del self._open[key]

    @staticmethod
    def _key(record: EventRecord, kind: str) -> tuple[str, str, Any]:
        return (record.run_id, kind, None if kind == "agent" else record.iteration)


__all__: list[str] = []
