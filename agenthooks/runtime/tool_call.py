"""The one path of a tool call: every call the model makes goes through ``tool_call``.

hook layer (``pre_tool_call`` → call → ``on_tool_call_error`` on failure →
``on_tool_call_result``) → the bus's middleware → the agent's middleware → the tool; then the
call's one tool message, committed here whatever happened inside. A batch (``batch.py``)
decides only the order and the concurrency of its calls; with parallel calls a ``BatchOrder``
makes every call's ``pre_tool_call`` run first, in source order, and the after-events and tool
messages follow in source order.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from inspect import isawaitable
from typing import TYPE_CHECKING, Any, TypeVar

import structlog
from pydantic import BaseModel, ValidationError

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
from ..decisions import ASK_ANSWERED, Ask
from ..errors import (
    AgentHooksError,
    DisabledToolError,
    ToolValidationError,
    UnknownToolError,
    ends_run,
)
from ..events.contexts import (
    MessageContext,
    PreToolCallContext,
    ToolCallErrorContext,
    ToolCallResultContext,
)
from ..messages import ChatMessage, PendingCall, ToolCall
from ..tools import Tool, ToolContext, serialize_result
from .run import COMMON as _COMMON
from .run import Run
from .streaming import ToolCallEnd, ToolCallStart

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from .batch import Batch

log = structlog.get_logger("agenthooks")
M = TypeVar("M", bound=BaseModel)
_new = object.__new__
_PLAIN = frozenset({str, int, float, bool, type(None), dict, list, tuple})
FLIGHT = "_flight"
"""Where a call's context keeps its ``Flight`` (not a field: hooks never see it)."""


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
    text: str | None = None
    """The result as the tool message will carry it, once written down."""

    def render(self) -> None:
        """Write the result down now (a result that cannot be is an error for its call)."""
        result = self.result
        kind = type(result)
        try:
            self.text = (
                result if kind is str else str(result) if kind is int else serialize_result(result)
            )
        except Exception as exc:
            self.error, self.source, self.result = exc, "handler", None

    asked: str | None = None
    """An ``Ask``'s reason: the call waits for a human (no tool message, the run pauses)."""

    @property
    def is_error(self) -> bool:
        return self.error is not None

    def error_text(self) -> str:
        """The error as the model reads it: a tool's own exception with its type
        (``FileNotFoundError: /tmp/a.txt``); agenthooks' own errors are worded for the model
        already."""
        err = self.error
        if isinstance(err, BaseException):
            text = str(err)
            if self.source == "handler" and not isinstance(err, AgentHooksError):
                return f"{type(err).__name__}: {text}" if text else type(err).__name__
            return text or type(err).__name__
        return str(err)


class Flight:
    """One call on its way: the tool, the validated arguments and any outcome decided before
    the hooks (unknown tool, disabled scope, invalid arguments), its batch and its place."""

    __slots__ = ("run", "call", "tool", "scope", "arguments", "outcome", "batch", "index")

    def __init__(self, run: Run, call: ToolCall, batch: Batch | None, index: int) -> None:
        self.run = run
        self.call = call
        self.tool: Tool[Any] | None = None
        self.scope: Any = None
        self.arguments: dict[str, Any] | None = None
        self.outcome: ToolOutcome | None = None
        self.batch = batch
        self.index = index


async def tool_call(
    run: Run, call: ToolCall, batch: Batch | None = None, index: int = 0
) -> ToolOutcome:
    """Run ``call`` through the hook layer, the middleware and the tool, and commit its one
    tool message; returns the final outcome."""
    flight = Flight(run, call, batch, index)
    order = batch.order if batch is not None else None
    if order is not None:
        await order.enter_before(index)
    try:
        if run.sink is not None:
            await run.sink(ToolCallStart(call))
        resolve(flight)
        if batch is not None:
            batch.flights.append(flight)
        app = run.stacks.tool if batch is None else batch.app
        if app is None:  # nothing wraps the call: the tool itself
            if flight.outcome is None and batch is not None and flight.tool.handoff is not None:  # type: ignore[union-attr]
                flight.outcome = await batch.gate(flight)
            if order is not None:
                order.leave_before(index)
                await order.enter_call(index)
            if flight.outcome is None and run.journal is not None:
                await run.journal.starting(run, flight.call)
            outcome = flight.outcome or await settle(flight.call, start, flight)
        else:
            ctx = _model(
                PreToolCallContext,
                {
                    **(run._base or run.base()),
                    "short_circuit": None,
                    "call": flight.call,
                    "tool": flight.tool,
                    "tool_call_id": call.id,
                    "scope": flight.scope,
                    "result": None,
                    "error": None,
                },
            )
            ctx.__dict__[FLIGHT] = flight
            if run.answered and call.id in run.answered:
                ctx.__dict__[ASK_ANSWERED] = True
            outcome = await app(ctx)
        flight.outcome = outcome
        if order is not None:
            await order.enter_after(index)
        if outcome.asked is None:
            await _commit(run, flight.call, outcome)
            if run.journal is not None:
                await run.journal.committed(run, flight.call)
        else:  # no tool message: the call waits for a human, the run pauses after the batch
            run.pending.append(
                PendingCall(
                    call_id=call.id,
                    tool=call.name,
                    arguments=dict(flight.call.arguments),
                    reason=outcome.asked,
                )
            )
    finally:
        if order is not None:
            order.leave_after(index)  # whatever happened, the calls after this one go on
    return outcome


