"""RetryPlugin: the middleware as an installable plugin, and its entry-point form."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any

from agenthooks import Middleware

from .fallback import Fallback, FallbackMiddleware
from .options import env_names, from_environment, validated
from .retry import RetryAttempt, RetryMiddleware


class RetryPlugin:
    """``bus.use(RetryPlugin(...))``: registers no hooks, only middleware: a
    ``RetryMiddleware`` (same options) and, with ``fallbacks``, a ``FallbackMiddleware``
    outside it, so each provider gets its retries before the next is tried."""

    name = "retry"

    def __init__(
        self,
        *,
        stacks: str | Iterable[str] = ("provider",),
        attempts: int = 3,
        max_time: float | None = None,
        initial: float = 0.5,
        max_backoff: float = 8.0,
        jitter: float = 0.5,
        retry_on: Callable[[BaseException], bool] | None = None,
        tools: Iterable[str] | None = None,
        on_retry: Callable[[Any, RetryAttempt], Any] | None = None,
        sleep: Callable[[float], Awaitable[None]] | None = None,
        fallbacks: Iterable[Fallback] = (),
    ) -> None:
        self._configure(
            "RetryPlugin",
            None,
            stacks=stacks,
            attempts=attempts,
            max_time=max_time,
            initial=initial,
            max_backoff=max_backoff,
            jitter=jitter,
            retry_on=retry_on,
            tools=tools,
            on_retry=on_retry,
            sleep=sleep,
            fallbacks=fallbacks,
        )

    def _configure(
        self,
        source: str,
        names: Mapping[str, str] | None,
        *,
        fallbacks: Iterable[Fallback],
        **options: Any,
    ) -> None:
        validated(source, names, **options)  # errors name this plugin (or the variable)
        self.retry = RetryMiddleware(**options)
        fallbacks = list(fallbacks)
        self.fallback = FallbackMiddleware(fallbacks) if fallbacks else None
        self.middleware: list[Middleware] = [
            m for m in (self.fallback, self.retry) if m is not None
        ]

    def __repr__(self) -> str:
        return f"RetryPlugin({self.middleware!r})"


class EnvRetryPlugin(RetryPlugin):
    """The entry-point form (``retry``): options from ``AGENTHOOKS_RETRY_*`` variables:
    ``ATTEMPTS``, ``MAX_TIME`` (or ``none``), ``INITIAL``, ``MAX_BACKOFF``, ``JITTER``,
    ``STACKS`` (``provider,tool``), ``TOOLS`` (``search,fetch``). A bad value raises
    ``RetryConfigError`` naming the variable."""

    def __init__(self) -> None:
        options: dict[str, Any] = {
            "stacks": ("provider",),
            "attempts": 3,
            "max_time": None,
            "initial": 0.5,
            "max_backoff": 8.0,
            "jitter": 0.5,
            "retry_on": None,
            "tools": None,
            "on_retry": None,
            "sleep": None,
        }
        options.update(from_environment())
        self._configure("environment", env_names(), fallbacks=(), **options)


__all__ = ["EnvRetryPlugin", "RetryPlugin"]
