"""The retry options, declared once: in code (``RetryMiddleware(attempts=5)``,
``RetryPlugin(attempts=5)``) and from the ``AGENTHOOKS_RETRY_*`` variables (the ``retry``
entry point) alike.

``RetrySettings`` holds each option's type, default and check; ``RetryOptions`` is the same
names as keyword arguments, so the two constructors are typed without repeating a default
(``tests/test_retry_config.py`` pins the two to the same names)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any, ClassVar, TypedDict

from pydantic import Field, field_validator
from pydantic_settings import SettingsConfigDict

from agenthooks.plugins import CommaList, PluginOptionError, PluginSettings

if TYPE_CHECKING:
    from .retry import RetryAttempt

STACKS = ("provider", "tool")


class RetryConfigError(PluginOptionError):
    """A retry option is unknown or bad: ``retry plugin: RetryMiddleware: attempts: 0: Input
    should be greater than or equal to 1``.

    ``source`` is where the value came from (the class given the argument, or
    ``environment``), ``key`` the option or variable, ``problem`` what is wrong with it.
    """


class RetrySettings(PluginSettings):
    """One field per option; the variable of each is ``AGENTHOOKS_RETRY_`` + its name in
    capitals (``AGENTHOOKS_RETRY_MAX_TIME=30``, ``AGENTHOOKS_RETRY_STACKS=provider,tool``).
    The callables (``retry_on``, ``on_retry``, ``sleep``) are given in code only."""

    plugin: ClassVar[str] = "retry"
    error: ClassVar[type[PluginOptionError]] = RetryConfigError
    model_config = SettingsConfigDict(env_prefix="AGENTHOOKS_RETRY_")

    stacks: CommaList = ("provider",)
    attempts: int = Field(3, ge=1)
    max_time: float | None = Field(None, gt=0)
    initial: float = Field(0.5, ge=0)
    max_backoff: float = Field(8.0, ge=0)
    jitter: float = Field(0.5, ge=0)
    retry_on: Callable[[BaseException], bool] | None = None
    tools: CommaList | None = None
    on_retry: Callable[[Any, Any], Any] | None = None
    sleep: Callable[[float], Awaitable[None]] | None = None

    @field_validator("stacks")
    @classmethod
    def _known_stacks(cls, stacks: tuple[str, ...]) -> tuple[str, ...]:
        if not stacks or any(stack not in STACKS for stack in stacks):
            raise ValueError("give a non-empty list of 'provider', 'tool'")
        return tuple(dict.fromkeys(stacks))

    @field_validator("tools")
    @classmethod
    def _some_tools(cls, tools: tuple[str, ...] | None) -> tuple[str, ...] | None:
        if tools is not None and not tools:
            raise ValueError("give a non-empty list of tool names (or None: all)")
        return tools

    @field_validator("max_time", mode="before")
    @classmethod
    def _none_in_words(cls, value: Any) -> Any:
        # the environment cannot say None: AGENTHOOKS_RETRY_MAX_TIME=none
        return None if isinstance(value, str) and value.strip().lower() == "none" else value


class RetryOptions(TypedDict, total=False):
    """The retry options as keyword arguments (``**options: Unpack[RetryOptions]``); what each
    means and its default: ``RetryMiddleware``'s Args, ``RetrySettings``' fields."""

    stacks: str | Iterable[str]
    attempts: int
    max_time: float | None
    initial: float
    max_backoff: float
    jitter: float
    retry_on: Callable[[BaseException], bool] | None
    tools: Iterable[str] | None
    on_retry: Callable[[Any, RetryAttempt], Any] | None
    sleep: Callable[[float], Awaitable[None]] | None


__all__ = ["STACKS", "RetryConfigError", "RetryOptions", "RetrySettings"]
