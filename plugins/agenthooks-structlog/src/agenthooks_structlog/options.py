"""The plugin's options: validated once, from constructor arguments or from the environment."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from agenthooks import UnknownEventError
from agenthooks.events import resolve

from .errors import StructlogConfigError

LEVELS = ("debug", "info", "warning", "error", "critical")
RENDERERS = ("console", "json")

DEFAULT_LEVELS: dict[str, str] = {
    "on_stream_chunk": "debug",
    "on_model_error": "warning",
    "on_tool_call_error": "warning",
    "on_stream_error": "warning",
    "on_memory_error": "warning",
    "on_chat_abort": "warning",
    "on_stop": "warning",
    "on_chat_error": "error",
}
"""Levels that differ from ``info``; any other record that is a deny or an error logs at
``warning`` unless its event's level was set explicitly."""

ENV_PREFIX = "AGENTHOOKS_STRUCTLOG_"
ENV_KEYS = {
    "renderer": "RENDERER",
    "min_level": "MIN_LEVEL",
    "max_chars": "MAX_CHARS",
    "levels": "LEVELS",
    "events": "EVENTS",
    "file": "FILE",
}


@dataclass(frozen=True)
class Options:
    """Validated options (``levels`` holds only the explicitly set events, canonical names)."""

    renderer: str | None
    levels: Mapping[str, str]
    max_chars: int | None
    min_level: str | None
    events: frozenset[str] | None


def validate(
    source: str,
    *,
    renderer: Any,
    levels: Any,
    max_chars: Any,
    min_level: Any,
    events: Any,
    names: Mapping[str, str] | None = None,
) -> Options:
    """Check every option; a bad one raises ``StructlogConfigError`` naming ``source`` and its
    key (``names`` maps an option to the name to report, e.g. its environment variable)."""

    def fail(option: str, problem: str) -> StructlogConfigError:
        return StructlogConfigError(source, (names or {}).get(option, option), problem)

    if renderer is not None and renderer not in RENDERERS:
        raise fail("renderer", f"{renderer!r} is not one of 'console', 'json'")
    if max_chars is not None and (
        isinstance(max_chars, bool) or not isinstance(max_chars, int) or max_chars < 1
    ):
        raise fail("max_chars", f"{max_chars!r} is not a whole number >= 1 (or None: no limit)")
    if min_level is not None:
        min_level = _level(min_level, lambda problem: fail("min_level", problem))
    checked: dict[str, str] = {}
    if levels is not None:
        if not isinstance(levels, Mapping):
            raise fail(
                "levels", f"expected a mapping of event name to level, got {type(levels).__name__}"
            )
        for event, level in levels.items():
            name = _event(event, lambda problem, e=event: fail("levels", f"[{e!r}]: {problem}"))
            checked[name] = _level(
                level, lambda problem, e=event: fail("levels", f"[{e!r}]: {problem}")
            )
    chosen: frozenset[str] | None = None
    if events is not None:
        if isinstance(events, str) or not isinstance(events, Iterable):
            raise fail("events", f"expected a list of event names, got {events!r}")
        chosen = frozenset(_event(e, lambda problem: fail("events", problem)) for e in events)
    return Options(renderer, checked, max_chars, min_level, chosen)


def _level(level: Any, fail: Any) -> str:
    if isinstance(level, str) and level.lower() in LEVELS:
        return level.lower()
    raise fail(f"{level!r} is not a level; use one of {', '.join(LEVELS)}")


def _event(event: Any, fail: Any) -> str:
    if not isinstance(event, str):
        raise fail(f"{event!r} is not an event name")
    try:
        return resolve(event).name
    except UnknownEventError as exc:
        raise fail(str(exc)) from None


def from_environment(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The constructor arguments the ``AGENTHOOKS_STRUCTLOG_*`` variables set (parsed, not yet
    validated beyond their syntax): ``RENDERER=json``, ``MIN_LEVEL=debug``, ``MAX_CHARS=500``
    (``none``: no limit), ``LEVELS=on_message=debug,pre_request=warning``,
    ``EVENTS=on_chat_start,on_chat_end``, ``FILE=/path/to/log``."""
    env = os.environ if environ is None else environ
    values: dict[str, Any] = {}
    for option, suffix in ENV_KEYS.items():
        raw = env.get(ENV_PREFIX + suffix)
        if raw is None or not raw.strip():
            continue
        raw = raw.strip()
        key = ENV_PREFIX + suffix
        if option == "max_chars":
            if raw.lower() == "none":
                values[option] = None
            else:
                try:
                    values[option] = int(raw)
                except ValueError:
                    raise StructlogConfigError(
                        "environment",
                        key,
                        f"{raw!r} is not a whole number >= 1 (or 'none': no limit)",
                    ) from None
        elif option == "levels":
            levels: dict[str, str] = {}
            for item in _items(raw):
                event, sep, level = item.partition("=")
                if not sep:
                    raise StructlogConfigError(
                        "environment",
                        key,
                        f"{item!r} is not EVENT=LEVEL (e.g. on_message=debug,pre_request=warning)",
                    )
                levels[event.strip()] = level.strip()
            values[option] = levels
        elif option == "events":
            values[option] = _items(raw)
        else:
            values[option] = raw
    return values


def env_names() -> dict[str, str]:
    """Option name → the environment variable that sets it (how errors name the key)."""
    return {option: ENV_PREFIX + suffix for option, suffix in ENV_KEYS.items()}


def _items(raw: str) -> list[str]:
    return [item.strip() for item in raw.split(",") if item.strip()]


__all__ = [
    "DEFAULT_LEVELS",
    "LEVELS",
    "RENDERERS",
    "Options",
    "env_names",
    "from_environment",
    "validate",
]
