"""The hook layer of a tool call and what it wraps: ``pre_tool_call`` → the middleware → the
tool (``endpoint``) → ``on_tool_call_error`` on failure → ``on_tool_call_result``. The layer
is the outermost ``wrap`` of the stack ``stacks.py`` builds once per registration change; it
returns the call's ``ToolOutcome``."""

from __future__ import annotations

import asyncio
import time
from inspect import isawaitable
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel

from .._construct import (
    EVERY_FIELD,
    build,
    every_field,
    set_dict,
    set_extra,
    set_fields,
    set_private,
)
from ..bus import HookBus
from ..decisions import Ask, Deny
from ..errors import ToolValidationError, ends_run
from ..events.contexts import PreToolCallContext, ToolCallErrorContext, ToolCallResultContext
from ..messages import ToolCall
from ..tools import Tool, ToolContext, serialize_result
from .tool_outcome import FLIGHT, Flight, ToolOutcome, asked
from .trusted import common

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

M = TypeVar("M", bound=BaseModel)
_new = object.__new__
_PLAIN = frozenset({str, int, float, bool, type(None), dict, list, tuple})


class ToolHooks:
    """The hook layer of the tool call: outermost, it translates between the hooks' return
    keys and the middleware's values (``{"result": v}`` from ``pre_tool_call`` is a ``before``
    returning ``v``; ``{"result": v}`` from ``on_tool_call_error`` an ``on_error`` returning
    ``v``; a ``Deny`` or ``{"error": e}`` an error outcome the model reads), and returns the
    call's ``ToolOutcome``."""

    __slots__ = ("bus", "inner", "serial")

    def __init__(
        self,
        bus: HookBus,
        inner: Callable[[Any], Awaitable[Any]] | None = None,
        serial: asyncio.Lock | None = None,
    ) -> None:
        self.bus = bus
        self.inner = inner
        """What this layer wraps when it is the outermost layer of a built stack."""
        self.serial = serial
        """The lock a call outside our runtime (a bridged framework's) holds while its
        handlers run, so the handlers of one run never overlap."""

    async def wrap(
        self, ctx: PreToolCallContext, call_next: Callable[[Any], Awaitable[Any]]
    ) -> ToolOutcome:
        bus = self.bus
        flight: Flight | None = ctx.__dict__.get(FLIGHT)
        outcome = flight.outcome if flight is not None else None
        if outcome is None and "pre_tool_call" in bus.listened:
            if flight is None and self.serial is not None:
                async with self.serial:
                    deny = await bus.dispatch("pre_tool_call", ctx, _revalidate)
            else:
                deny = await bus.dispatch("pre_tool_call", ctx, _revalidate)
            outcome = self.before(ctx, deny)
        batch = flight.batch if flight is not None else None
        if batch is not None:
            if outcome is None and ctx.tool is not None and ctx.tool.handoff is not None:
                outcome = await batch.gate(flight)  # type: ignore[arg-type]
            if batch.order is not None:
                batch.order.leave_before(flight.index)  # type: ignore[union-attr]
                await batch.order.enter_call(flight.index)  # type: ignore[union-attr]
        if outcome is None:
            if (
                call_next is endpoint
                and flight is not None
                and ctx.call is flight.call
                and ctx.tool is flight.tool
                and flight.run.journal is None
            ):  # what ``endpoint`` would do, one coroutine fewer
                outcome = await settle(ctx.call, start, flight)
            else:
                outcome = await settle(ctx.call, call_next, ctx)
        if batch is not None and batch.order is not None:
            await batch.order.enter_after(flight.index)  # type: ignore[union-attr]
        if (
            outcome.asked is None
            and ("on_tool_call_error" if outcome.error is not None else "on_tool_call_result")
            in bus.listened
        ):
            serial = flight.run.serial if flight is not None else self.serial
            if serial is None:
                outcome = await self.after(ctx, outcome)
            else:
                async with serial:
                    outcome = await self.after(ctx, outcome)
        return outcome

    def before(self, ctx: PreToolCallContext, deny: Deny | Ask | None) -> ToolOutcome | None:
        """What ``pre_tool_call`` decided (its handlers returned ``deny``): None to execute
        the (possibly changed) call, else the outcome of a deny, a short-circuit or arguments
        that no longer validate."""
        call = ctx.call
        if deny is not None:
            if type(deny) is Ask:
                return asked(call, deny, ctx.parent_run_id is not None)
            return ToolOutcome(call, error=deny.text(call.name), source="denied", denied=True)
        if ctx.short_circuit == "result":
            return ToolOutcome(call, result=ctx.result, short_circuit=True)
        if ctx.short_circuit == "error":
            return ToolOutcome(call, error=ctx.error, source="denied", short_circuit=True)
        if ctx.error is not None and ctx.short_circuit is None:  # the rewrite did not validate
            return ToolOutcome(call, error=ctx.error, source="validation")
        return None

    async def after(self, ctx: PreToolCallContext, outcome: ToolOutcome) -> ToolOutcome:
        """``on_tool_call_error`` for an error (a recovery then goes on as a result), and
        ``on_tool_call_result`` for a result (a deny there turns it into an error)."""
        bus = self.bus
        flight: Flight | None = ctx.__dict__.get(FLIGHT)
        base = common(ctx) if flight is None else flight.run._base or flight.run.base()
        if outcome.error is not None:
            ectx = trusted_model(
                ToolCallErrorContext,
                dict(
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
                ),
            )
            await bus.dispatch("on_tool_call_error", ectx)
            outcome.terminate = ectx.terminate
            if not ectx.recovered:
                outcome.error = ectx.error if ectx.error is not None else outcome.error
                return outcome
            outcome.error, outcome.source, outcome.result = None, None, ectx.result
            if "on_tool_call_result" not in bus.listened:
                return outcome
        rctx = trusted_model(
            ToolCallResultContext,
            dict(
                base,
                call=outcome.call,
                tool=ctx.tool,
                tool_call_id=ctx.tool_call_id,
                scope=ctx.scope,
                result=outcome.result,
                duration=outcome.duration,
                terminate=outcome.terminate,
            ),
        )
        deny = await bus.dispatch("on_tool_call_result", rctx)
        if deny is not None:
            outcome.result, outcome.error, outcome.source = None, deny.text(ctx.call.name), "denied"
            outcome.denied = True
            return outcome
        if rctx.result is not outcome.result:
            outcome.result, outcome.text = rctx.result, None
        outcome.terminate = rctx.terminate
        return outcome


