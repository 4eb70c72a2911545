"""The one path of a tool call: every call the model makes goes through ``tool_call``.

The call is resolved here (its tool found, its arguments validated), then runs through the
built stack: the hook layer (``ToolHooks``: ``pre_tool_call`` → the middleware → the tool →
``on_tool_call_error`` on failure → ``on_tool_call_result``) → the bus's middleware → the
agent's middleware → the tool (``endpoint``). When nobody listens and nothing wraps the call,
the tool runs at once. Either way the call's one tool message is committed here from its
``ToolOutcome``, whatever happened inside, or none when the call waits for a human.

A batch (``tool_batch.py``) decides only the order and the concurrency of its calls; with
parallel calls a ``BatchOrder`` makes every call's ``pre_tool_call`` run first, in source
order, and the after-events and tool messages follow in source order. Bridges
(``agenthooks.bridges``) run their frameworks' tool calls through the same ``ToolHooks``.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from inspect import isawaitable
from typing import TYPE_CHECKING, Any

import structlog

from ..bus import HookBus
from ..decisions import Ask, Deny
from ..errors import (
    AgentHooksError,
    DisabledToolError,
    ToolValidationError,
    TruncatedCallError,
    UnknownToolError,
    ends_run,
)
from ..events.contexts import PreToolCallContext, ToolCallErrorContext, ToolCallResultContext
from ..messages import ChatMessage, PendingCall, ToolCall
from ..tools import Tool, ToolContext, serialize_result
from .run_state import Run, common
from .streaming import ToolCallEnd, ToolCallStart

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from .tool_batch import Batch

log = structlog.get_logger("agenthooks")


# --- what a call carries and what it ends with ---------------------------------------------


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
    asked: str | None = None
    """An ``Ask``'s reason: the call waits for a human (no tool message, the run pauses)."""

    @property
    def is_error(self) -> bool:
        """True when the call ended with an error the model reads."""
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


@dataclass(slots=True)
class Flight:
    """One call on its way: the tool, the validated arguments and any outcome decided before
    the hooks (unknown tool, disabled scope, invalid arguments), its batch and its place."""

    run: Run
    call: ToolCall
    batch: Batch | None
    index: int
    tool: Tool[Any] | None = None
    scope: Any = None
    arguments: dict[str, Any] | None = None
    outcome: ToolOutcome | None = None

    async def take_turn(self, outcome: ToolOutcome | None) -> ToolOutcome | None:
        """The call's turn in its batch, after its before-phase: a handoff passes the
        batch's gate (one handoff per batch), and with ordered parallel calls the next
        call's before-phase may start. Returns the outcome the call goes on with."""
        batch = self.batch
        if batch is None:
            return outcome
        if outcome is None and self.tool is not None and self.tool.handoff is not None:
            outcome = await batch.gate(self)
        if batch.order is not None:
            batch.order.leave_before(self.index)
            await batch.order.enter_call(self.index)
        return outcome

    async def wait_after(self) -> None:
        """Wait for the calls before this one in its batch to finish their after-phase
        (after-events and tool messages follow the source order)."""
        if self.batch is not None and self.batch.order is not None:
            await self.batch.order.enter_after(self.index)

    async def in_turn(
        self,
        outcome: ToolOutcome | None,
        call: ToolCall,
        invoke: Callable[[Any], Any],
        arg: Any,
    ) -> ToolOutcome:
        """The call between its before-phase and its after-phase, in its batch's order:
        ``invoke(arg)`` settled into the outcome of ``call``, unless ``outcome`` (what the
        call was decided to end with before it ran) is given."""
        outcome = await self.take_turn(outcome)
        if outcome is None:
            outcome = await settle(call, invoke, arg)
        await self.wait_after()
        return outcome

    def revalidate(self, ctx: Any) -> bool:
        """``pre_tool_call``'s check between its ordinary handlers and its guards, for this
        call (see ``_revalidate``)."""
        return _revalidate(ctx, self)


FLIGHTS: dict[tuple[str, str], Flight] = {}
"""(run id, tool call id) -> the call on its way through its stack, while it is: the innermost
call (``endpoint``) is given only the context, and finds the call's validated arguments here
(a context carries no state of ours)."""


def flight_of(ctx: Any) -> Flight | None:
    """The call on its way that ``ctx`` describes: ``None`` for a call outside our runtime
    (a bridged framework's)."""
    return FLIGHTS.get((ctx.run_id, ctx.tool_call_id))


def asked(call: ToolCall, ask: Ask, in_subagent: bool) -> ToolOutcome:
    """The outcome of a call a hook asked about: it waits for a human, except in a
    sub-agent's run, which cannot pause (its parent's tool is running): there the ask is a
    deny with the same reason, which the sub-agent's model reads."""
    reason = ask.text(call.name)
    if in_subagent:
        log.warning("ask_in_subagent_denied", tool=call.name, tool_call_id=call.id)
        return ToolOutcome(call, error=reason, source="denied", denied=True)
    return ToolOutcome(call, asked=reason)