def resolve(flight: Flight) -> None:
    """Find the tool and validate the arguments; an unknown tool, a disabled scope or invalid
    arguments set the outcome (the hooks' before-phase is skipped for them). The call the
    hooks see carries the validated arguments: the values the tool will get."""
    call, run = flight.call, flight.run
    scopes = run.agent.scopes
    found = scopes.index.get(call.name)
    if found is None or found[1].tools.get(call.name) is not found[0]:
        found = scopes.lookup(call.name)
    if found is None:
        offered = ", ".join(run.agent.scopes.names()) or "none"
        error: Exception = UnknownToolError(f'unknown tool "{call.name}"; the tools are: {offered}')
        flight.outcome = ToolOutcome(call, error=error, source="unknown_tool")
        return
    flight.tool, flight.scope = found
    if not flight.scope.enabled:
        error = DisabledToolError(f'tool "{call.name}" is disabled (scope "{flight.scope.name}")')
        flight.outcome = ToolOutcome(call, error=error, source="disabled")
        return
    if call.raw_arguments is not None:
        error = ToolValidationError(
            f"invalid arguments for tool {call.name!r}: not a JSON object: "
            f"{_clip(call.raw_arguments)}"
        )
        flight.outcome = ToolOutcome(call, error=error, source="validation")
        return
    tool = flight.tool
    try:
        if type(tool) is Tool:  # the validator itself (Tool.validate words a failure)
            arguments = dict(
                tool.args_model.__pydantic_validator__.validate_python(call.arguments).__dict__
            )
        else:  # a tool that validates its own way (an MCP tool's schema, say)
            arguments = tool.validate(call.arguments)
    except (ValidationError, ToolValidationError):
        try:
            tool.validate(call.arguments)
        except ToolValidationError as exc:
            flight.outcome = ToolOutcome(call, error=exc, source="validation")
            return
        raise
    flight.arguments = arguments
    if _coerced(call.arguments, arguments):
        flight.call = build(ToolCall, id=call.id, name=call.name, arguments=arguments)


def _coerced(given: dict[str, Any], validated: dict[str, Any]) -> bool:
    """True when validation changed an argument (``"yes"`` → ``True``; ``1`` → ``True``
    compares equal, so the types are compared too) or added a default."""
    if len(given) != len(validated):
        return True
    for key, value in validated.items():
        if key not in given:
            return True
        raw = given[key]
        if type(raw) is not type(value) or raw != value:
            return True
    return False


def _clip(text: str, limit: int = 200) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "...")


