"""The open spans of the runs in flight, kept in explicit maps.

Runs and parallel tool calls interleave on one event loop, so the ambient OpenTelemetry context
cannot say which span an event belongs to; the maps can: agent and chat spans by ``run_id``,
tool spans by ``(run_id, tool_call_id)``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import structlog
from opentelemetry.trace import Span, Status, StatusCode

from .attributes import DENIED, DENIED_REASON, DENIED_TYPE, ERROR_TYPE, exception_attributes

log = structlog.get_logger("agenthooks_otel")


@contextmanager
def swallowed(what: str, **fields: Any) -> Iterator[None]:
    """Log and swallow any exception of the block: telemetry never breaks a run."""
    try:
        yield
    except Exception as exc:
        log.warning("otel_failed", operation=what, error=f"{type(exc).__name__}: {exc}", **fields)


def safe(fn: Callable[..., None]) -> Callable[..., None]:
    """A handler that logs and swallows its own exceptions (``pre_tool_call`` and
    ``pre_request`` are gates: an isolated exception there would count as a deny)."""

    @functools.wraps(fn)
    def handler(self: Any, ctx: Any) -> None:
        with swallowed(fn.__name__, run_id=getattr(ctx, "run_id", None)):
            fn(self, ctx)

    return handler


def _same(value: Any) -> Any:
    return value


@dataclass(eq=False)
class OpenSpan:
    """A started span and what the events so far said about its outcome; ``redact`` is what
    the texts of that outcome pass through (the run's export redaction)."""

    span: Span
    error_type: str | None = None
    error_text: str | None = None
    denied: str | None = None
    saw_result: bool = False
    saw_error: bool = False
    redact: Callable[[Any], Any] = _same
    input: str | None = None
    """The run's input message, captured when the span ends (when its redaction is known)."""

    def record_exception(self, error: BaseException) -> None:
        """``span.record_exception``, with the message and the traceback redacted."""
        if self.redact is _same:
            self.span.record_exception(error)
        else:
            self.span.record_exception(error, attributes=exception_attributes(error, self.redact))

    def fail(self, error_type: str, text: str) -> None:
        """Remember a failure; applied when the span ends."""
        self.error_type, self.error_text = error_type, text

    def deny(self, reason: str) -> None:
        """Remember a deny (a tool call's deny is also its failure)."""
        self.denied = reason

    def end(self) -> None:
        """Apply the remembered outcome and end the span; ``end`` runs even when setting the
        outcome fails, so no span is left open."""
        try:
            if self.denied is not None:
                self.span.set_attribute(DENIED, True)
                self.span.set_attribute(DENIED_REASON, self.redact(self.denied))
            if self.error_type is not None:
                self.span.set_attribute(ERROR_TYPE, self.error_type)
                text = None if self.error_text is None else self.redact(self.error_text)
                self.span.set_status(Status(StatusCode.ERROR, text))
        finally:
            self.span.end()


def deny_failure(open_span: OpenSpan, reason: str) -> None:
    """A tool call refused by a hook: marked denied and failed with ``error.type`` "denied"."""
    open_span.deny(reason)
    open_span.fail(DENIED_TYPE, reason)


__all__ = ["OpenSpan", "deny_failure", "log", "safe", "swallowed"]
