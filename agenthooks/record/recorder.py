"""Recorder: every ``on_event`` record of a run as one JSON line, for ``agenthooks trace``.

Each line is one JSON object: the ``EventRecord`` fields (``type``, wall-clock ``timestamp``,
``run_id``, ``parent_run_id``, ``agent``, ``branch``, ``tool_call_id``, ``input``, ``output``,
``is_error``, ``error``, ``denied``, ``usage``, ...) plus ``seq`` (the line's number, from 1)
and ``mono`` (``time.monotonic()`` when the record arrived). ``duration`` is the record's own
(a tool's execution, a whole run) or, for an event that closes a span, the monotonic time since
the event that opened it (``pre_request`` → ``on_response``, ``on_loop_start`` →
``on_loop_end``, ``pre_agent`` → ``post_agent``, ``on_stream_start`` → ``on_stream_end``).

Writes are whole lines under a lock, so parallel tool calls, concurrent sub-agent runs and
threads never interleave a line. The file is flushed when a top-level run ends (done, abort,
error, end) and on ``close()``, so a run's terminal event is on disk before ``chat()`` returns.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from ..bus import Disposer
from ..redaction import ExportRedaction
from .buses import reachable_buses
from .durations import SpanDurations
from .jsonable import to_jsonable

if TYPE_CHECKING:
    from ..bus import HookBus
    from ..events.contexts import EventRecord
    from ..runtime.agent import Agent

RECORD_FIELDS = (
    "seq",
    "type",
    "mono",
    "timestamp",
    "run_id",
    "parent_run_id",
    "session_id",
    "agent",
    "branch",
    "iteration",
    "tool_call_id",
    "tool_name",
    "is_error",
    "error",
    "denied",
    "asked",
    "duration",
    "usage",
    "input",
    "output",
)
"""The keys of every line, in the order they are written."""

TERMINAL_EVENTS = frozenset(
    {
        "on_chat_done",
        "on_chat_paused",
        "on_chat_abort",
        "on_chat_error",
        "on_chat_end",
        "on_session_end",
        "on_session_close",
    }
)
"""Events after which the recorder flushes (for top-level runs)."""

RECORDER_PRIORITY = 10**6
"""The recorder's ``on_event`` handler runs before ordinary ``on_event`` handlers, so one that
raises cannot keep a record off the file."""


class Recorder:
    """A plugin that writes every ``on_event`` record as one JSON line.

    Install it with ``bus.use(recorder)`` / ``agent.use(recorder)``, or with
    ``recorder.attach(agent)``, which also covers sub-agents that have a bus of their own.

    Args:
        target: A path (opened now), an open text stream (``sys.stdout``, a socket file;
            never closed by the recorder), or ``None`` to keep the records in memory as
            dicts (``recorder.records``).
        append: Add to the file at ``target`` instead of truncating it.
        flush_each: Flush after every line (for a live tail); otherwise the recorder flushes
            when a top-level run ends.
    """

    name = "recorder"

    def __init__(
        self,
        target: str | os.PathLike[str] | IO[str] | None = None,
        *,
        append: bool = False,
        flush_each: bool = False,
    ) -> None:
        self.path: Path | None = None
        self._stream: IO[str] | None
        self._owned = False
        if target is None:
            self._stream = None
        elif isinstance(target, (str, os.PathLike)):
            self.path = Path(target)
            # open for the recorder's life; close() (or leaving a with block) closes it
            self._stream = open(self.path, "a" if append else "w", encoding="utf-8")  # noqa: SIM115
            self._owned = True
        else:
            self._stream = target
        self.flush_each = flush_each
        self.records: list[dict[str, Any]] = []
        """The lines as dicts, when recording in memory (``target=None``)."""
        self.count = 0
        """How many lines were written."""
        self._lock = threading.Lock()
        self._durations = SpanDurations()
        self.closed = False
        self._redaction = ExportRedaction()  # nothing leaves unredacted when a plugin redacts

    def __repr__(self) -> str:
        where = str(self.path) if self.path else "memory" if self._stream is None else "stream"
        return f"Recorder({where}, {self.count} records)"

    # installing -----------------------------------------------------------------------------

    def setup(self, bus: HookBus) -> Callable[[], None]:
        """Plugin hook: register the ``on_event`` handler; the returned undo flushes."""
        dispose = bus.on("on_event", self.write, priority=RECORDER_PRIORITY, errors="isolate")
        unwatch = self._redaction.watch(bus)

        def undo() -> None:
            dispose()
            unwatch()
            self.flush()

        return undo

    def attach(self, target: Agent | HookBus) -> Disposer:
        """Record ``target`` (an agent or a bus), and every sub-agent of an agent that runs on
        a bus of its own (attach after adding the sub-agents' hooks: an agent without hooks
        runs on its parent's bus, where it is recorded already). Returns the undo."""
        disposers = [bus.use(self) for bus in reachable_buses(target)]

        def undo() -> None:
            for dispose in reversed(disposers):
                dispose()

        return Disposer(undo)

    # writing --------------------------------------------------------------------------------

    def write(self, record: EventRecord) -> None:
        """The ``on_event`` handler: serialize ``record`` and write it as one line."""
        mono = time.monotonic()
        run_id = record.run_id
        payload = {
            "input": to_jsonable(record.input),
            "output": to_jsonable(record.output),
            "error": record.error,
            "denied": record.denied,
        }
        payload = self._redaction.redact_record(record.type, payload, run_id)
        if record.type == "on_chat_end" and run_id is not None:
            self._redaction.forget(run_id)
        with self._lock:
            if self.closed:
                return
            self.count += 1
            line = {
                "seq": self.count,
                "type": record.type,
                "mono": mono,
                "timestamp": record.timestamp,
                "run_id": run_id,
                "parent_run_id": record.parent_run_id,
                "session_id": record.session_id,
                "agent": record.agent,
                "branch": record.branch,
                "iteration": record.iteration,
                "tool_call_id": record.tool_call_id,
                "tool_name": record.tool_name,
                "is_error": bool(record.is_error),
                "error": payload["error"],
                "denied": payload["denied"],
                "asked": record.asked,
                "duration": self._durations.duration(record, mono),
                "usage": to_jsonable(record.usage),
                "input": payload["input"],
                "output": payload["output"],
            }
            if self._stream is None:
                self.records.append(line)
            else:
                self._stream.write(json.dumps(line, ensure_ascii=False, default=str) + "\n")
                top_level_end = record.type in TERMINAL_EVENTS and not record.parent_run_id
                if self.flush_each or top_level_end:
                    self._stream.flush()
            if record.type == "on_chat_end":
                self._durations.forget(run_id)

    def flush(self) -> None:
        """Write buffered lines through to the file or stream."""
        with self._lock:
            if self._stream is not None and not self.closed:
                self._stream.flush()

    def close(self) -> None:
        """Flush, and close the file if the recorder opened it. Idempotent; later records are
        dropped."""
        with self._lock:
            if self.closed:
                return
            self.closed = True
            if self._stream is not None:
                self._stream.flush()
                if self._owned:
                    self._stream.close()

    def __enter__(self) -> Recorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_records(path: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
    """The lines of a recording as dicts (no validation; ``agenthooks.trace`` validates)."""
    with open(path, encoding="utf-8") as file:
        for line in file:
            if line.strip():
                yield json.loads(line)


__all__ = ["RECORDER_PRIORITY", "RECORD_FIELDS", "TERMINAL_EVENTS", "Recorder", "read_records"]
