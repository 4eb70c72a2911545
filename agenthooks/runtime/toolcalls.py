"""Running the tool calls of one assistant message: every call gets exactly one tool message.

Sequential: per call ``pre_tool_call`` → execute → after-event → its tool message. Parallel:
every ``pre_tool_call`` in source order, then the calls concurrently, then per call in source
order its after-event and tool message. Hooks of one batch never overlap.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

from .._construct import context
from ..errors import DisabledToolError, ToolValidationError, UnknownToolError, ends_run
from ..events.contexts import HandoffContext, PreAgentContext, PreToolCallContext, SubagentContext
from ..layers import TOOL_EVENTS, ToolOutcome, tool_after, tool_before, tool_execute
from ..messages import ToolCall
from ..middleware import Stack
from ..tools import Tool, ToolContext, is_awaitable, serialize_result
from .run import Run, tool_message
from .streaming import ToolCallEnd, ToolCallStart

_NO_STACK = Stack()

if TYPE_CHECKING:
    from ..decisions import Deny
    from .agent import Agent


class _Call:
    """One call in flight: its tool, validated arguments and hook context."""

    __slots__ = ("call", "tool", "scope", "arguments", "ctx", "outcome")

    def __init__(self, call: ToolCall) -> None:
        self.call = call
        self.tool: Tool[Any] | None = None
        self.scope: Any = None
        self.arguments: dict[str, Any] | None = None
        self.ctx: PreToolCallContext | None = None
        self.outcome: ToolOutcome | None = None


async def run_tool_calls(run: Run, calls: list[ToolCall]) -> bool:
    """Run ``calls`` and write their tool messages; True when every call (at least one) asked
    to end the run (``terminate``)."""
    bus = run.bus
    agent = run.agent
    hot = (
        not TOOL_EVENTS.isdisjoint(bus.listened)
        or bool(bus.tool_stack)
        or bool(agent.tool_middleware)
    )
    if agent.parallel_tool_calls and len(calls) > 1:
        flights: list[_Call] = []
        for call in calls:
            flights.append(await _prepare(run, call, hot, _claimed(flights)))
        pending = [f for f in flights if f.outcome is None]
        results = await _gather(*(_execute(run, f, hot) for f in pending))
        for flight, outcome in zip(pending, results):
            flight.outcome = outcome
        outcomes = [await _finish(run, flight, hot) for flight in flights]
    elif hot or run.sink is not None:
        outcomes = []
        flights = []
        for call in calls:
            flight = await _prepare(run, call, hot, _claimed(flights))
            if flight.outcome is None:
                flight.outcome = await _execute(run, flight, hot)
            outcomes.append(await _finish(run, flight, hot))
            flights.append(flight)
    else:  # no hook layer, no stream: each tool runs bare and writes its message at once
        outcomes = []  # (nothing but a hook can ask to terminate)
        flights = []
        for call in calls:
            flight = _resolve(run, call)
            tool = flight.tool
            if flight.outcome is None and tool is not None and tool.handoff is not None:
                flight.outcome = await _handoff_refused(run, call, tool.handoff, _claimed(flights))
            if flight.outcome is None:
                assert tool is not None and flight.arguments is not None
                try:
                    result = _start(run, tool, call, flight.arguments)
                    if is_awaitable(result):
                        result = await result
                except Exception as exc:
                    if ends_run(exc):
                        raise
                    flight.outcome = ToolOutcome(call, error=exc, source="handler")
                else:
                    message = tool_message(call, serialize_result(result))
            if flight.outcome is not None:
                message = tool_message(call, flight.outcome.error_text(), is_error=True)
            run.append(message)
            if "on_message" in bus.listened:
                await run.message_event(message)
            flights.append(flight)
    # the batch's first allowed handoff, once every call has its tool message: the calls of
    # one assistant message belong to the agent that made them
    target = _claimed(flights)
    if target is not None:
        await _hand_over(run, target)
    return bool(outcomes) and all(o.terminate for o in outcomes)


async def _gather(*calls: Awaitable[ToolOutcome]) -> list[ToolOutcome]:
    """Run ``calls`` concurrently; when one ends the run, cancel the others first."""
    tasks = [asyncio.ensure_future(c) for c in calls]
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


async def _prepare(run: Run, call: ToolCall, hot: bool, claimed: Agent | None) -> _Call:
    """Find and validate the tool, then ``pre_tool_call``; sets ``outcome`` when the call
    must not execute (unknown, disabled, invalid, denied, short-circuited, handoff refused;
    ``claimed`` is the agent an earlier call of the batch already hands over to)."""
    if run.sink is not None:
        await run.sink(ToolCallStart(call))
    flight = _resolve(run, call)
    if hot:
        if flight.arguments is not None and _coerced(call.arguments, flight.arguments):
            # hooks judge the arguments the tool will get: validated and coerced
            flight.call = call = call.model_copy(update={"arguments": flight.arguments})
        flight.ctx = context(
            PreToolCallContext,
            run.base(),
            call=call,
            tool=flight.tool,
            tool_call_id=call.id,
            scope=flight.scope,
            result=None,
            error=None,
            short_circuit=None,
        )
        if flight.outcome is None and "pre_tool_call" in run.bus.listened:
            flight.outcome = await tool_before(run.bus, flight.ctx)
    if flight.outcome is None and flight.tool is not None and flight.tool.handoff is not None:
        flight.outcome = await _handoff_refused(run, call, flight.tool.handoff, claimed)
    return flight


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


def _resolve(run: Run, call: ToolCall) -> _Call:
    """The call with its tool and validated arguments, or the outcome of an unknown tool, a
    disabled scope or invalid arguments."""
    flight = _Call(call)
    found = run.agent.scopes.lookup(call.name)
    if found is None:
        offered = ", ".join(run.agent.scopes.names()) or "none"
        flight.outcome = ToolOutcome(
            call,
            error=UnknownToolError(f'unknown tool "{call.name}"; the tools are: {offered}'),
            source="unknown_tool",
        )
    else:
        flight.tool, flight.scope = found
        if not flight.scope.enabled:
            flight.outcome = ToolOutcome(
                call,
                error=DisabledToolError(
                    f'tool "{call.name}" is disabled (scope "{flight.scope.name}")'
                ),
                source="disabled",
            )
        else:
            try:
                flight.arguments = flight.tool.validate(call.arguments)
            except ToolValidationError as exc:
                flight.outcome = ToolOutcome(call, error=exc, source="validation")
    return flight


async def _handoff_refused(
    run: Run, call: ToolCall, target: Agent, claimed: Agent | None
) -> ToolOutcome | None:
    """The outcome of a handoff call that must not execute (another call of the batch hands
    over already, or a gate refused it), else None."""
    if claimed is not None:
        return ToolOutcome(
            call,
            error=(
                f"handoff to {target.name} ignored: this turn already hands the conversation "
                f"to {claimed.name}"
            ),
            source="denied",
            denied=True,
        )
    deny = await _handoff_gate(run, target)
    if deny is not None:
        return ToolOutcome(call, error=deny.text(call.name), source="denied", denied=True)
    return None


async def _execute(run: Run, flight: _Call, hot: bool) -> ToolOutcome:
    """The tool stack (when there is a hook layer) around the tool itself."""

    async def endpoint(ctx: PreToolCallContext | None) -> Any:
        call = flight.call if ctx is None else ctx.call
        tool = flight.tool if ctx is None or ctx.tool is None else ctx.tool
        assert tool is not None
        if call is flight.call and flight.arguments is not None:
            arguments = flight.arguments
        else:  # a middleware passed on a changed call
            arguments = tool.validate(call.arguments)
        result = _start(run, tool, call, arguments)
        return await result if is_awaitable(result) else result

    stack = run.bus.tool_stack + run.agent.tool_middleware if hot else _NO_STACK
    call = flight.call if flight.ctx is None else flight.ctx.call  # as pre_tool_call left it
    return await tool_execute(call, flight.ctx, endpoint, stack)


def _start(run: Run, tool: Tool[Any], call: ToolCall, arguments: dict[str, Any]) -> Any:
    """Start one call: an inline sync tool's result at once (no coroutine), else an
    awaitable of the result."""
    if _inline(tool):
        return tool.call_inline(arguments, _tool_context(run, tool, call))
    return _invoke(run, tool, call, arguments)


async def _invoke(run: Run, tool: Tool[Any], call: ToolCall, arguments: dict[str, Any]) -> Any:
    if tool.subagent is not None:
        return await delegate(run, tool.subagent, str(arguments.get("task", "")), call.id)
    if tool.handoff is not None:
        return f"Transferred to {tool.handoff.name}."
    return await tool.invoke(arguments, _tool_context(run, tool, call))


def _inline(tool: Tool[Any]) -> bool:
    """True for a sync function the tool runs on the loop (``Tool.call_inline``)."""
    return tool.inline and not tool.is_async and tool.subagent is None and tool.handoff is None


def _tool_context(run: Run, tool: Tool[Any], call: ToolCall) -> ToolContext | None:
    """What a tool with a ``ToolContext`` parameter receives (None for the others)."""
    if tool.context_param is None:
        return None
    return ToolContext(
        call=call,
        agent=run.agent.name,
        run_id=run.run_id,
        branch=run.branch,
        memory=run.memory,
        session_id=run.session.id if run.session is not None else None,
    )


async def _finish(run: Run, flight: _Call, hot: bool) -> ToolOutcome:
    """The after-event, then the call's one tool message."""
    outcome = flight.outcome
    assert outcome is not None
    if (
        hot
        and flight.ctx is not None
        and ("on_tool_call_error" if outcome.error is not None else "on_tool_call_result")
        in run.bus.listened
    ):
        outcome = await tool_after(run.bus, flight.ctx, outcome)
    if outcome.error is not None:
        text = outcome.error_text()
        message = tool_message(flight.call, text, is_error=True)
        end: ToolCallEnd | None = ToolCallEnd(flight.call, error=text) if run.sink else None
    else:
        message = tool_message(flight.call, serialize_result(outcome.result))
        end = ToolCallEnd(flight.call, result=outcome.result) if run.sink else None
    await run.commit(message)
    if end is not None and run.sink is not None:
        await run.sink(end)
    flight.outcome = outcome
    return outcome


