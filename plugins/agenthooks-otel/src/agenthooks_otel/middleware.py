"""Make the open ``chat`` / ``execute_tool`` span current while the provider or the tool runs.

So spans that the call's own code creates (an instrumented HTTP client inside a tool, the
provider's HTTP request) nest under the span of that call. The context is attached and detached
inside the call's own task, so parallel tool calls each see their own span.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from opentelemetry import context as otel_context
from opentelemetry import trace

from agenthooks import CallNext, Middleware

from .spans import swallowed

if TYPE_CHECKING:
    from .plugin import OtelPlugin


class SpanContextMiddleware(Middleware):
    """Runs each provider and tool call with the plugin's span for it as the current span."""

    name = "otel-span-context"

    def __init__(self, plugin: OtelPlugin) -> None:
        self._plugin = plugin

    async def wrap(self, ctx: Any, call_next: CallNext) -> Any:
        """Run the call with its span current, so spans the provider or tool opens nest under it."""
        token = None
        with swallowed("attach_span_context", run_id=getattr(ctx, "run_id", None)):
            span = self._plugin.current_span(ctx)
            if span is not None:
                token = otel_context.attach(trace.set_span_in_context(span))
        if token is None:
            return await call_next(ctx)
        try:
            return await call_next(ctx)
        finally:
            with swallowed("detach_span_context", run_id=getattr(ctx, "run_id", None)):
                otel_context.detach(token)


__all__ = ["SpanContextMiddleware"]
