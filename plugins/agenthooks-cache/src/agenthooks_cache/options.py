"""Validating the cache options, from arguments or from the environment."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

from .backends import CacheBackend
from .errors import CacheConfigError

DEFAULT_MAX_ENTRIES = 1024
ENV_PREFIX = "AGENTHOOKS_CACHE_"
ENV_KEYS = {
    "responses": "RESPONSES",
    "tools": "TOOLS",
    "ttl": "TTL",
    "max_entries": "MAX_ENTRIES",
    "redis_url": "REDIS_URL",
    "redis_prefix": "REDIS_PREFIX",
}
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def validated(
    source: str,
    names: Mapping[str, str] | None = None,
    *,
    responses: Any,
    tools: Any,
    ttl: Any,
    max_entries: Any,
    backend: Any,
) -> dict[str, Any]:
    """The options checked and normalized (``tools``: ``True``, ``False`` or a frozenset of
    names); a bad one raises ``CacheConfigError`` naming ``source`` and the key."""

    def fail(option: str, problem: str) -> CacheConfigError:
        return CacheConfigError(source, (names or {}).get(option, option), problem)

    if not isinstance(responses, bool):
        raise fail("responses", f"{responses!r} is not True or False")
    listed: bool | frozenset[str] = tools if isinstance(tools, bool) else frozenset()
    if not isinstance(tools, bool):
        items = () if isinstance(tools, str) or not isinstance(tools, Iterable) else tuple(tools)
        if not items or not all(isinstance(t, str) and t for t in items):
            raise fail("tools", f"{tools!r} is not True, False or a non-empty list of tool names")
        listed = frozenset(items)
    if not responses and listed is False:
        raise fail("responses", "and tools are both off: there is nothing to cache")
    if ttl is not None and (isinstance(ttl, bool) or not isinstance(ttl, (int, float)) or ttl <= 0):
        raise fail("ttl", f"{ttl!r} is not a number of seconds > 0 (or None: no expiry)")
    if max_entries is not None:
        if isinstance(max_entries, bool) or not isinstance(max_entries, int) or max_entries < 1:
            raise fail("max_entries", f"{max_entries!r} is not a whole number >= 1")
        if backend is not None:
            raise fail(
                "max_entries",
                "bounds the in-memory backend only; another backend (Redis) keeps its own bound",
            )
    if backend is not None and not isinstance(backend, CacheBackend):
        raise fail("backend", f"{backend!r} has no get(key) and set(key, value, ttl)")
    return {
        "responses": responses,
        "tools": listed,
        "ttl": None if ttl is None else float(ttl),
        "max_entries": max_entries,
        "backend": backend,
    }


def from_environment(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The options the ``AGENTHOOKS_CACHE_*`` variables set, parsed: ``RESPONSES=0``,
    ``TOOLS=0`` or ``TOOLS=search,fetch``, ``TTL=3600`` (or ``none``), ``MAX_ENTRIES=500``,
    ``REDIS_URL=redis://127.0.0.1:6379/0``, ``REDIS_PREFIX=myapp:``."""
    env = os.environ if environ is None else environ
    values: dict[str, Any] = {}
    for option, suffix in ENV_KEYS.items():
        key = ENV_PREFIX + suffix
        raw = env.get(key, "").strip()
        if not raw:
            continue
        lowered = raw.lower()
        if option == "responses" or (option == "tools" and lowered in _TRUE | _FALSE):
            if lowered not in _TRUE | _FALSE:
                raise CacheConfigError(
                    "environment", key, f"{raw!r} is not one of 1, 0, true, false, yes, no, on, off"
                )
            values[option] = lowered in _TRUE
        elif option == "tools":
            values[option] = [item.strip() for item in raw.split(",") if item.strip()]
        elif option == "ttl" and lowered == "none":
            values[option] = None
        elif option in ("ttl", "max_entries"):
            try:
                values[option] = int(raw) if option == "max_entries" else float(raw)
            except ValueError:
                kind = "a whole number" if option == "max_entries" else "a number"
                raise CacheConfigError("environment", key, f"{raw!r} is not {kind}") from None
        else:
            values[option] = raw
    return values


def env_names() -> dict[str, str]:
    """Option name → the environment variable that sets it."""
    return {option: ENV_PREFIX + suffix for option, suffix in ENV_KEYS.items()}


__all__ = ["DEFAULT_MAX_ENTRIES", "ENV_PREFIX", "env_names", "from_environment", "validated"]
