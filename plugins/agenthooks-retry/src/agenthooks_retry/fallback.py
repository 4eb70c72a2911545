"""FallbackMiddleware: when the provider call fails, try the next provider."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import structlog

from agenthooks import CallNext, Middleware, Provider, ProviderError
from agenthooks.events import PreRequestContext

from .settings import RetryConfigError

log = structlog.get_logger("agenthooks.retry")

Fallback = Provider | tuple[Provider, str]
"""A provider to fall back to, or ``(provider, model)`` to also change the request's model."""


def _is_provider_error(exc: BaseException) -> bool:
    return isinstance(exc, ProviderError)


class FallbackMiddleware(Middleware):
    """On a failed provider call, call the next of ``providers`` (in order) instead.

    ``bus.use(FallbackMiddleware([backup]))``. The inner layers and the call get
    ``ctx.model_copy(update={"provider": next})`` (and a request with ``model`` replaced for a
    ``(provider, model)`` entry). Added before a ``RetryMiddleware``, it sits outside it, so
    each provider gets its retries before the next is tried.

    ``fallback_on(exc) -> bool`` chooses the errors that move on (default: any agenthooks
    ``ProviderError``). A streamed call whose chunks already reached the caller never moves
    on. When every provider failed, the last error propagates (``on_model_error`` sees it).
    Each switch logs ``fallback`` (logger ``agenthooks.retry``).
    """

    stacks = ("provider",)

    def __init__(
        self,
        providers: Iterable[Fallback],
        *,
        fallback_on: Callable[[BaseException], bool] | None = None,
    ) -> None:
        entries: list[tuple[Provider, str | None]] = []
        for index, item in enumerate(providers if isinstance(providers, Iterable) else [None]):
            provider, model = item if isinstance(item, tuple) and len(item) == 2 else (item, None)
            if not isinstance(provider, Provider) or not (model is None or isinstance(model, str)):
                raise RetryConfigError(
                    "retry",
                    type(self).__name__,
                    f"providers[{index}]",
                    f"{item!r} is not a provider (name, complete, stream) or (provider, model)",
                )
            entries.append((provider, model))
        if not entries:
            raise RetryConfigError(
                "retry",
                type(self).__name__,
                "providers",
                "give at least one provider to fall back to",
            )
        if fallback_on is not None and not callable(fallback_on):
            raise RetryConfigError(
                "retry", type(self).__name__, "fallback_on", f"{fallback_on!r} is not callable"
            )
        self.providers = entries
        self.fallback_on = fallback_on or _is_provider_error

    async def wrap(self, ctx: PreRequestContext, call_next: CallNext) -> Any:
        """Call with ``ctx.provider``, then each fallback in turn while the error allows it."""
        try:
            return await call_next(ctx)
        except Exception as exc:
            error: Exception = exc
        current = ctx.provider
        for provider, model in self.providers:
            if (ctx.stream and ctx.chunks_sent > 0) or not self.fallback_on(error):
                raise error
            extra = {} if model is None else {"model": model}
            log.warning(
                "fallback",
                from_provider=_name(current),
                to_provider=_name(provider),
                error=f"{type(error).__name__}: {error}",
                run_id=ctx.run_id,
                agent=ctx.agent,
                **extra,
            )
            update: dict[str, Any] = {"provider": provider}
            if model is not None:
                update["request"] = ctx.request.model_copy(update={"model": model})
            attempt = ctx.model_copy(update=update)
            try:
                return await call_next(attempt)
            except Exception as exc:
                error = exc
            finally:
                # the stream endpoint counts chunks on the copy; outer layers and the runtime
                # read the original (no retry or one-chunk resend after text went out)
                ctx.chunks_sent = attempt.chunks_sent
            current = provider
        raise error

    def __repr__(self) -> str:
        return f"FallbackMiddleware({[_name(p) for p, _ in self.providers]!r})"


def _name(provider: Any) -> str:
    return str(getattr(provider, "name", None) or type(provider).__name__)


__all__ = ["Fallback", "FallbackMiddleware"]
