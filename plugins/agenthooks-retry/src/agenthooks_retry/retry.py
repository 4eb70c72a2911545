"""RetryMiddleware: tenacity retries with exponential backoff and jitter, on either stack."""

from __future__ import annotations

import asyncio
import inspect
import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

import structlog
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception,
    stop_after_attempt,
    stop_before_delay,
)

from agenthooks import CallNext, Middleware
from agenthooks.events import PreRequestContext, PreToolCallContext

from .policy import is_transient, retry_after
from .settings import RetryOptions, RetrySettings

if TYPE_CHECKING:
    from typing_extensions import Unpack

log = structlog.get_logger("agenthooks.retry")


@dataclass(frozen=True, slots=True)
class RetryAttempt:
    """One retry about to happen, as ``on_retry(ctx, retry)`` and the ``retry`` log line see
    it: the ``stack`` (``provider`` / ``tool``), the 1-based number of the ``attempt`` that
    failed, its ``error``, and the ``wait`` in seconds before the next attempt."""

    stack: str
    attempt: int
    error: BaseException
    wait: float


class RetryMiddleware(Middleware):
    """Retry failed provider (and, if asked, tool) calls with exponential backoff and jitter.

    ``bus.use(RetryMiddleware())``, or ``Agent(middleware=[RetryMiddleware()])``.

    A streamed provider call is never retried once a chunk reached the caller. Each retry
    logs ``retry`` at info (logger ``agenthooks.retry``: kind (the stack), attempt, attempts,
    wait, error, run_id, agent; tool_call_id and tool_name on the tool stack). When the
    attempts are spent the last error propagates: ``on_model_error`` /
    ``on_tool_call_error`` see it. Retries inside the stack are not turns.

    Args:
        **options: Each option a keyword argument (``RetryOptions``; declared once, with
            its default and check, in ``RetrySettings``):

            - ``stacks``: ``"provider"`` (default), ``"tool"`` or both.
            - ``attempts``: calls in all, the first included (default 3).
            - ``max_time``: never start a wait that would end more than this many seconds
              after the first call; ``None`` (default): no bound.
            - ``initial``: the first wait in seconds (default 0.5); waits are ``initial *
              2 ** (n - 1) + uniform(0, jitter)``, and a ``Retry-After`` the error carries
              (up to 60 s) wins.
            - ``max_backoff``: the longest wait in seconds (default 8).
            - ``jitter``: the random seconds added to each wait, at most (default 0.5).
            - ``retry_on``: ``retry_on(exc) -> bool``: which errors to retry; default
              ``is_transient``: connection errors, timeouts, HTTP 408/409/429/5xx.
            - ``tools``: on the tool stack, only these tool names; default: all.
            - ``on_retry``: called as ``on_retry(ctx, RetryAttempt)`` before each retry,
              sync or async; its exceptions are logged, never raised.
            - ``sleep``: replaces ``asyncio.sleep`` (tests).

    Raises:
        RetryConfigError: An option is bad; it names the option.
    """

    def __init__(self, **options: Unpack[RetryOptions]) -> None:
        self._apply(RetrySettings.of(type(self).__name__, **options))

    @classmethod
    def of(cls, options: RetrySettings) -> RetryMiddleware:
        """The middleware for options validated already (``RetryPlugin``'s, the
        environment's)."""
        middleware = cls.__new__(cls)
        middleware._apply(options)
        return middleware

    def _apply(self, options: RetrySettings) -> None:
        # an instance value shadows the class default the bus reads
        setattr(self, "stacks", options.stacks)  # noqa: B010
        self.attempts: int = options.attempts
        self.max_time: float | None = options.max_time
        self.initial: float = options.initial
        self.max_backoff: float = options.max_backoff
        self.jitter: float = options.jitter
        self.retry_on: Callable[[BaseException], bool] = options.retry_on or is_transient
        self.tools: frozenset[str] | None = (
            None if options.tools is None else frozenset(options.tools)
        )
        self.on_retry: Callable[[Any, RetryAttempt], Any] | None = options.on_retry
        self._sleep = options.sleep or asyncio.sleep
        stop = stop_after_attempt(self.attempts)
        self._stop = stop if self.max_time is None else stop | stop_before_delay(self.max_time)

    async def wrap(self, ctx: Any, call_next: CallNext) -> Any:
        """Call ``call_next(ctx)``; on a retryable error wait and call it again."""
        if isinstance(ctx, PreToolCallContext):
            stack = "tool"
            if self.tools is not None and ctx.call.name not in self.tools:
                return await call_next(ctx)
        else:
            stack = "provider"
        retrying = AsyncRetrying(
            stop=self._stop,
            wait=self._wait,
            sleep=self._sleep,
            reraise=True,
            retry=retry_if_exception(partial(self._retryable, ctx)),
            before_sleep=partial(self._before_sleep, ctx, stack),
        )

        async def attempt() -> Any:
            # an ``async def`` of our own: tenacity awaits only coroutine functions, and a
            # stack's ``call_next`` may be a plain function returning an awaitable
            return await call_next(ctx)

        return await retrying(attempt)

    def _retryable(self, ctx: Any, exc: BaseException) -> bool:
        if not isinstance(exc, Exception):
            return False  # cancellation and exits are never retried
        if isinstance(ctx, PreRequestContext) and ctx.stream and ctx.chunks_sent > 0:
            return False  # the caller already has part of this answer
        return bool(self.retry_on(exc))

    def _wait(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome is not None else None
        asked = retry_after(exc) if exc is not None else None
        return asked if asked is not None else self.backoff(state.attempt_number)

    def backoff(self, attempt: int) -> float:
        """The wait after the ``attempt``-th failure (1-based), when no Retry-After applies:
        ``initial * 2 ** (attempt - 1) + uniform(0, jitter)``, at most ``max_backoff``."""
        wait = self.initial * 2.0 ** (attempt - 1) + random.uniform(0.0, self.jitter)
        return max(0.0, min(wait, self.max_backoff))

    async def _before_sleep(self, ctx: Any, stack: str, state: RetryCallState) -> None:
        assert state.outcome is not None
        error = state.outcome.exception()
        assert error is not None
        retry = RetryAttempt(stack, state.attempt_number, error, state.upcoming_sleep)
        where = {"run_id": getattr(ctx, "run_id", None), "agent": getattr(ctx, "agent", None)}
        if isinstance(ctx, PreToolCallContext):
            where.update(tool_call_id=ctx.tool_call_id, tool_name=ctx.call.name)
        # "kind", not "stack": structlog renders a "stack" key as a stack trace
        log.info(
            "retry",
            kind=stack,
            attempt=retry.attempt,
            attempts=self.attempts,
            wait=retry.wait,
            error=f"{type(error).__name__}: {error}",
            **where,
        )
        if self.on_retry is None:
            return
        try:
            result = self.on_retry(ctx, retry)
            if inspect.isawaitable(result):
                await result
        except Exception as exc:
            log.warning(
                "retry_callback_failed",
                callback=repr(self.on_retry),
                error=f"{type(exc).__name__}: {exc}",
            )

    def __repr__(self) -> str:
        return (
            f"RetryMiddleware(stacks={self.stacks!r}, attempts={self.attempts}, "
            f"max_time={self.max_time!r})"
        )


__all__ = ["RetryAttempt", "RetryMiddleware"]