# --- the path -------------------------------------------------------------------------------


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
        hooks = run.stacks.tool if batch is None else batch.app
        # nobody listens and nothing wraps the call: the tool itself, with no context and no
        # hook layer (this shortcut and the model call's save a 0-hook run 111k of its 444k
        # instructions: benchmarks/callgrind.py with the stacks always built)
        if hooks is None:
            outcome = await flight.in_turn(flight.outcome, flight.call, run_tool, flight)
        else:
            ctx = PreToolCallContext(
                **run.context_fields,
                short_circuit=None,
                call=flight.call,
                tool=flight.tool,
                tool_call_id=call.id,
                scope=flight.scope,
                result=None,
                error=None,
            )
            key = (run.run_id, call.id)
            FLIGHTS[key] = flight
            try:
                outcome = await hooks.wrap(
                    ctx,
                    hooks.inner,  # type: ignore[arg-type]
                    approved=call.id in run.answered,
                    flight=flight,
                )
            finally:
                FLIGHTS.pop(key, None)
        flight.outcome = outcome
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
    """Find the tool and validate the arguments; a call of a cut-off answer, an unknown tool,
    a disabled scope or invalid arguments set the outcome (the hooks' before-phase is skipped
    for them). The call the hooks see carries the validated arguments: the values the tool
    will get."""
    call, run = flight.call, flight.run
    if flight.batch is not None and flight.batch.cut_off:
        # the token limit cut the answer: any of its calls may be incomplete (arguments cut
        # short, or none sent at all and the tool's defaults would apply), so none runs
        error: Exception = TruncatedCallError(
            f"tool call {call.name!r} was not run: the response was cut off (token limit) "
            "before the call was complete"
        )
        flight.outcome = ToolOutcome(call, error=error, source="truncated")
        return
    scopes = run.agent.scopes
    found = scopes.index.get(call.name)
    if found is None or found[1].tools.get(call.name) is not found[0]:
        found = scopes.lookup(call.name)
    if found is None:
        offered = ", ".join(run.agent.scopes.names()) or "none"
        error = UnknownToolError(f'unknown tool "{call.name}"; the tools are: {offered}')
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
        arguments = tool.validate(call.arguments)
    except ToolValidationError as exc:
        flight.outcome = ToolOutcome(call, error=exc, source="validation")
        return
    flight.arguments = arguments
    if arguments is not call.arguments and _coerced(call.arguments, arguments):
        flight.call = ToolCall(id=call.id, name=call.name, arguments=arguments)


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


async def _commit(run: Run, call: ToolCall, outcome: ToolOutcome) -> None:
    """The call's one tool message (and its ``ToolCallEnd`` for a stream)."""
    if outcome.error is None and outcome.text is None:
        render(outcome)
    is_error = outcome.error is not None
    text = outcome.error_text() if is_error else outcome.text
    await run.commit(tool_message(call, text, is_error=is_error))
    if run.sink is not None:
        end = (
            ToolCallEnd(call, error=text) if is_error else ToolCallEnd(call, result=outcome.result)
        )
        await run.sink(end)


def tool_message(call: ToolCall, content: str | None, *, is_error: bool = False) -> ChatMessage:
    """The tool message answering ``call`` (every field given: it reports each as set)."""
    return ChatMessage(
        role="tool",
        content=content,
        tool_calls=[],
        tool_call_id=call.id,
        is_error=is_error,
        name=call.name,
        thinking_blocks=[],
    )


# --- the hook layer --------------------------------------------------------------------------


