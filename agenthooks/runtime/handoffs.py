"""Handoffs: a ``transfer_to_<name>`` call passes the rest of the run to another agent.

``pre_handoff`` then the target's ``pre_agent`` may refuse it (the reason becomes the tool
message); one handoff per assistant message; the switch happens after the batch's tool
messages. The target's own guards join the run's bus, so no policy on the path is bypassed.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..bus import HookBus
from ..decisions import Ask, Deny
from ..events.contexts import (
    OnHandoffContext,
    PreAgentContext,
    PreHandoffContext,
)
from ..messages import ToolCall
from ..tools import Tool
from .run_state import Run
from .tool_call import Flight, ToolOutcome, asked

if TYPE_CHECKING:
    from .agent import Agent


def handoff_tool(agent: Agent) -> Tool[Any]:
    """``agent`` as a ``transfer_to_<name>`` tool of the agents that can hand over to it."""

    def transfer() -> str:
        return f"Transferred to {agent.name}."

    description = f"Hand the conversation over to {agent.name}" + (
        f": {agent.description}" if agent.description else "."
    )
    tool = Tool(transfer, name=f"transfer_to_{agent.name}", description=description, inline=True)
    tool.handoff = agent
    return tool


def claimed_handoff(flights: Iterable[Flight]) -> Agent | None:
    """The target of the first handoff among ``flights`` that passed its gates, if any."""
    for flight in flights:
        tool, outcome = flight.tool, flight.outcome
        if (
            tool is not None
            and tool.handoff is not None
            and (outcome is None or (outcome.error is None and outcome.asked is None))
        ):
            return tool.handoff  # type: ignore[no-any-return]
    return None


async def refuse_handoff(
    run: Run, call: ToolCall, target: Agent, claimed: Agent | None
) -> ToolOutcome | None:
    """The outcome of a handoff call that must not happen (another call of the batch hands
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
    deny = await _gate(run, target, call.id in run.answered)
    if type(deny) is Ask:
        return asked(call, deny, run.parent is not None)
    if deny is not None:
        return ToolOutcome(call, error=deny.text(call.name), source="denied", denied=True)
    return None


async def _gate(run: Run, target: Agent, answered: bool) -> Deny | Ask | None:
    """``pre_handoff`` (which may ``Ask``; ``answered``: approved at resume), then
    ``pre_agent`` on the target: either may keep the current agent. The target's own guards
    judge both, beside the run's."""
    bus = _with_guards_of(run.bus, target)
    deny: Deny | Ask | None = None
    if "pre_handoff" in bus.listened:
        ctx = PreHandoffContext(
            **run.context_fields,
            from_agent=run.agent.name,
            to_agent=target.name,
            short_circuit=None,
        )
        deny = await bus.dispatch("pre_handoff", ctx, approved=answered)
    if deny is None and "pre_agent" in bus.listened:
        base = run.context_fields | {"agent": target.name, "branch": run.branch_of(target)}
        actx = PreAgentContext(**base, input=run.input, response=None, short_circuit=None)
        deny = await bus.dispatch("pre_agent", actx)
    return deny


def _with_guards_of(bus: HookBus, agent: Agent) -> HookBus:
    """``bus``, also running the guards of ``agent``'s own bus when it has one."""
    if agent.has_own_bus and agent.bus is not bus:
        return bus.with_guards_of(agent.bus)
    return bus


async def hand_over(run: Run, target: Agent) -> None:
    """Switch the run to ``target`` and fire ``on_handoff``."""
    source = run.agent.name
    run.switch_to(target)  # the target's own guards join the run's bus
    await run.fire(
        "on_handoff",
        OnHandoffContext,
        from_agent=source,
        to_agent=target.name,
        short_circuit=None,
    )


__all__ = ["claimed_handoff", "hand_over", "handoff_tool", "refuse_handoff"]
