"""One stream entry per ``on_event`` record: the four fields, and reading them back.

An entry has the fields ``run_id``, ``seq`` (per run: 1, 2, 3, ... in emission order),
``type`` (the event name) and ``record``: the record's own fields as one flat JSON object
(``type`` and ``run_id`` at its top level too) plus ``schema``, the version of that layout.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from pydantic_core import to_json

from agenthooks.events import EventRecord
from agenthooks.record import json_fallback, to_jsonable

SCHEMA = 1
"""The version of the ``record`` layout; a consumer reads versions up to its own."""

FIELDS = ("run_id", "seq", "type", "record")
"""The fields of every entry (code outside this repository reads them by these names)."""

RECORD_KEYS = tuple(name for name in EventRecord.model_fields if name != "signal")
"""The record's own fields, as they appear in the ``record`` JSON."""


class EntryError(ValueError):
    """A stream entry that is not an agenthooks event entry; says which field is wrong."""


def record_json(record: EventRecord) -> bytes:
    """The ``record`` field: the record's own fields and ``schema``, as flat JSON."""
    body: dict[str, Any] = {"schema": SCHEMA}
    for name in RECORD_KEYS:  # the fields, in their declared order
        body[name] = getattr(record, name)
    try:
        return to_json(body, fallback=json_fallback, serialize_unknown=True)
    except Exception:  # an object whose str() raises: the slow path never does
        return json.dumps(to_jsonable(body), ensure_ascii=False, default=str).encode()


def encode(record: EventRecord, seq: int) -> dict[str, Any]:
    """The entry fields of ``record``, the ``seq``-th of its run."""
    return {"run_id": record.run_id, "seq": seq, "type": record.type, "record": record_json(record)}


def pack(record: EventRecord, seq: int) -> bytes:
    """The entry as the publisher's batch script reads it: ``run_id``, ``seq``, ``type`` and
    ``record`` separated by ASCII unit separators (JSON never holds one unescaped), the
    entry ended by a record separator. One argument per batch packs far faster in redis-py
    than four per entry."""
    head = f"{record.run_id}\x1f{seq}\x1f{record.type}\x1f".encode()
    return head + record_json(record) + b"\x1e"


@dataclass(frozen=True, slots=True)
class Entry:
    """An event entry read back from the stream: its id, its four fields, the record parsed."""

    id: str
    run_id: str
    seq: int
    type: str
    record: dict[str, Any]

    @property
    def key(self) -> tuple[str, int]:
        """The deduplication key ``(run_id, seq)``."""
        return (self.run_id, self.seq)


def _text(value: Any) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def decode(entry_id: Any, fields: dict[Any, Any]) -> Entry:
    """The entry ``entry_id`` with ``fields`` (bytes or text); ``EntryError`` names the
    missing or malformed field."""
    values = {_text(k): v for k, v in fields.items()}
    missing = [name for name in FIELDS if name not in values]
    if missing:
        raise EntryError(f"entry {_text(entry_id)} has no {', '.join(missing)} field")
    try:
        seq = int(_text(values["seq"]))
    except ValueError:
        raise EntryError(
            f"entry {_text(entry_id)}: seq {_text(values['seq'])!r} is not a whole number"
        ) from None
    try:
        record = json.loads(values["record"])
    except (ValueError, UnicodeDecodeError) as exc:
        raise EntryError(f"entry {_text(entry_id)}: record is not JSON ({exc})") from None
    if not isinstance(record, dict):
        raise EntryError(f"entry {_text(entry_id)}: record is not a JSON object")
    return Entry(_text(entry_id), _text(values["run_id"]), seq, _text(values["type"]), record)


class StreamRecord(EventRecord):
    """What a ``RedisEventConsumer`` handler receives: the ``EventRecord`` as the publishing
    process's ``on_event`` handlers saw it (``input`` / ``output`` / ``usage`` as JSON data),
    plus where it came from."""

    seq: int = 0
    """Its place in its run: 1, 2, 3, ..."""
    entry_id: str = ""
    """The stream entry's id."""
    schema_version: int = SCHEMA
    """The ``schema`` of the entry's ``record``."""


def to_record(entry: Entry) -> StreamRecord:
    """The ``StreamRecord`` of ``entry``."""
    data = dict(entry.record)
    version = data.pop("schema", SCHEMA)
    data.update(seq=entry.seq, entry_id=entry.id, schema_version=version)
    data.setdefault("type", entry.type)
    data.setdefault("run_id", entry.run_id)
    return StreamRecord.model_validate(data)


def to_trace_line(entry: Entry, line: int) -> dict[str, Any]:
    """``entry`` as a line of a recording (``agenthooks.record``): its record, ``seq`` the
    line number, ``mono`` the record's wall-clock ``timestamp``."""
    data = {key: entry.record.get(key) for key in RECORD_KEYS}
    data["type"] = data.get("type") or entry.type
    data["run_id"] = data.get("run_id") or entry.run_id
    timestamp = entry.record.get("timestamp")
    data["mono"] = float(timestamp) if isinstance(timestamp, (int, float)) else 0.0
    data["seq"] = line
    return data


__all__ = [
    "FIELDS",
    "RECORD_KEYS",
    "SCHEMA",
    "Entry",
    "EntryError",
    "StreamRecord",
    "decode",
    "encode",
    "pack",
    "record_json",
    "to_record",
    "to_trace_line",
]