class ToolHooks:
    """The hook layer of the tool call: outermost, it translates between the hooks' return
    keys and the middleware's values (``{"result": v}`` from ``pre_tool_call`` is a ``before``
    returning ``v``; ``{"result": v}`` from ``on_tool_call_error`` an ``on_error`` returning
    ``v``; a ``Deny`` or ``{"error": e}`` an error outcome the model reads), and returns the
    call's ``ToolOutcome``.

    Args:
        bus: The bus whose handlers run.
        inner: What this layer wraps when it is the outermost layer of a built stack.
        serial: The lock a call outside our runtime (a bridged framework's) holds while its
            handlers run, so the handlers of one run never overlap.
    """

    __slots__ = ("bus", "inner", "serial")

    def __init__(
        self,
        bus: HookBus,
        inner: Callable[[Any], Awaitable[Any]] | None = None,
        serial: asyncio.Lock | None = None,
    ) -> None:
        self.bus = bus
        self.inner = inner
        self.serial = serial

    async def wrap(
        self,
        ctx: PreToolCallContext,
        call_next: Callable[[Any], Awaitable[Any]],
        *,
        approved: bool = False,
        flight: Flight | None = None,
    ) -> ToolOutcome:
        """Run the call ``ctx`` describes: its before-phase, ``call_next`` (the middleware and
        the tool), its after-phase; returns its outcome. ``approved``: a human approved the
        call at ``resume()`` (an ``Ask`` for it counts as ``None``). ``flight``: the call on
        its way in our runtime (``None`` for a bridged framework's call)."""
        bus = self.bus
        outcome = flight.outcome if flight is not None else None
        if outcome is None and "pre_tool_call" in bus.listened:
            if flight is None:
                if self.serial is None:
                    deny = await bus.dispatch("pre_tool_call", ctx, _revalidate, approved=approved)
                else:
                    async with self.serial:
                        deny = await bus.dispatch(
                            "pre_tool_call", ctx, _revalidate, approved=approved
                        )
            else:
                deny = await bus.dispatch(
                    "pre_tool_call", ctx, flight.revalidate, approved=approved
                )
            outcome = self.before(ctx, deny)
        if flight is not None:
            outcome = await flight.in_turn(outcome, ctx.call, call_next, ctx)
        elif outcome is None:
            outcome = await settle(ctx.call, call_next, ctx)
        if (
            outcome.asked is None
            and ("on_tool_call_error" if outcome.error is not None else "on_tool_call_result")
            in bus.listened
        ):
            serial = flight.run.serial if flight is not None else self.serial
            if serial is None:
                outcome = await self.after(ctx, outcome, flight)
            else:
                async with serial:
                    outcome = await self.after(ctx, outcome, flight)
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

    async def after(
        self, ctx: PreToolCallContext, outcome: ToolOutcome, flight: Flight | None = None
    ) -> ToolOutcome:
        """``on_tool_call_error`` for an error (a recovery then goes on as a result), and
        ``on_tool_call_result`` for a result (a deny there turns it into an error)."""
        bus = self.bus
        base = common(ctx) if flight is None else flight.run.context_fields
        if outcome.error is not None:
            ectx = ToolCallErrorContext(
                **base,
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
            await bus.dispatch("on_tool_call_error", ectx)
            outcome.terminate = ectx.terminate
            if not ectx.recovered:
                outcome.error = ectx.error if ectx.error is not None else outcome.error
                return outcome
            outcome.error, outcome.source, outcome.result = None, None, ectx.result
            if "on_tool_call_result" not in bus.listened:
                return outcome
        rctx = ToolCallResultContext(
            **base,
            call=outcome.call,
            tool=ctx.tool,
            tool_call_id=ctx.tool_call_id,
            scope=ctx.scope,
            result=outcome.result,
            duration=outcome.duration,
            terminate=outcome.terminate,
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


def _revalidate(ctx: Any, flight: Flight | None = None) -> bool:
    """Between the ordinary handlers and the guards of ``pre_tool_call``: arguments an ordinary
    handler changed are validated again, so guards judge the values the tool will get. True
    stops the chain there (the changed arguments do not validate). ``flight``: the call on
    its way in our runtime, which takes the validated arguments."""
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
        ctx.error = exc
        return True
    ctx.call = ToolCall(id=call.id, name=call.name, arguments=arguments)
    if flight is not None:
        flight.call, flight.arguments = ctx.call, arguments
    return False


async def settle(call: ToolCall, invoke: Callable[[Any], Any], arg: Any) -> ToolOutcome:
    """``invoke(arg)`` (a result or an awaitable of one) as the call's outcome: a result, or
    the exception as an error the model reads, except one that ends the run."""
    started = time.perf_counter()
    try:
        result = invoke(arg)
        if isawaitable(result):
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
    """Write the result down now, by ``serialize_result`` (a result that cannot be is an
    error for its call)."""
    try:
        outcome.text = serialize_result(outcome.result)
    except Exception as exc:
        outcome.error, outcome.source, outcome.result = exc, "handler", None


async def endpoint(ctx: PreToolCallContext) -> Any:
    """The innermost call: the tool with the call as the hooks and middleware left it."""
    flight = flight_of(ctx)
    assert flight is not None, "the tool endpoint runs a call of a live run"
    call, tool = ctx.call, ctx.tool or flight.tool
    if call is not flight.call:  # a middleware passed on a changed call
        flight.call = call
        flight.arguments = tool.validate(call.arguments)  # type: ignore[union-attr]
    flight.tool = tool
    return await run_tool(flight)


async def run_tool(flight: Flight) -> Any:
    """Run the tool of ``flight`` with its validated arguments (a stored run first notes that
    it starts) and return its result."""
    tool, run, call = flight.tool, flight.run, flight.call
    assert tool is not None and flight.arguments is not None
    if run.journal is not None:
        await run.journal.starting(run, call)
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
    return await tool.invoke(flight.arguments, context)


__all__ = [
    "FLIGHTS",
    "Flight",
    "ToolHooks",
    "ToolOutcome",
    "asked",
    "endpoint",
    "flight_of",
    "render",
    "run_tool",
    "settle",
    "tool_call",
    "tool_message",
]
