"""RetryPlugin: the middleware as an installable plugin, configured in code or by the
environment (``RetryPlugin.from_env()``, what the ``retry`` entry point loads)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from agenthooks import Middleware

from .fallback import Fallback, FallbackMiddleware
from .retry import RetryAttempt, RetryMiddleware
from .settings import RetrySettings


class RetryPlugin:
    """``bus.use(RetryPlugin(...))``: registers no hooks, only middleware.

    A ``RetryMiddleware`` and, with ``fallbacks``, a ``FallbackMiddleware`` outside it, so
    each provider gets its retries before the next is tried.

    Args:
        stacks: ``"provider"`` (default), ``"tool"`` or both.
        attempts: Calls in all, the first included.
        max_time: Never start a wait that would end more than this many seconds after the
            first call; ``None``: no bound.
        initial: The first wait in seconds; waits are ``initial * 2 ** (n - 1) +
            uniform(0, jitter)``, and a ``Retry-After`` the error carries (up to 60 s) wins.
        max_backoff: The longest wait in seconds.
        jitter: The random seconds added to each wait, at most.
        retry_on: ``retry_on(exc) -> bool``: which errors to retry; default
            ``is_transient``: connection errors, timeouts, HTTP 408/409/429/5xx.
        tools: On the tool stack, only these tool names; default: all.
        on_retry: Called as ``on_retry(ctx, RetryAttempt)`` before each retry, sync or
            async; its exceptions are logged, never raised.
        sleep: Replaces ``asyncio.sleep`` (tests).
        fallbacks: Providers to call, in order, when one fails for good: each a provider or
            ``(provider, model)`` to also change the request's model.

    Raises:
        RetryConfigError: An option is bad; it names the option.
    """

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

    def _configure(self, *, fallbacks: Iterable[Fallback], **options: Any) -> None:
        RetrySettings.of("RetryPlugin", **options)  # errors name this class, not the middleware
        self.retry = RetryMiddleware(**options)
        fallbacks = list(fallbacks)
        self.fallback = FallbackMiddleware(fallbacks) if fallbacks else None
        self.middleware: list[Middleware] = [
            m for m in (self.fallback, self.retry) if m is not None
        ]

    @classmethod
    def from_env(cls) -> RetryPlugin:
        """The plugin the ``AGENTHOOKS_RETRY_*`` variables configure (the ``retry`` entry
        point builds it so): ``ATTEMPTS``, ``MAX_TIME`` (or ``none``), ``INITIAL``,
        ``MAX_BACKOFF``, ``JITTER``, ``STACKS`` (``provider,tool``), ``TOOLS``
        (``search,fetch``).

        Raises:
            RetryConfigError: Naming the variable that is unknown or bad.
        """
        return cls(**RetrySettings.from_env().model_dump())

    def __repr__(self) -> str:
        return f"RetryPlugin({self.middleware!r})"


__all__ = ["RetryPlugin"]
