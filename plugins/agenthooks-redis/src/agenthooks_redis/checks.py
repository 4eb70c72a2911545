"""Checks of the options of the classes a process builds in code (the consumer, the approver,
the approvals source); the options the environment sets are declared in ``settings``."""

from __future__ import annotations

from typing import Any

from .settings import RedisConfigError, parse_redis_url

PLUGIN = "redis"


def check_url(url: Any, source: str, key: str = "url") -> str:
    """``url`` if redis-py can parse it (``redis://``, ``rediss://``, ``unix://``)."""
    if not isinstance(url, str) or not url:
        raise RedisConfigError(PLUGIN, source, key, f"{url!r} is not a Redis URL")
    try:
        return parse_redis_url(url)
    except ValueError as exc:
        raise RedisConfigError(PLUGIN, source, key, f"{url!r}: {exc}") from None


def check_name(value: Any, source: str, key: str) -> str:
    """A non-empty key or stream name."""
    if not isinstance(value, str) or not value:
        raise RedisConfigError(PLUGIN, source, key, f"{value!r} is not a non-empty string")
    return value


def check_whole(value: Any, source: str, key: str, minimum: int = 1) -> int:
    """A whole number ``>= minimum``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise RedisConfigError(PLUGIN, source, key, f"{value!r} is not a whole number >= {minimum}")
    return value


def check_seconds(value: Any, source: str, key: str) -> float:
    """A number of seconds ``> 0``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise RedisConfigError(PLUGIN, source, key, f"{value!r} is not a number of seconds > 0")
    return float(value)


__all__ = ["check_name", "check_seconds", "check_url", "check_whole"]