async def _handoff_gate(run: Run, target: Agent) -> Deny | None:
    """``pre_handoff``, then ``pre_agent`` on the target: either may keep the current agent.
    The target's own guards judge both, beside the run's."""
    bus = run.bus
    if target.has_own_bus and target.bus is not bus:
        bus = bus.with_guards_of(target.bus)
    if "pre_handoff" in bus.listened:
        ctx = context(
            HandoffContext,
            run.base(),
            from_agent=run.agent.name,
            to_agent=target.name,
            short_circuit=None,
        )
        deny = await bus.run("pre_handoff", ctx)
        if deny is not None:
            return deny
    if "pre_agent" in bus.listened:
        base = run.base() | {"agent": target.name, "branch": run.branch_of(target)}
        actx = context(PreAgentContext, base, input=run.input, response=None, short_circuit=None)
        return await bus.run("pre_agent", actx)
    return None


def _claimed(flights: list[_Call]) -> Agent | None:
    """The target of the first handoff of the batch that passed its gates, if any."""
    for flight in flights:
        tool, outcome = flight.tool, flight.outcome
        if (
            tool is not None
            and tool.handoff is not None
            and (outcome is None or outcome.error is None)
        ):
            return tool.handoff  # type: ignore[no-any-return]
    return None


async def _hand_over(run: Run, target: Agent) -> None:
    source = run.agent.name
    run.switch_to(target)
    if "on_handoff" in run.bus.listened:
        await run.bus.emit(
            "on_handoff",
            context(
                HandoffContext,
                run.base(),
                from_agent=source,
                to_agent=target.name,
                short_circuit=None,
            ),
        )


