"""Rules that name no tool: a rule whose ``tool`` is ``"delete_fle"`` matches nothing, so the
call it was written to stop runs. The names can only be checked against the tools an agent
offers, which the guard first sees at a run's start (``on_chat_start`` carries them); the
tools of every agent that starts during that first run count (its sub-agents', its handoff
targets'), and each name a rule lists that none of them has is logged once, when that run
ends, with the closest tool. Regexes are not checked: ``^shell_`` is often written for tools
that may come later.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import structlog

if TYPE_CHECKING:
    from agenthooks import Disposer, HookBus
    from agenthooks.events import ChatEndContext, ChatStartContext

    from .policy import Policy

log = structlog.get_logger("agenthooks_guard")

WATCH_PRIORITY = 10**6
"""The watcher reads the tools before any ordinary ``on_chat_start`` handler could deny the
run (and so end the chain before it)."""


def tool_items(spec: Any) -> list[str | re.Pattern[str]]:
    """The names and regexes a rule's ``tool`` lists (none for a rule on every tool)."""
    if spec is None:
        return []
    single = isinstance(spec, (str, re.Pattern, Mapping))
    items: list[str | re.Pattern[str]] = []
    for item in [spec] if single else spec:
        if isinstance(item, (str, re.Pattern)):
            items.append(item)
        elif isinstance(item, Mapping):  # {"regex": "..."}, validated when the rule was built
            items.append(re.compile(str(item["regex"])))
    return items


class RuleNames:
    """Watches the first run for the tools the agents offer, then reports every rule item
    that names none of them; both handlers are removed once it reported."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        # names only: a regex (``^shell_``) is often written for tools that may come later
        self.items = [
            (index, rule, item)
            for index, rule in enumerate(policy.rules)
            for item in tool_items(rule.tool)
            if isinstance(item, str)
        ]
        self.tools: dict[str, list[str]] = {}
        """The tools each agent offered, by agent name, in the order first seen."""
        self.first_run: str | None = None
        self.reported = False
        self._disposers: list[Disposer] = []

    def install(self, bus: HookBus) -> None:
        """Watch ``bus`` (nothing when no rule names a tool)."""
        if not self.items or self.reported:
            return
        self._disposers += [
            bus.on("on_chat_start", self._started, priority=WATCH_PRIORITY),
            bus.on("on_chat_end", self._ended),
        ]

    def _started(self, ctx: ChatStartContext) -> None:
        if self.first_run is None:
            self.first_run = ctx.run_id
        offered = self.tools.setdefault(ctx.agent, [])
        offered += [name for name in ctx.tools if name not in offered]

    def _ended(self, ctx: ChatEndContext) -> None:
        if ctx.run_id != self.first_run or self.reported:
            return
        self.reported = True
        for dispose in self._disposers:
            dispose()
        self.report()

    def report(self) -> list[dict[str, Any]]:
        """Log each rule item that names no tool seen; returns what was logged."""
        seen = sorted({name for names in self.tools.values() for name in names})
        logged = []
        for index, rule, name in self.items:
            if name in seen:
                continue
            close = difflib.get_close_matches(name, seen, n=1)
            closest = close[0] if close else None
            label = _label(self.policy.source, index, rule.name)
            hint = f"; did you mean {closest!r}?" if closest else ""
            entry = {
                "rule": label,
                "tool": name,
                "closest": closest,
                "tools": _offered(self.tools),
                "hint": f"rule {label}: tool {name!r} names no tool the agents offer, so it "
                f"matches nothing{hint}",
            }
            log.warning("guard_rule_names_no_tool", **entry)
            logged.append(entry)
        return logged


def _label(source: str | None, index: int, name: str | None) -> str:
    where = f"{source}: rules[{index}]" if source else f"rules[{index}]"
    return f"{where} ({name!r})" if name else where


def _offered(tools: Mapping[str, Sequence[str]]) -> str:
    """``lead: search, delete_file; finder: lookup``."""
    return "; ".join(f"{agent}: {', '.join(names) or '(none)'}" for agent, names in tools.items())


__all__ = ["WATCH_PRIORITY", "RuleNames", "tool_items"]
