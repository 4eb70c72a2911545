"""The span tree of a recording: ``Trace`` holds the top-level ``Span``s, each span its children
and its ``Mark``s.

Times are the records' ``mono`` values (seconds, monotonic).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

Status = str
"""``ok``, ``error``, ``denied``, ``recovered`` (an error a hook recovered), ``aborted``,
``paused`` (a run or a call waiting for a human) or ``open`` (never closed)."""

PREVIEW = 2000
"""Characters of an input or output a span keeps for display."""


@dataclass
class Mark:
    """A point in time worth seeing: a deny, a handoff, a stop, a memory operation."""

    event: str
    text: str
    status: Status
    at: float


@dataclass
class Span:
    """One interval of a run: ``kind`` is ``run``, ``turn``, ``model``, ``tool`` or ``event``."""

    id: int
    kind: str
    name: str
    branch: str
    run_id: str
    start: float
    end: float | None = None
    status: Status = "ok"
    error: str | None = None
    tokens: tuple[int, int] | None = None
    details: dict[str, Any] = field(default_factory=dict)
    children: list[Span] = field(default_factory=list)
    marks: list[Mark] = field(default_factory=list)

    @property
    def duration(self) -> float:
        """Seconds from start to end (0 for a point)."""
        return 0.0 if self.end is None else max(0.0, self.end - self.start)

    def walk(self, depth: int = 0) -> Iterator[tuple[Span, int]]:
        """This span and its descendants, depth first, with their depth."""
        yield self, depth
        for child in self.children:
            yield from child.walk(depth + 1)


@dataclass
class Trace:
    """The spans of a recording: top-level runs (and events outside any run), in order."""

    roots: list[Span]
    start: float
    end: float
    records: int

    def walk(self) -> Iterator[tuple[Span, int]]:
        """Every span, depth first, with its depth."""
        for root in self.roots:
            yield from root.walk()

    @property
    def spans(self) -> list[Span]:
        """Every span, depth first."""
        return [span for span, _ in self.walk()]


def preview(value: Any, limit: int = PREVIEW) -> str:
    """``value`` as short display text (strings as they are, the rest as JSON)."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


__all__ = ["PREVIEW", "Mark", "Span", "Status", "Trace", "preview"]