async def delegate(run: Run, sub: Agent, task: str, tool_call_id: str | None = None) -> str:
    """Run ``sub`` as a tool of ``run``: a run of its own that starts from ``task`` alone;
    ``tool_call_id`` (the delegating call) is carried by the sub-agent events."""
    from .runner import execute_run

    bus = run.bus
    if "on_subagent_start" in bus.listened:
        await bus.emit(
            "on_subagent_start",
            context(
                SubagentContext, run.base(), subagent=sub.name, task=task, tool_call_id=tool_call_id
            ),
        )
    child_bus = sub.bus.with_guards_of(bus) if sub.has_own_bus else bus
    child = Run(sub, child_bus, [], parent=run, session=run.session, signal=run.signal)
    started = time.perf_counter()

    async def stopped(**outcome: Any) -> None:
        if "on_subagent_stop" in bus.listened:
            await bus.emit(
                "on_subagent_stop",
                context(
                    SubagentContext,
                    run.base(),
                    subagent=sub.name,
                    task=task,
                    tool_call_id=tool_call_id,
                    duration=time.perf_counter() - started,
                    **outcome,
                ),
            )

    try:
        response = await execute_run(child, task)
    except Exception as exc:
        await stopped(error=exc)
        raise
    await stopped(result=response.content)
    return response.content or ""


__all__ = ["delegate", "run_tool_calls"]
