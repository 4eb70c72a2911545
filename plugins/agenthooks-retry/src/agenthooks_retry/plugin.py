"""RetryPlugin: the middleware as an installable plugin, configured in code or by the
environment (``RetryPlugin.from_env()``, what the ``retry`` entry point loads)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from agenthooks import Middleware

from .fallback import Fallback, FallbackMiddleware
from .retry import RetryMiddleware
from .settings import RetryOptions, RetrySettings

if TYPE_CHECKING:
    from typing_extensions import Unpack


class RetryPlugin:
    """``bus.use(RetryPlugin(...))``: registers no hooks, only middleware.

    A ``RetryMiddleware`` and, with ``fallbacks``, a ``FallbackMiddleware`` outside it, so
    each provider gets its retries before the next is tried.

    Args:
        fallbacks: Providers to call, in order, when one fails for good: each a provider or
            ``(provider, model)`` to also change the request's model.
        **options: ``RetryMiddleware``'s options (``attempts``, ``stacks``, ``max_time``,
            ...), as it takes them.

    Raises:
        RetryConfigError: An option is bad; it names the option and this class.
    """

    name = "retry"

    def __init__(
        self, *, fallbacks: Iterable[Fallback] = (), **options: Unpack[RetryOptions]
    ) -> None:
        # validated here, so that an error names this class, not the middleware it builds
        self._configure(RetrySettings.of(type(self).__name__, **options), fallbacks)

    def _configure(self, options: RetrySettings, fallbacks: Iterable[Fallback]) -> None:
        self.retry = RetryMiddleware.of(options)
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
        plugin = cls.__new__(cls)
        plugin._configure(RetrySettings.from_env(), ())
        return plugin

    def __repr__(self) -> str:
        return f"RetryPlugin({self.middleware!r})"


__all__ = ["RetryPlugin"]
