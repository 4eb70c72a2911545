"""Turning event payloads into short log values: scalars stay, the rest becomes clipped text."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel
from pydantic_core import PydanticSerializationError

Scalar = str | int | float | bool | None


def clip(text: str, max_chars: int | None) -> str:
    """``text`` cut to ``max_chars``, with how much was left out: ``abc…(+12 chars)``."""
    if max_chars is None or len(text) <= max_chars:
        return text
    return f"{text[:max_chars]}…(+{len(text) - max_chars} chars)"


def as_text(value: Any) -> str:
    """A compact, readable text form of a payload value (JSON where it has one)."""
    if isinstance(value, str):
        return value
    if isinstance(value, BaseModel):
        try:  # defaults left out: a message reads {"role":"user","content":"hi"}
            return value.model_dump_json(exclude_defaults=True, exclude={"raw"})
        except (PydanticSerializationError, TypeError, ValueError):  # an arbitrary object
            return repr(value)
    try:
        return json.dumps(value, ensure_ascii=False, default=_default, separators=(",", ":"))
    except (TypeError, ValueError):
        return repr(value)


def _default(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", exclude_defaults=True)
    return repr(value)


def field_value(value: Any, max_chars: int | None) -> Scalar:
    """A log field: numbers and booleans as they are, everything else as clipped text."""
    if value is None or isinstance(value, (bool, int, float)):
        return value
    return clip(as_text(value), max_chars)


__all__ = ["as_text", "clip", "field_value"]
