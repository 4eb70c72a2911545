"""Short texts for provider error messages: the server's own message, clipped values."""

from __future__ import annotations

import json
from typing import Any


def server_message(body: Any) -> str | None:
    """The server's error message from ``{"error": {"message": ...}}`` and common variants;
    for a body that is not JSON, its text."""
    if isinstance(body, (bytes, str)):
        try:
            body = json.loads(body)
        except (ValueError, RecursionError):
            return clip_text(body).strip() or None
    if not isinstance(body, dict):
        return None
    error = body.get("error")
    if isinstance(error, dict):
        error = error.get("message")
    if isinstance(error, str) and error:
        return error
    message = body.get("message") or body.get("detail")
    return message if isinstance(message, str) else None


def clip(value: Any, limit: int = 200) -> str:
    """A decoded JSON value as short JSON text for an error message."""
    try:
        text = json.dumps(value)
    except (ValueError, RecursionError):  # NaN is fine; only absurd nesting lands here
        text = f"<{type(value).__name__}>"
    return clip_text(text, limit)


def clip_text(text: str | bytes, limit: int = 200) -> str:
    """Raw text or bytes, shortened for an error message."""
    if isinstance(text, bytes):
        text = text.decode(errors="replace")
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} chars)"


__all__ = ["clip", "clip_text", "server_message"]
