"""The buses the runs of an agent fire on, for a recorder to attach to each of them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..bus import HookBus

if TYPE_CHECKING:
    from ..runtime.agent import Agent


def reachable_buses(target: Agent | HookBus) -> list[HookBus]:
    """The distinct buses the runs of ``target`` fire on: a bus itself, or an agent's bus and
    the own buses of the sub-agents it can reach (through sub-agents and handoffs)."""
    if isinstance(target, HookBus):
        return [target]
    buses: dict[int, HookBus] = {id(target.bus): target.bus}
    seen: set[int] = set()

    def visit(agent: Agent, as_subagent: bool) -> None:
        if id(agent) in seen:
            return
        seen.add(id(agent))
        if as_subagent and agent.has_own_bus:
            buses.setdefault(id(agent.bus), agent.bus)
        for sub in agent.sub_agents:
            visit(sub, True)
        for target_agent in agent.handoffs:
            visit(target_agent, False)

    visit(target, False)
    return list(buses.values())


__all__ = ["reachable_buses"]
