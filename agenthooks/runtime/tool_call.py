"""The one path of a tool call: every call the model makes goes through ``tool_call``.

The call is resolved here (its tool found, its arguments validated), then goes through the
built stack: the hook layer (``tool_hooks.py``) → the bus's middleware → the agent's
middleware → the tool; then its one tool message is committed here, whatever happened inside. A batch (``batch.py``)
decides only the order and the concurrency of its calls; with parallel calls a ``BatchOrder``
makes every call's ``pre_tool_call`` run first, in source order, and the after-events and tool
messages follow in source order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from .._construct import build
from ..decisions import ASK_ANSWERED
from ..errors import (
    DisabledToolError,
    ToolValidationError,
    TruncatedCallError,
    UnknownToolError,
)
from ..events.contexts import PreToolCallContext
from ..messages import ChatMessage, PendingCall, ToolCall
from ..tools import Tool
from .run import Run
from .streaming import ToolCallEnd, ToolCallStart
from .tool_hooks import render, settle, start, trusted_model
from .tool_outcome import FLIGHT, Flight, ToolOutcome

if TYPE_CHECKING:
    from collections.abc import Awaitable

    from .batch import Batch


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
            ctx = trusted_model(
                PreToolCallContext,
                dict(
                    run._base or run.base(),
                    short_circuit=None,
                    call=flight.call,
                    tool=flight.tool,
                    tool_call_id=call.id,
                    scope=flight.scope,
                    result=None,
                    error=None,
                ),
            )
            ctx.__dict__[FLIGHT] = flight
            if run.answered and call.id in run.answered:
                ctx.__dict__[ASK_ANSWERED] = True
            outcome = await app.wrap(ctx, app.inner)  # type: ignore[arg-type]
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
    if (
        type(tool) is Tool
        and tool.exact_types is not None
        and _exact(call.arguments, tool.exact_types)
    ):
        flight.arguments = call.arguments  # read only: a tool gets its own keywords
        return
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


def _exact(given: dict[str, Any], types: dict[str, type]) -> bool:
    """True when ``given`` holds every parameter, each of exactly its plain type."""
    if len(given) != len(types):
        return False
    for key, kind in types.items():  # noqa: SIM110 (no generator on every call's path)
        if type(given.get(key)) is not kind:
            return False
    return True


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


def _commit(run: Run, call: ToolCall, outcome: ToolOutcome) -> Awaitable[Any]:
    """The call's one tool message; await the result for its ``on_message`` (and its
    ``ToolCallEnd`` for a stream)."""
    if outcome.error is None and outcome.text is None:
        render(outcome)
    result = outcome.result
    is_error = outcome.error is not None
    text = outcome.error_text() if is_error else outcome.text
    message = trusted_model(
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
        return run.message_event(message)
    end = ToolCallEnd(call, error=text) if is_error else ToolCallEnd(call, result=result)
    return _then_send(run, run.message_event(message), end)


async def _then_send(run: Run, first: Awaitable[Any], end: ToolCallEnd) -> None:
    await first
    await run.sink(end)  # type: ignore[misc]


__all__ = ["tool_call"]
