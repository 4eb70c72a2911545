"""Reading a recording: every readable line, and what was skipped and why.

A recording is a JSON Lines file whose lines are event records (``agenthooks.record``). The
reader keeps going past a bad line in the middle and a truncated last line (a run killed while
writing), and reports each skipped line; a file whose first line is not a record is not a
recording at all.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import AgentHooksError

REQUIRED: dict[str, type | tuple[type, ...]] = {"type": str, "seq": int, "mono": (int, float)}
"""Keys every record has, with their JSON types."""


class RecordingError(AgentHooksError):
    """The file cannot be rendered at all: missing, unreadable, or not a recording."""


@dataclass(frozen=True)
class Skipped:
    """A line that was not rendered: its 1-based number and why."""

    line: int
    reason: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.reason}"


@dataclass
class Recording:
    """The readable records of a recording file, in file order, and the skipped lines."""

    path: Path
    records: list[dict[str, Any]]
    skipped: list[Skipped] = field(default_factory=list)


def _problem(record: Any) -> str | None:
    """Why ``record`` is not an event record, or None when it is one."""
    if not isinstance(record, dict):
        return f"a JSON {type(record).__name__}, not an event record"
    for key, kind in REQUIRED.items():
        value = record.get(key)
        if value is None:
            return f'an object without "{key}", not an event record'
        if not isinstance(value, kind) or isinstance(value, bool):
            return f'"{key}" is {type(value).__name__}, not an event record'
    return None


def load_recording(path: str | os.PathLike[str]) -> Recording:
    """Read ``path``; raises ``RecordingError`` when nothing of it can be rendered."""
    path = Path(path)
    hint = "write one with agenthooks.record.Recorder or `agenthooks demo --record FILE`"
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise RecordingError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise RecordingError(f"{path}: is a directory, not a recording") from None
    except OSError as exc:
        raise RecordingError(f"{path}: cannot read: {exc.strerror or exc}") from None
    lines = data.split(b"\n")
    ends_with_newline = data.endswith(b"\n")
    if ends_with_newline:
        lines.pop()
    records: list[dict[str, Any]] = []
    skipped: list[Skipped] = []
    seen_content = False
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        first = not seen_content
        seen_content = True
        last = number == len(lines)
        try:
            record = json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError:
            if first:
                raise RecordingError(
                    f"{path} is not an agenthooks recording: line {number} is "
                    f"not UTF-8 text; {hint}"
                ) from None
            skipped.append(Skipped(number, "not UTF-8 text"))
            continue
        except json.JSONDecodeError as exc:
            if last and not ends_with_newline:
                skipped.append(
                    Skipped(
                        number,
                        "truncated: the file ends in the middle of this "
                        "line (was the run stopped while writing?)",
                    )
                )
                continue
            if first:
                raise RecordingError(
                    f"{path} is not an agenthooks recording: line {number} is "
                    f"not JSON ({exc.msg}); {hint}"
                ) from None
            skipped.append(Skipped(number, f"not valid JSON ({exc.msg})"))
            continue
        problem = _problem(record)
        if problem is not None:
            if first:
                raise RecordingError(
                    f"{path} is not an agenthooks recording: line {number} is {problem}; {hint}"
                )
            skipped.append(Skipped(number, problem))
            continue
        records.append(record)
    if not records:
        if skipped:
            raise RecordingError(f"{path}: nothing readable: " + "; ".join(str(s) for s in skipped))
        raise RecordingError(f"{path} is not an agenthooks recording: it is empty; {hint}")
    return Recording(path, records, skipped)


def merge_recordings(recordings: list[Recording]) -> list[dict[str, Any]]:
    """The records of several recordings as one, in time order: a run paused in one process
    and resumed in another, each recording its part, reads as one run. Each file's
    monotonic clock is aligned to the first file's through the wall-clock ``timestamp`` the
    records carry (the median offset, so one odd clock reading does not move a file)."""
    if len(recordings) == 1:
        return recordings[0].records
    offsets = [_offset(r.records) for r in recordings]
    merged: list[tuple[float, int, dict[str, Any]]] = []
    for index, (recording, offset) in enumerate(zip(recordings, offsets)):
        shift = offset - offsets[0]
        for record in recording.records:
            mono = float(record["mono"]) + shift
            merged.append((mono, index, {**record, "mono": mono}))
    merged.sort(key=lambda item: (item[0], item[1]))
    return [record for _, _, record in merged]


def _offset(records: list[dict[str, Any]]) -> float:
    gaps = sorted(
        float(r["timestamp"]) - float(r["mono"])
        for r in records
        if isinstance(r.get("timestamp"), (int, float))
    )
    return gaps[len(gaps) // 2] if gaps else 0.0


__all__ = [
    "REQUIRED",
    "Recording",
    "RecordingError",
    "Skipped",
    "load_recording",
    "merge_recordings",
]
