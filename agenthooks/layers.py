"""The hook layer of each stack: the bus's handlers on the interceptor events, outermost.

Provider call: ``pre_request`` → (middleware → call) → ``on_model_error`` on failure →
``on_response``. Tool call: ``pre_tool_call`` → (middleware → tool) → ``on_tool_call_error``
on failure → ``on_tool_call_result``. The tool layer comes in three phases so a parallel batch
can run every ``before`` in order, the calls concurrently, then every ``after`` in order.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

from ._construct import build, context
from .bus import HookBus
from .decisions import Deny
from .errors import ToolValidationError, ends_run
from .events.contexts import (
    EventContext,
    ModelErrorContext,
    PreRequestContext,
    PreToolCallContext,
    ResponseContext,
    ToolErrorContext,
    ToolResultContext,
)
from .messages import ProviderResponse, ToolCall
from .middleware import CallNext, Stack

PROVIDER_EVENTS = frozenset({"pre_request", "on_response", "on_model_error"})
TOOL_EVENTS = frozenset({"pre_tool_call", "on_tool_call_result", "on_tool_call_error"})

COMMON = tuple(EventContext.model_fields)
_common_values = itemgetter(*COMMON)


def common(ctx: EventContext) -> dict[str, Any]:
    """The common fields of ``ctx``, to start the next context of the same step."""
    return dict(zip(COMMON, _common_values(ctx.__dict__)))


async def call_provider(
    bus: HookBus, ctx: PreRequestContext, endpoint: CallNext, stack: Stack
) -> ProviderResponse | Deny:
    """One provider call through the hook layer and ``stack``.

    Returns the response the run uses, or the ``Deny`` of ``pre_request`` / ``on_response``.
    Raises what the provider raised (or its ``{"error"}`` replacement) when nothing recovered.
    """
    if "pre_request" in bus.listened:
        deny = await bus.intercept("pre_request", ctx)
        if deny is not None:
            return deny
    if ctx.short_circuit == "response" and ctx.response is not None:
        response = ctx.response
    else:
        try:
            response = await (stack.compose(endpoint) if stack else endpoint)(ctx)
        except Exception as exc:
            response = await recover_model_error(bus, ctx, exc)
    if "on_response" not in bus.listened:
        return response
    after = context(ResponseContext, common(ctx), request=ctx.request, response=response)
    deny = await bus.intercept("on_response", after)
    return deny if deny is not None else after.response


async def recover_model_error(
    bus: HookBus, ctx: PreRequestContext, exc: Exception
) -> ProviderResponse:
    """``on_model_error``: the recovered response, or raise the (possibly replaced) error."""
    if "on_model_error" not in bus.listened:
        raise exc
    ectx = context(
        ModelErrorContext,
        common(ctx),
        request=ctx.request,
        error=exc,
        response=None,
        recovered=False,
    )
    await bus.intercept("on_model_error", ectx)
    if ectx.recovered and ectx.response is not None:
        return ectx.response
    error = ectx.error if isinstance(ectx.error, BaseException) else exc
    if error is exc:
        raise exc
    raise error from exc


@dataclass(slots=True)
class ToolOutcome:
    """The final outcome of one tool call: exactly one tool message is written from it."""

    call: ToolCall
    result: Any = None
    error: BaseException | str | None = None
    source: str | None = None
    denied: bool = False
    terminate: bool = False
    duration: float = 0.0
    short_circuit: bool = False

    @property
    def is_error(self) -> bool:
        return self.error is not None

    def error_text(self) -> str:
        """The error as the model reads it."""
        err = self.error
        if isinstance(err, BaseException):
            return str(err) or type(err).__name__
        return str(err)


async def tool_before(bus: HookBus, ctx: PreToolCallContext) -> ToolOutcome | None:
    """``pre_tool_call``: None to execute the (possibly modified) call, else the outcome a deny,
    a short-circuit or a failed re-validation decided."""
    original = ctx.call
    deny = await bus.intercept("pre_tool_call", ctx)
    if deny is not None:
        return ToolOutcome(ctx.call, error=deny.text(ctx.call.name), source="denied", denied=True)
    if ctx.short_circuit == "result":
        return ToolOutcome(ctx.call, result=ctx.result, short_circuit=True)
    if ctx.short_circuit == "error":
        return ToolOutcome(ctx.call, error=ctx.error, source="denied", short_circuit=True)
    if ctx.call is not original and ctx.tool is not None:
        try:  # arguments changed by the chain: validated once more, after the whole chain
            arguments = ctx.tool.validate(ctx.call.arguments)
        except ToolValidationError as exc:
            return ToolOutcome(ctx.call, error=exc, source="validation")
        ctx.__dict__["call"] = build(
            ToolCall, id=ctx.call.id, name=ctx.call.name, arguments=arguments
        )
    return None


async def tool_execute(
    call: ToolCall, ctx: PreToolCallContext | None, endpoint: CallNext, stack: Stack
) -> ToolOutcome:
    """The middleware and the tool itself (``ctx`` is None when no hook layer runs); an
    exception becomes an error outcome, except one that ends the run."""
    started = time.perf_counter()
    try:
        result = await (stack.compose(endpoint) if stack else endpoint)(ctx)
    except Exception as exc:
        if ends_run(exc):
            raise
        return ToolOutcome(
            call, error=exc, source="handler", duration=time.perf_counter() - started
        )
    return ToolOutcome(call, result=result, duration=time.perf_counter() - started)


async def tool_after(bus: HookBus, ctx: PreToolCallContext, outcome: ToolOutcome) -> ToolOutcome:
    """``on_tool_call_error`` for an error (a recovery then goes on as a result), and
    ``on_tool_call_result`` for a result (a deny there turns it into an error)."""
    base = common(ctx)
    if outcome.error is not None:
        if not TOOL_EVENTS & bus.listened:
            return outcome
        ectx = context(
            ToolErrorContext,
            base,
            call=outcome.call,
            tool=ctx.tool,
            tool_call_id=ctx.tool_call_id,
            scope=ctx.scope,
            error=outcome.error,
            source=outcome.source or "handler",
            result=None,
            recovered=False,
            duration=outcome.duration,
            terminate=False,
        )
        await bus.intercept("on_tool_call_error", ectx)
        outcome.terminate = ectx.terminate
        if not ectx.recovered:
            outcome.error = ectx.error if ectx.error is not None else outcome.error
            return outcome
        outcome.error, outcome.source, outcome.result = None, None, ectx.result
    if "on_tool_call_result" not in bus.listened:
        return outcome
    rctx = context(
        ToolResultContext,
        base,
        call=outcome.call,
        tool=ctx.tool,
        tool_call_id=ctx.tool_call_id,
        scope=ctx.scope,
        result=outcome.result,
        duration=outcome.duration,
        terminate=outcome.terminate,
    )
    deny = await bus.intercept("on_tool_call_result", rctx)
    if deny is not None:
        outcome.result, outcome.error, outcome.source = None, deny.text(ctx.call.name), "denied"
        outcome.denied = True
        return outcome
    outcome.result, outcome.terminate = rctx.result, rctx.terminate
    return outcome


async def call_tool(
    bus: HookBus, ctx: PreToolCallContext, endpoint: CallNext, stack: Stack
) -> ToolOutcome:
    """One tool call through the whole hook layer (the sequential path)."""
    outcome = await tool_before(bus, ctx)
    if outcome is None:
        outcome = await tool_execute(ctx.call, ctx, endpoint, stack)
    return await tool_after(bus, ctx, outcome)


__all__ = [
    "PROVIDER_EVENTS",
    "TOOL_EVENTS",
    "ToolOutcome",
    "call_provider",
    "call_tool",
    "common",
    "recover_model_error",
    "tool_after",
    "tool_before",
    "tool_execute",
]
