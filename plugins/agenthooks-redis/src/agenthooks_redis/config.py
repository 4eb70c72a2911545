"""Defaults, option checks, and the ``AGENTHOOKS_REDIS_*`` variables the entry point reads."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from .errors import RedisConfigError

DEFAULT_URL = "redis://127.0.0.1:6379/0"
DEFAULT_STREAM = "agenthooks:events"
DEFAULT_APPROVALS = "agenthooks:approvals"
DEFAULT_MAXLEN = 100_000
DEFAULT_BUFFER = 10_000
DEFAULT_BATCH = 500
DEFAULT_TIMEOUT = 5.0
DEFAULT_FLUSH_TIMEOUT = 5.0

ENV_PREFIX = "AGENTHOOKS_REDIS_"
ENV_KEYS = {
    "url": "URL",
    "stream": "STREAM",
    "maxlen": "MAXLEN",
    "buffer": "BUFFER",
    "batch": "BATCH",
    "timeout": "TIMEOUT",
    "flush_timeout": "FLUSH_TIMEOUT",
    "approvals": "APPROVALS",
}
_WHOLE = ("maxlen", "buffer", "batch")
_SECONDS = ("timeout", "flush_timeout")


def check_url(url: Any, source: str, key: str = "url") -> str:
    """``url`` if redis-py can parse it (``redis://``, ``rediss://``, ``unix://``)."""
    from redis.connection import parse_url

    if not isinstance(url, str) or not url:
        raise RedisConfigError(source, key, f"{url!r} is not a Redis URL")
    try:
        parse_url(url)  # type: ignore[no-untyped-call]
    except (TypeError, ValueError) as exc:
        raise RedisConfigError(source, key, f"{url!r}: {exc}") from None
    return url


def check_name(value: Any, source: str, key: str) -> str:
    """A non-empty key or stream name."""
    if not isinstance(value, str) or not value:
        raise RedisConfigError(source, key, f"{value!r} is not a non-empty string")
    return value


def check_whole(value: Any, source: str, key: str, minimum: int = 1) -> int:
    """A whole number ``>= minimum``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise RedisConfigError(source, key, f"{value!r} is not a whole number >= {minimum}")
    return value


def check_seconds(value: Any, source: str, key: str) -> float:
    """A number of seconds ``> 0``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise RedisConfigError(source, key, f"{value!r} is not a number of seconds > 0")
    return float(value)


def from_environment(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The options the ``AGENTHOOKS_REDIS_*`` variables set, parsed (unset or empty ones are
    left out): ``URL``, ``STREAM``, ``MAXLEN``, ``BUFFER``, ``BATCH``, ``TIMEOUT``,
    ``FLUSH_TIMEOUT``, ``APPROVALS``."""
    env = os.environ if environ is None else environ
    values: dict[str, Any] = {}
    for option, suffix in ENV_KEYS.items():
        name = ENV_PREFIX + suffix
        raw = env.get(name, "").strip()
        if not raw:
            continue
        if option in _WHOLE:
            try:
                values[option] = int(raw)
            except ValueError:
                raise RedisConfigError(
                    "environment", name, f"{raw!r} is not a whole number"
                ) from None
        elif option in _SECONDS:
            try:
                values[option] = float(raw)
            except ValueError:
                raise RedisConfigError("environment", name, f"{raw!r} is not a number") from None
        else:
            values[option] = raw
    return values


def env_names() -> dict[str, str]:
    """Option name → the environment variable that sets it."""
    return {option: ENV_PREFIX + suffix for option, suffix in ENV_KEYS.items()}


def url_from_environment() -> str:
    """``AGENTHOOKS_REDIS_URL``, or the default ``redis://127.0.0.1:6379/0``."""
    raw = os.environ.get(ENV_PREFIX + "URL", "").strip()
    return check_url(raw, "environment", ENV_PREFIX + "URL") if raw else DEFAULT_URL


__all__ = [
    "DEFAULT_APPROVALS",
    "DEFAULT_BATCH",
    "DEFAULT_BUFFER",
    "DEFAULT_FLUSH_TIMEOUT",
    "DEFAULT_MAXLEN",
    "DEFAULT_STREAM",
    "DEFAULT_TIMEOUT",
    "DEFAULT_URL",
    "ENV_PREFIX",
    "check_name",
    "check_seconds",
    "check_url",
    "check_whole",
    "env_names",
    "from_environment",
    "url_from_environment",
]
