"""What a limit check measures and remembers: breaches, per-run counters, sliding windows."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from .caps import SEVERITY, Action, Cap, Step


def money(amount: float) -> str:
    """``$0.0123``: dollars with up to six decimals, trailing zeros dropped."""
    text = f"{amount:.6f}".rstrip("0").rstrip(".")
    return f"${text}"


def count(amount: float) -> str:
    """A count or an amount without a spurious ``.0``."""
    return f"{amount:g}" if amount != int(amount) else str(int(amount))


@dataclass(frozen=True)
class Breach:
    """A cap reached: which metric, how much was used of how much, and the step that fired.

    ``text`` is what the logs, the model (on ``deny``) and ``on_stop`` (on ``stop``) read.
    """

    metric: str
    used: float
    limit: float
    step: Step
    tool: str | None = None
    per: float | None = None

    @property
    def action(self) -> Action:
        """The action of the step that fired."""
        return self.step.action

    @property
    def level(self) -> float:
        """``used / limit`` (1.0 is 100%)."""
        return self.used / self.limit

    @property
    def text(self) -> str:
        """``token limit: 1200 of 1000 tokens used``, and so on per metric."""
        used, limit = count(self.used), count(self.limit)
        if self.metric == "turns":
            return f"turn limit: {used} of {limit} turns used"
        if self.metric == "tokens":
            return f"token limit: {used} of {limit} tokens used"
        if self.metric == "cost":
            return f"cost limit: {money(self.used)} of {money(self.limit)} spent"
        if self.metric == "tool_calls":
            return f"tool call limit: {used} of {limit} tool calls used"
        if self.metric == "tool":
            return f'tool call limit for "{self.tool}": {used} of {limit} calls used'
        return (
            f'rate limit for "{self.tool}": {used} calls in the last {count(self.per or 0)} '
            f"seconds, the limit is {limit}"
        )


def reached(
    metric: str, cap: Cap, used: float, *, tool: str | None = None, per: float | None = None
) -> list[Breach]:
    """The steps of ``cap`` that ``used`` has reached, mildest first."""
    steps = cap.steps or ()
    level = used / cap.limit
    return [Breach(metric, used, cap.limit, s, tool, per) for s in steps if level >= s.at]


def worst(breaches: list[Breach]) -> Breach | None:
    """The most severe breach (``stop`` > ``deny`` > ``downgrade`` > ``warn``)."""
    return max(breaches, key=lambda b: SEVERITY[b.action], default=None)


class Window:
    """A sliding window of call times: how many calls fell within the last ``per`` seconds."""

    __slots__ = ("per", "times")

    def __init__(self, per: float) -> None:
        self.per = per
        self.times: deque[float] = deque()

    def used(self, now: float) -> int:
        """Calls within ``(now - per, now]``, after dropping the older ones."""
        horizon = now - self.per
        times = self.times
        while times and times[0] <= horizon:
            times.popleft()
        return len(times)

    def add(self, now: float) -> None:
        """Record a call at ``now``."""
        self.times.append(now)


@dataclass
class RunState:
    """One run's counters, keyed in ``Limits`` by ``run_id``; dropped at ``on_chat_end``."""

    keys: set[str] = field(default_factory=set)
    """The run's counters in the store (``run:ID:...``), dropped with it."""
    fired: set[tuple[str, str | None, float]] = field(default_factory=set)
    """(metric, tool, at) of the warn / downgrade steps already acted on."""
    deny_tools: Breach | None = None
    """A run-level cap whose ``deny`` step fired: every later tool call is denied with it."""
    downgrade: Breach | None = None
    """A downgrade a tool check asked for, applied at the next ``prepare_next_turn``."""


def _breach(breach: Breach | None) -> dict[str, Any] | None:
    if breach is None:
        return None
    return {
        "metric": breach.metric,
        "used": breach.used,
        "limit": breach.limit,
        "at": breach.step.at,
        "action": breach.step.action,
        "tool": breach.tool,
        "per": breach.per,
    }


def _unbreach(data: Any) -> Breach | None:
    if not isinstance(data, dict):
        return None
    step = Step(float(data["at"]), data["action"])
    return Breach(
        data["metric"], float(data["used"]), float(data["limit"]), step, data["tool"], data["per"]
    )


def carry(state: RunState, counters: dict[str, float]) -> dict[str, Any]:
    """What a paused run keeps of ``state`` (JSON): its counters' totals by key without the
    run's prefix (``tool_calls``, ``tool:search``), the steps already acted on, and a deny or
    downgrade in force."""
    return {
        "counters": dict(counters),
        "fired": [[metric, tool, at] for metric, tool, at in sorted(state.fired, key=str)],
        "deny_tools": _breach(state.deny_tools),
        "downgrade": _breach(state.downgrade),
    }


def restore(kept: dict[str, Any]) -> tuple[RunState, dict[str, float]]:
    """The run state and the counters' totals ``carry`` kept."""
    state = RunState(
        fired={(str(m), t, float(at)) for m, t, at in kept.get("fired", [])},
        deny_tools=_unbreach(kept.get("deny_tools")),
        downgrade=_unbreach(kept.get("downgrade")),
    )
    counters = {str(k): float(v) for k, v in dict(kept.get("counters", {})).items()}
    return state, counters


__all__ = [
    "Breach",
    "RunState",
    "Window",
    "carry",
    "count",
    "money",
    "reached",
    "restore",
    "worst",
]
