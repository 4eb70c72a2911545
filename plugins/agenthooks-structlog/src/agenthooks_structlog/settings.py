"""The plugin's options, declared once: in code (``StructlogPlugin(renderer="json")``) and
from the ``AGENTHOOKS_STRUCTLOG_*`` variables (the ``structlog`` entry point) alike."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BeforeValidator, Field, field_validator
from pydantic_settings import NoDecode, SettingsConfigDict

from agenthooks import UnknownEventError
from agenthooks.events import resolve
from agenthooks.plugins import PluginOptionError, PluginSettings

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


class StructlogConfigError(PluginOptionError):
    """An option is unknown or bad: ``structlog plugin: StructlogPlugin: renderer: 'xml':
    Input should be 'console' or 'json'``.

    ``source`` is where the value came from (the class given the argument, or
    ``environment``), ``key`` the option or variable, ``problem`` what is wrong with it.
    """


def _level(level: Any) -> str:
    if isinstance(level, str) and level.lower() in LEVELS:
        return level.lower()
    raise ValueError(f"{level!r} is not a level; use one of {', '.join(LEVELS)}")


def _event(event: Any) -> str:
    if not isinstance(event, str):
        raise ValueError(f"{event!r} is not an event name")
    try:
        return resolve(event).name
    except UnknownEventError as exc:
        raise ValueError(str(exc)) from None


def _levels_in_words(value: Any) -> Any:
    # AGENTHOOKS_STRUCTLOG_LEVELS=on_message=debug,pre_request=warning
    if not isinstance(value, str):
        return value
    levels: dict[str, str] = {}
    for item in (part.strip() for part in value.split(",")):
        if not item:
            continue
        event, sep, level = item.partition("=")
        if not sep:
            raise ValueError(f"{item!r} is not EVENT=LEVEL (on_message=debug,pre_request=warning)")
        levels[event.strip()] = level.strip()
    return levels


def _events_in_words(value: Any) -> Any:
    # AGENTHOOKS_STRUCTLOG_EVENTS=on_chat_start,on_chat_end; a lone string in code is a mistake
    if isinstance(value, str):
        return [item.strip() for item in value.split(",") if item.strip()]
    return value


class StructlogSettings(PluginSettings):
    """One field per option; the variable of each is ``AGENTHOOKS_STRUCTLOG_`` + its name in
    capitals. ``logger`` (your own logger) and a ``file`` that is a stream are given in code
    only. ``levels`` holds the canonical names of the events set explicitly."""

    plugin: ClassVar[str] = "structlog"
    error: ClassVar[type[PluginOptionError]] = StructlogConfigError
    model_config = SettingsConfigDict(env_prefix="AGENTHOOKS_STRUCTLOG_")

    renderer: Literal["console", "json"] | None = None
    levels: Annotated[dict[str, str] | None, NoDecode, BeforeValidator(_levels_in_words)] = None
    max_chars: int | None = Field(200, ge=1)
    logger: Any = None
    events: Annotated[tuple[str, ...] | None, NoDecode, BeforeValidator(_events_in_words)] = None
    min_level: str | None = None
    file: Any = None

    @field_validator("max_chars", mode="before")
    @classmethod
    def _none_in_words(cls, value: Any) -> Any:
        # the environment cannot say None: AGENTHOOKS_STRUCTLOG_MAX_CHARS=none
        return None if isinstance(value, str) and value.strip().lower() == "none" else value

    @field_validator("min_level")
    @classmethod
    def _known_level(cls, level: str | None) -> str | None:
        return None if level is None else _level(level)

    @field_validator("levels")
    @classmethod
    def _known_levels(cls, levels: Mapping[str, str] | None) -> dict[str, str] | None:
        if levels is None:
            return None
        return {_event(event): _level(level) for event, level in levels.items()}

    @field_validator("events")
    @classmethod
    def _known_events(cls, events: Iterable[str] | None) -> tuple[str, ...] | None:
        return None if events is None else tuple(_event(event) for event in events)

    @field_validator("file")
    @classmethod
    def _path_or_stream(cls, file: Any) -> Any:
        if file is None or isinstance(file, str) or callable(getattr(file, "write", None)):
            return file
        raise ValueError("expected a path or a text stream")


__all__ = [
    "DEFAULT_LEVELS",
    "LEVELS",
    "RENDERERS",
    "StructlogConfigError",
    "StructlogSettings",
]
