"""Plain JSON data from whatever a record holds (models, exceptions, bytes, anything else)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from pydantic_core import to_jsonable_python


def to_jsonable(value: Any) -> Any:
    """``value`` as plain JSON data: models dumped in JSON mode, exceptions as their text,
    bytes decoded, anything else unknown as ``str``. Never raises."""
    try:
        return to_jsonable_python(value, fallback=json_fallback, serialize_unknown=True)
    except Exception:
        return _by_hand(value)


def json_fallback(value: Any) -> Any:
    """What pydantic's JSON serializers write for a value they do not know (their
    ``fallback=``): an exception's text, bytes decoded, anything else as ``str``."""
    if isinstance(value, BaseException):
        return error_text(value)
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", "replace")
    return str(value)


def _by_hand(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, BaseModel):
        return {k: _by_hand(getattr(value, k, None)) for k in type(value).model_fields}
    if isinstance(value, dict):
        return {str(k): _by_hand(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_by_hand(v) for v in value]
    try:
        return to_jsonable_python(value, fallback=json_fallback, serialize_unknown=True)
    except Exception:
        return json_fallback(value)


def error_text(exc: BaseException) -> str:
    """``"TypeName: message"`` (or the type name alone)."""
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


__all__ = ["error_text", "json_fallback", "to_jsonable"]
