"""The cache options, declared once: in code (``CachePlugin(ttl=3600)``) and from the
``AGENTHOOKS_CACHE_*`` variables (the ``cache`` entry point) alike."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from pydantic import BeforeValidator, Field, ValidationInfo, field_validator
from pydantic_settings import NoDecode, SettingsConfigDict

from agenthooks.plugins import PluginOptionError, PluginSettings

DEFAULT_MAX_ENTRIES = 1024
_SWITCHES = {"1": True, "true": True, "yes": True, "on": True}
_SWITCHES |= {"0": False, "false": False, "no": False, "off": False}


class CacheConfigError(PluginOptionError):
    """A cache option is unknown or bad: ``cache plugin: CachePlugin: ttl: -1: Input should be
    greater than 0``.

    ``source`` is where the value came from (the class given the argument, or
    ``environment``), ``key`` the option or variable, ``problem`` what is wrong with it.
    """


def _tools_in_words(value: Any) -> Any:
    # AGENTHOOKS_CACHE_TOOLS=0 (off), =1 (every tool) or =search,fetch (those tools)
    if not isinstance(value, str):
        return value
    switch = _SWITCHES.get(value.strip().lower())
    if switch is not None:
        return switch
    return tuple(item.strip() for item in value.split(",") if item.strip())


class CacheSettings(PluginSettings):
    """One field per option; the variable of each is ``AGENTHOOKS_CACHE_`` + its name in
    capitals. ``backend`` is given in code only; ``redis_url`` / ``redis_prefix`` make a
    ``RedisBackend`` from the environment. ``tools`` is ``True``, ``False`` or tool names."""

    plugin: ClassVar[str] = "cache"
    error: ClassVar[type[PluginOptionError]] = CacheConfigError
    model_config = SettingsConfigDict(env_prefix="AGENTHOOKS_CACHE_")

    # the order is the order of the checks: a check of two options sits on the later one
    tools: Annotated[bool | tuple[str, ...], NoDecode, BeforeValidator(_tools_in_words)] = False
    responses: bool = True
    ttl: float | None = Field(None, gt=0)
    backend: Any = None
    redis_url: str | None = None
    redis_prefix: str | None = None
    max_entries: int | None = Field(None, ge=1)

    @field_validator("tools")
    @classmethod
    def _some_tools(cls, tools: bool | tuple[str, ...]) -> bool | tuple[str, ...]:
        if not isinstance(tools, bool) and (not tools or not all(tools)):
            raise ValueError("give True, False or a non-empty list of tool names")
        return tools

    @field_validator("responses")
    @classmethod
    def _something_to_cache(cls, responses: bool, info: ValidationInfo) -> bool:
        if not responses and info.data.get("tools") is False:
            raise ValueError("responses and tools are both off: there is nothing to cache")
        return responses

    @field_validator("ttl", mode="before")
    @classmethod
    def _none_in_words(cls, value: Any) -> Any:
        # the environment cannot say None: AGENTHOOKS_CACHE_TTL=none
        return None if isinstance(value, str) and value.strip().lower() == "none" else value

    @field_validator("backend")
    @classmethod
    def _a_backend(cls, backend: Any) -> Any:
        if backend is None or all(callable(getattr(backend, m, None)) for m in ("get", "set")):
            return backend
        raise ValueError("has no get(key) and set(key, value, ttl)")

    @field_validator("max_entries")
    @classmethod
    def _memory_only(cls, max_entries: int | None, info: ValidationInfo) -> int | None:
        # `is not None`: an empty MemoryBackend is falsy
        other = info.data.get("backend") is not None or info.data.get("redis_url") is not None
        if max_entries is not None and other:
            raise ValueError(
                "bounds the in-memory backend only; another backend (Redis) keeps its own bound"
            )
        return max_entries


__all__ = ["DEFAULT_MAX_ENTRIES", "CacheConfigError", "CacheSettings"]
