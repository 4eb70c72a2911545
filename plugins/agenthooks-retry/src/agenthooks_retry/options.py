"""Validating the retry options, from arguments or from the environment."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from .errors import RetryConfigError

STACKS = ("provider", "tool")
ENV_PREFIX = "AGENTHOOKS_RETRY_"
ENV_KEYS = {
    "attempts": "ATTEMPTS",
    "max_time": "MAX_TIME",
    "initial": "INITIAL",
    "max_backoff": "MAX_BACKOFF",
    "jitter": "JITTER",
    "stacks": "STACKS",
    "tools": "TOOLS",
}


def validated(
    source: str, names: Mapping[str, str] | None = None, **options: Any
) -> dict[str, Any]:
    """``options`` checked and normalized (``stacks`` / ``tools`` as tuples); a bad one raises
    ``RetryConfigError`` naming ``source`` and the key (``names`` maps an option to the name
    to report, e.g. its environment variable)."""

    def fail(option: str, problem: str) -> RetryConfigError:
        return RetryConfigError(source, (names or {}).get(option, option), problem)

    out = dict(options)
    attempts = options["attempts"]
    if isinstance(attempts, bool) or not isinstance(attempts, int) or attempts < 1:
        raise fail("attempts", f"{attempts!r} is not a whole number >= 1")
    max_time = options["max_time"]
    if max_time is not None and (not _number(max_time) or max_time <= 0):
        raise fail("max_time", f"{max_time!r} is not a number of seconds > 0 (or None)")
    for option in ("initial", "max_backoff", "jitter"):
        value = options[option]
        if not _number(value) or value < 0:
            raise fail(option, f"{value!r} is not a number of seconds >= 0")
    stacks = options["stacks"]
    items = (
        (stacks,)
        if isinstance(stacks, str)
        else tuple(stacks)
        if isinstance(stacks, Iterable)
        else ()
    )
    if not items or any(s not in STACKS for s in items):
        raise fail("stacks", f"{stacks!r} is not a non-empty list of 'provider', 'tool'")
    out["stacks"] = tuple(dict.fromkeys(items))
    tools = options["tools"]
    if tools is not None:
        listed = () if isinstance(tools, str) or not isinstance(tools, Iterable) else tuple(tools)
        if not listed or not all(isinstance(t, str) for t in listed):
            raise fail("tools", f"{tools!r} is not a non-empty list of tool names (or None: all)")
        out["tools"] = frozenset(listed)
    for option in ("retry_on", "on_retry", "sleep"):
        value = options.get(option)
        if value is not None and not callable(value):
            raise fail(option, f"{value!r} is not callable")
    return out


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def from_environment(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The options the ``AGENTHOOKS_RETRY_*`` variables set, parsed: ``ATTEMPTS=5``,
    ``MAX_TIME=30`` (``none``), ``INITIAL=0.5``, ``MAX_BACKOFF=8``, ``JITTER=0.5``,
    ``STACKS=provider,tool``, ``TOOLS=search,fetch``."""
    env = os.environ if environ is None else environ
    values: dict[str, Any] = {}
    for option, suffix in ENV_KEYS.items():
        key = ENV_PREFIX + suffix
        raw = env.get(key, "").strip()
        if not raw:
            continue
        if option in ("stacks", "tools"):
            values[option] = [item.strip() for item in raw.split(",") if item.strip()]
        elif option == "max_time" and raw.lower() == "none":
            values[option] = None
        else:
            parse: Callable[[str], Any] = int if option == "attempts" else float
            try:
                values[option] = parse(raw)
            except ValueError:
                kind = "a whole number" if option == "attempts" else "a number"
                raise RetryConfigError("environment", key, f"{raw!r} is not {kind}") from None
    return values


def env_names() -> dict[str, str]:
    """Option name → the environment variable that sets it."""
    return {option: ENV_PREFIX + suffix for option, suffix in ENV_KEYS.items()}


__all__ = ["ENV_PREFIX", "STACKS", "env_names", "from_environment", "validated"]
