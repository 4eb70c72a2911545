"""Small real parts the agent-hooks-spec tests share: a policy written against the SDK's
interceptor interface, and verdict shorthands."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from agent_hooks import AgentContext, Decision, Transform, Verdict

Rule = Callable[[AgentContext], "Verdict | dict[str, Any] | None"]


class Policy:
    """An AGENT-HOOKS-0.1 interceptor: ``intercept(context)`` returns a ``Verdict``.

    ``rules`` maps an interception point to a function of the context (``None``: allow). Every
    context it receives is kept (a copy) in ``seen``."""

    def __init__(self, **rules: Rule) -> None:
        self.rules = rules
        self.seen: list[AgentContext] = []

    def intercept(self, context: AgentContext) -> Verdict | dict[str, Any]:
        self.seen.append(copy.deepcopy(context))
        rule = self.rules.get(context["interception_point"])
        verdict = rule(context) if rule is not None else None
        return Verdict.allow() if verdict is None else verdict

    def points(self) -> list[str]:
        """The interception points seen, in order."""
        return [c["interception_point"] for c in self.seen]

    def at(self, point: str) -> list[AgentContext]:
        """The contexts seen at ``point``."""
        return [c for c in self.seen if c["interception_point"] == point]


def transform(path: str, value: Any) -> Verdict:
    """A transform verdict (the SDK has no sugar for it)."""
    return Verdict(
        decision=Decision.TRANSFORM, reason=None, message=None, transform=Transform(path, value)
    )


def deny(reason: str) -> Verdict:
    """A final deny."""
    return Verdict.deny(reason=reason)