def _revalidate(ctx: Any) -> bool:
    """Between the ordinary handlers and the guards of ``pre_tool_call``: arguments an ordinary
    handler changed are validated again, so guards judge the values the tool will get. True
    stops the chain there (the changed arguments do not validate)."""
    flight: Flight | None = ctx.__dict__.get(FLIGHT)
    tool = ctx.tool
    if (
        ctx.short_circuit is not None
        or tool is None
        or (flight is not None and ctx.call is flight.call)
    ):
        return False
    call = ctx.call
    try:
        arguments = tool.validate(call.arguments)
    except ToolValidationError as exc:
        ctx.__dict__["error"] = exc
        return True
    ctx.__dict__["call"] = build(ToolCall, id=call.id, name=call.name, arguments=arguments)
    if flight is not None:
        flight.call, flight.arguments = ctx.__dict__["call"], arguments
    return False


async def settle(call: ToolCall, invoke: Callable[[Any], Any], arg: Any) -> ToolOutcome:
    """``invoke(arg)`` (a result or an awaitable of one) as the call's outcome: a result, or
    the exception as an error the model reads, except one that ends the run."""
    started = time.perf_counter()
    try:
        result = invoke(arg)
        if type(result) not in _PLAIN and isawaitable(result):
            result = await result
    except Exception as exc:
        if ends_run(exc):
            raise
        return ToolOutcome(
            call, error=exc, source="handler", duration=time.perf_counter() - started
        )
    outcome = ToolOutcome(call, result=result, duration=time.perf_counter() - started)
    render(outcome)  # a result that cannot be written down fails here, where hooks see it
    return outcome


def render(outcome: ToolOutcome) -> None:
    """Write the result down now (a result that cannot be is an error for its call)."""
    result = outcome.result
    kind = type(result)
    try:
        outcome.text = (
            result if kind is str else str(result) if kind is int else serialize_result(result)
        )
    except Exception as exc:
        outcome.error, outcome.source, outcome.result = exc, "handler", None


async def endpoint(ctx: PreToolCallContext) -> Any:
    """The innermost call: the tool with the call as the hooks and middleware left it."""
    flight: Flight = ctx.__dict__[FLIGHT]
    call, tool = ctx.call, ctx.tool or flight.tool
    if call is not flight.call:  # a middleware passed on a changed call
        flight.call = call
        flight.arguments = tool.validate(call.arguments)  # type: ignore[union-attr]
    if tool is not flight.tool:
        flight.tool = tool
    if flight.run.journal is not None:
        await flight.run.journal.starting(flight.run, call)
    result = start(flight)
    return await result if type(result) not in _PLAIN and isawaitable(result) else result


def start(flight: Flight) -> Any:
    """Start the tool of ``flight``: an inline sync tool's result at once, else an awaitable
    of the result."""
    tool, run, call = flight.tool, flight.run, flight.call
    assert tool is not None and flight.arguments is not None
    context = None
    if tool.context_param is not None:
        context = ToolContext(
            call=call,
            agent=run.agent.name,
            run_id=run.run_id,
            branch=run.branch,
            memory=run.memory,
            session_id=run.session.id if run.session is not None else None,
            run=run,
        )
    if tool.inline and not tool.is_async:
        return tool.call_inline(flight.arguments, context)
    if tool.is_async and context is None and type(tool) is Tool:
        return tool.fn(**flight.arguments)  # what ``invoke`` does, one coroutine fewer
    return tool.invoke(flight.arguments, context)


def trusted_model(cls: type[M], data: dict[str, Any]) -> M:
    """A trusted model holding ``data`` (every field given), built without validation: the
    path of every tool call builds three or four of these, here rather than in
    ``_construct`` so that path crosses fewer modules."""
    obj = _new(cls)
    set_dict(obj, data)
    fields = EVERY_FIELD.get(cls) or every_field(cls)
    set_fields(obj, fields if len(data) == len(fields) else set(data))
    set_extra(obj, None)
    set_private(obj, None)
    return obj


__all__ = ["ToolHooks", "endpoint", "render", "settle", "start", "trusted_model"]
