"""What a run can reach, checked against what hooks ask to match.

A ``match=`` naming no tool, sub-agent or handoff target a run can reach is most likely a typo
(``"serach"``), so it is logged once, at the first run that could know (its agent's tools, its
sub-agents' and handoff targets', MCP servers' included). A bus no agent runs on never warns:
it cannot know. ``has_servers`` tells an agent whether anything in its reach has MCP servers
to connect.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import structlog

from ..events.catalog import CATALOG

if TYPE_CHECKING:
    from .agent import Agent
    from .run_state import Run

log = structlog.get_logger("agenthooks")


def names_in_reach(agent: Agent) -> dict[str, set[str]]:
    """The names each kind of ``match=`` tests that a run of ``agent`` can meet: tool names
    (``tool_name``), sub-agents (``subagent``) and handoff targets (``to_agent``)."""
    found: dict[str, set[str]] = {"tool_name": set(), "subagent": set(), "to_agent": set()}
    seen: set[int] = set()
    todo = [agent]
    while todo:
        current = todo.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        found["tool_name"].update(current.scopes.index)
        found["subagent"].update(a.name for a in current.sub_agents)
        found["to_agent"].update(a.name for a in current.handoffs)
        todo += [*current.sub_agents, *current.handoffs]
    return found


def has_servers(agent: Agent, seen: set[int]) -> bool:
    """True when ``agent``, a sub-agent or a handoff target (at any depth) has MCP servers."""
    seen.add(id(agent))
    return bool(agent.mcp_servers) or any(
        has_servers(other, seen)
        for other in [*agent.sub_agents, *agent.handoffs]
        if id(other) not in seen
    )


def check_matchers(run: Run) -> None:
    """Log once per registration each ``match=`` item that names nothing ``run`` can reach."""
    names: dict[str, set[str]] | None = None
    for reg in run.bus.registrations():
        if reg.checked or not reg.match_items:
            continue
        reg.checked = True
        where = CATALOG[reg.event].match
        if where is None:
            continue
        if names is None:
            names = names_in_reach(run.agent)
        candidates = names[where]
        for item in reg.match_items:
            if isinstance(item, re.Pattern):
                hit = any(item.search(n) for n in candidates)
                shown = item.pattern
            else:
                hit = item in candidates
                shown = item
            if not hit:
                log.warning(
                    "match_names_nothing",
                    hook_event=reg.event,
                    handler=reg.label,
                    match=shown,
                    reachable=sorted(candidates),
                    hint=f"match={shown!r} on {reg.event} names no {where.replace('_', ' ')} "
                    f"agent {run.agent.name!r} can reach: a typo?",
                )


__all__ = ["check_matchers", "has_servers", "names_in_reach"]
