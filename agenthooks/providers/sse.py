r"""Server-sent events (``text/event-stream``) decoded incrementally from raw bytes.

Follows the HTML standard's event-stream parsing: lines end in ``\r\n``, ``\n`` or ``\r``
(also when a ``\r\n`` pair is split between two reads); a line starting with ``:`` is a
comment (keepalives); ``field: value`` drops one leading space of the value; ``data`` lines
accumulate, joined with ``\n``; a blank line dispatches the event when it has data; a byte
order mark at the very start is dropped; ``id`` and ``retry`` are read past. Unlike the
standard, an event still open when the body ends is delivered by ``end()``: servers that omit
the final blank line are common, and dropping their last event would lose data in silence.
"""

from __future__ import annotations

from dataclasses import dataclass

_CR, _LF = 0x0D, 0x0A


@dataclass(frozen=True, slots=True)
class SSEEvent:
    """One dispatched event: its ``data`` and its type (``"message"`` when none was named)."""

    data: str
    event: str = "message"


class SSEDecoder:
    """Feed the body's bytes as they arrive; get back the events they complete.

    A line that is not UTF-8 raises ``UnicodeDecodeError`` (a ``ValueError``).
    """

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._scanned = 0  # bytes of the buffer already known to hold no line ending
        self._data: list[str] = []
        self._event = ""
        self._first_line = True

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        """Add ``chunk``; return the events completed by the lines it finished."""
        self._buffer += chunk
        events: list[SSEEvent] = []
        start = 0
        buffer = self._buffer
        position = self._scanned
        while position < len(buffer):
            byte = buffer[position]
            if byte != _CR and byte != _LF:
                position += 1
                continue
            if byte == _CR and position + 1 == len(buffer):
                break  # a "\r" at the end may be the first half of "\r\n": wait for more
            end = position
            position += 2 if byte == _CR and buffer[position + 1] == _LF else 1
            event = self._line(bytes(buffer[start:end]))
            start = position
            if event is not None:
                events.append(event)
        del self._buffer[:start]
        self._scanned = position - start
        return events

    def end(self) -> list[SSEEvent]:
        """The body ended: finish a last unterminated line and deliver any open event."""
        events: list[SSEEvent] = []
        if self._buffer:
            line, self._buffer = bytes(self._buffer).rstrip(b"\r"), bytearray()
            self._scanned = 0
            event = self._line(line)
            if event is not None:
                events.append(event)
        event = self._dispatch()
        if event is not None:
            events.append(event)
        return events

    def _line(self, raw: bytes) -> SSEEvent | None:
        line = raw.decode("utf-8")
        if self._first_line:
            self._first_line = False
            line = line.removeprefix("\ufeff")
        if not line:
            return self._dispatch()
        if line.startswith(":"):
            return None
        name, colon, value = line.partition(":")
        if colon:
            value = value.removeprefix(" ")
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        return None

    def _dispatch(self) -> SSEEvent | None:
        data, event = self._data, self._event
        self._data, self._event = [], ""
        if not data:
            return None
        return SSEEvent("\n".join(data), event or "message")


__all__ = ["SSEDecoder", "SSEEvent"]
