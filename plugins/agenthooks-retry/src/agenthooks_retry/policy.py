"""Which errors are worth another attempt, and how long the server asked us to wait."""

from __future__ import annotations

import asyncio
import email.utils
import time
from collections.abc import Mapping
from typing import Any

from agenthooks import ProviderConnectionError, ProviderHTTPError, ProviderTimeout

RETRY_AFTER_LIMIT = 60.0
"""A server's ``Retry-After`` longer than this is ignored (the backoff applies instead)."""


def is_transient(exc: BaseException) -> bool:
    """The default ``retry_on``: a dropped or refused connection, a timeout, HTTP 408, 409,
    429 or any 5xx (agenthooks' provider errors, and the builtin ``ConnectionError`` /
    ``TimeoutError`` a tool may raise). Everything else (4xx, malformed answers, ordinary
    exceptions) fails at once: another attempt would fail the same way."""
    if isinstance(exc, (ProviderConnectionError, ProviderTimeout)):
        return True
    if isinstance(exc, ProviderHTTPError):
        status = exc.status
        return status is not None and (status in (408, 409, 429) or status >= 500)
    return isinstance(exc, (ConnectionError, TimeoutError, asyncio.TimeoutError))


def retry_after(exc: BaseException, now: float | None = None) -> float | None:
    """The wait in seconds the error says the server asked for, or ``None``.

    Read from a ``retry_after`` attribute (seconds), else from a ``headers`` mapping:
    ``retry-after-ms`` (milliseconds), ``retry-after`` (seconds or an HTTP date). Values
    outside 0..60 seconds are ignored, as the OpenAI SDK does.
    """
    value = getattr(exc, "retry_after", None)
    seconds: float | None = None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        seconds = float(value)
    else:
        headers = getattr(exc, "headers", None)
        if isinstance(headers, Mapping):
            seconds = _from_headers(headers, time.time() if now is None else now)
    if seconds is None or not 0.0 <= seconds <= RETRY_AFTER_LIMIT:
        return None
    return seconds


def _from_headers(headers: Mapping[Any, Any], now: float) -> float | None:
    lowered = {str(k).lower(): str(v).strip() for k, v in headers.items()}
    ms = lowered.get("retry-after-ms")
    if ms is not None:
        try:
            return float(ms) / 1000.0
        except ValueError:
            pass
    text = lowered.get("retry-after")
    if text is None:
        return None
    try:
        return float(text)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - now)


__all__ = ["RETRY_AFTER_LIMIT", "is_transient", "retry_after"]
