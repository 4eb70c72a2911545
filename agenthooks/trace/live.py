"""A trace rendered as it happens: one line per span as it closes, marks as they appear.

``agenthooks tail`` feeds records one at a time (from any number of workers, interleaved) and
prints what each one completes, in the words of ``agenthooks trace`` (``span_line``): a run's
start, then each model call, tool call and turn as it ends, indented by its depth in the tree,
and the run's own line when it ends.
"""

from __future__ import annotations

import datetime
from collections import deque
from typing import Any

from .spans import SpanBuilder
from .text import span_line
from .tree import Mark, Span, preview


def clock(stamp: Any) -> str:
    """``HH:MM:SS.mmm`` (UTC) of a wall-clock timestamp, or blanks."""
    if not isinstance(stamp, (int, float)) or isinstance(stamp, bool):
        return " " * 12
    moment = datetime.datetime.fromtimestamp(stamp, tz=datetime.timezone.utc)
    return moment.strftime("%H:%M:%S.") + f"{moment.microsecond // 1000:03d}"


class LiveTrace:
    """Feed records (``dict``s shaped as a recording's lines, ``mono`` in seconds); each
    ``feed`` returns the lines it completes. With ``event``, only records of that event give
    lines, one each: the span it ended (as ``trace`` shows it), else the record itself."""

    KEEP = 200
    """Finished top-level runs kept (late records of a run, such as ``on_session_end``, still
    find it); older ones are forgotten, so a long tail stays small."""

    def __init__(self, *, event: str | None = None) -> None:
        self.event = event
        self._builder = SpanBuilder()
        self._shown: set[int] = set()
        self._marks: set[int] = set()
        self._roots: dict[str, Span] = {}
        self._finished: deque[Span] = deque()

    def feed(self, record: dict[str, Any]) -> list[str]:
        """Add ``record`` to the tree; the lines it completes."""
        builder = self._builder
        new_run = bool(record.get("run_id")) and str(record["run_id"]) not in builder.runs
        roots_before = len(builder.roots)
        builder.add(record)
        at = clock(record.get("timestamp", record.get("mono")))
        lines: list[str] = []
        closed: list[str] = []  # the span lines alone, for --event
        run_id = str(record.get("run_id") or "")
        if not run_id:
            for span in builder.roots[roots_before:]:
                self._shown.add(span.id)
                lines.append(f"{at}  {span.name}  {preview(record.get('input'), 80)}")
            return self._only(record, lines, [])
        if new_run:
            parent = self._roots.get(str(record.get("parent_run_id") or ""))
            self._roots[run_id] = parent if parent is not None else builder.runs[run_id].span
        root = self._roots[run_id]
        if new_run:
            span = builder.runs[run_id].span
            depth = next((d for s, d in root.walk() if s is span), 0)
            text = preview(record.get("input"), 60) if record.get("input") is not None else ""
            lines.append(
                f"{at}  {'  ' * depth}agent {span.name} started  run {run_id}  {text}".rstrip()
            )
        for span, depth in root.walk():
            for mark in span.marks:
                if id(mark) not in self._marks:
                    self._marks.add(id(mark))
                    lines.append(f"{at}  {'  ' * (depth + 1)}{self._mark(mark)}")
            if span.end is not None and span.id not in self._shown:
                self._shown.add(span.id)
                lines.append(f"{at}  {'  ' * depth}{span_line(span)}")
                closed.append(f"{at}  {record.get('type')}  {span_line(span)}")
                if span is root:
                    self._forget_later(root)
        return self._only(record, lines, closed)

    def _forget_later(self, root: Span) -> None:
        self._finished.append(root)
        if len(self._finished) <= self.KEEP:
            return
        old = self._finished.popleft()
        gone = {id(s) for s, _ in old.walk()}
        builder = self._builder
        builder.roots = [r for r in builder.roots if r is not old]
        for run_id in [k for k, state in builder.runs.items() if id(state.span) in gone]:
            del builder.runs[run_id]
            self._roots.pop(run_id, None)
        for span, _ in old.walk():
            self._shown.discard(span.id)
            for mark in span.marks:
                self._marks.discard(id(mark))

    def _only(self, record: dict[str, Any], lines: list[str], closed: list[str]) -> list[str]:
        if self.event is None:
            return lines
        if record.get("type") != self.event:
            return []
        if closed:  # what the record ended, as trace says it
            return closed
        at = clock(record.get("timestamp", record.get("mono")))
        parts = [
            at,
            str(record.get("type")),
            f"agent {record.get('agent')}",
            f"run {record.get('run_id')}",
        ]
        if record.get("tool_name"):
            parts.append(f"tool {record['tool_name']}")
        for key in ("input", "output"):
            if record.get(key) is not None:
                parts.append(f"{key} {preview(record[key], 60)}")
        if record.get("denied"):
            parts.append(f"DENIED: {record['denied']}")
        elif record.get("error"):
            parts.append(f"ERROR: {record['error']}")
        return ["  ".join(parts)]

    @staticmethod
    def _mark(mark: Mark) -> str:
        return f"{'!' if mark.status in ('error', 'denied') else '·'} {mark.text}"


__all__ = ["LiveTrace", "clock"]