class ToolHooks:
    """The hook layer of the tool call: outermost, it translates between the hooks' return
    keys and the middleware's values (``{"result": v}`` from ``pre_tool_call`` is a ``before``
    returning ``v``; ``{"result": v}`` from ``on_tool_call_error`` an ``on_error`` returning
    ``v``; a ``Deny`` or ``{"error": e}`` an error outcome the model reads), and returns the
    call's ``ToolOutcome``."""

    __slots__ = ("bus", "inner")

    def __init__(self, bus: HookBus, inner: Callable[[Any], Awaitable[Any]] | None = None) -> None:
        self.bus = bus
        self.inner = inner
        """What this layer wraps when it is the outermost layer of a built stack."""

    def __call__(self, ctx: PreToolCallContext) -> Awaitable[ToolOutcome]:
        """The built stack's entry: ``wrap`` around the inner layers."""
        return self.wrap(ctx, self.inner)  # type: ignore[arg-type]

    async def wrap(
        self, ctx: PreToolCallContext, call_next: Callable[[Any], Awaitable[Any]]
    ) -> ToolOutcome:
        bus = self.bus
        flight: Flight | None = ctx.__dict__.get(FLIGHT)
        outcome = flight.outcome if flight is not None else None
        if outcome is None and "pre_tool_call" in bus.listened:
            outcome = await self.before(ctx)
        batch = flight.batch if flight is not None else None
        if batch is not None:
            if outcome is None and ctx.tool is not None and ctx.tool.handoff is not None:
                outcome = await batch.gate(flight)  # type: ignore[arg-type]
            if batch.order is not None:
                batch.order.leave_before(flight.index)  # type: ignore[union-attr]
                await batch.order.enter_call(flight.index)  # type: ignore[union-attr]
        if outcome is None:
            outcome = await settle(ctx.call, call_next, ctx)
        if batch is not None and batch.order is not None:
            await batch.order.enter_after(flight.index)  # type: ignore[union-attr]
        if (
            outcome.asked is None
            and ("on_tool_call_error" if outcome.error is not None else "on_tool_call_result")
            in bus.listened
        ):
            serial = flight.run.serial if flight is not None else None
            if serial is None:
                outcome = await self.after(ctx, outcome)
            else:
                async with serial:
                    outcome = await self.after(ctx, outcome)
        return outcome

    async def before(self, ctx: PreToolCallContext) -> ToolOutcome | None:
        """``pre_tool_call``: None to execute the (possibly changed) call, else the outcome of
        a deny, a short-circuit or arguments that no longer validate."""
        deny = await self.bus.dispatch("pre_tool_call", ctx, _revalidate)
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
        data = ctx.__dict__
        base = {k: data[k] for k in _COMMON}
        if outcome.error is not None:
            ectx = _model(
                ToolCallErrorContext,
                {
                    **base,
                    "call": outcome.call,
                    "tool": ctx.tool,
                    "tool_call_id": ctx.tool_call_id,
                    "scope": ctx.scope,
                    "error": outcome.error,
                    "source": outcome.source or "handler",
                    "result": None,
                    "recovered": False,
                    "duration": outcome.duration,
                    "terminate": False,
                },
            )
            await bus.dispatch("on_tool_call_error", ectx)
            outcome.terminate = ectx.terminate
            if not ectx.recovered:
                outcome.error = ectx.error if ectx.error is not None else outcome.error
                return outcome
            outcome.error, outcome.source, outcome.result = None, None, ectx.result
            if "on_tool_call_result" not in bus.listened:
                return outcome
        rctx = _model(
            ToolCallResultContext,
            {
                **base,
                "call": outcome.call,
                "tool": ctx.tool,
                "tool_call_id": ctx.tool_call_id,
                "scope": ctx.scope,
                "result": outcome.result,
                "duration": outcome.duration,
                "terminate": outcome.terminate,
            },
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


def asked(call: ToolCall, ask: Ask, in_subagent: bool) -> ToolOutcome:
    """The outcome of a call a hook asked about: it waits for a human, except in a
    sub-agent's run, which cannot pause (its parent's tool is running): there the ask is a
    deny with the same reason, which the sub-agent's model reads."""
    reason = ask.text(call.name)
    if in_subagent:
        log.warning("ask_in_subagent_denied", tool=call.name, tool_call_id=call.id)
        return ToolOutcome(call, error=reason, source="denied", denied=True)
    return ToolOutcome(call, asked=reason)


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
    outcome.render()  # a result that cannot be written down fails here, where hooks see it
    return outcome


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
    return tool.invoke(flight.arguments, context)


def _commit(run: Run, call: ToolCall, outcome: ToolOutcome) -> Awaitable[Any]:
    """The call's one tool message; await the result for its ``on_message`` (and its
    ``ToolCallEnd`` for a stream)."""
    if outcome.error is None and outcome.text is None:
        outcome.render()
    result = outcome.result
    is_error = outcome.error is not None
    text = outcome.error_text() if is_error else outcome.text
    message = _model(
        ChatMessage,
        {
            "role": "tool",
            "content": text,
            "tool_calls": [],
            "tool_call_id": call.id,
            "is_error": is_error,
            "name": call.name,
            "thinking_blocks": [],
        },
    )
    # Run.append for a tool message, here on the path of every call
    run.history.append(message)
    run.messages.append(message)
    run.new_messages.append(message)
    run.open_calls.pop(call.id, None)
    if run.sink is None:
        return run.fire("on_message", MessageContext, message=message)
    end = ToolCallEnd(call, error=text) if is_error else ToolCallEnd(call, result=result)
    return _then_send(run, run.fire("on_message", MessageContext, message=message), end)


async def _then_send(run: Run, first: Awaitable[Any], end: ToolCallEnd) -> None:
    await first
    await run.sink(end)  # type: ignore[misc]


def _model(cls: type[M], data: dict[str, Any]) -> M:
    """A trusted model holding ``data`` (every field given), built without validation or a
    call out of this module: the path of every tool call builds three or four of these."""
    obj = _new(cls)
    set_dict(obj, data)
    fields = EVERY_FIELD.get(cls) or every_field(cls)
    set_fields(obj, fields if len(data) == len(fields) else set(data))
    set_extra(obj, None)
    set_private(obj, None)
    return obj


__all__ = [
    "FLIGHT",
    "Flight",
    "ToolHooks",
    "ToolOutcome",
    "asked",
    "endpoint",
    "resolve",
    "settle",
    "start",
    "tool_call",
]
