"""Caps, escalation ladders, rate limits and prices: the values ``Limits`` is configured with.

A cap's ladder is a list of steps ``(at, action)``: the step fires when the used amount
reaches ``at`` times the cap, measured before the next unit is spent (the next turn, the
next tool call). ``Cap(5, "stop")`` is the ladder ``[(1.0, "stop")]``: five turns run, the
sixth does not. ``Cap(100_000, ladder={0.8: "warn", 1.0: "downgrade", 1.2: "stop"})``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from .settings import LimitsConfigError

Action: TypeAlias = Literal["warn", "downgrade", "deny", "stop"]
ACTIONS: tuple[Action, ...] = ("warn", "downgrade", "deny", "stop")
"""The graded actions, mildest first."""

SEVERITY = {action: i for i, action in enumerate(ACTIONS)}


def _describe(value: object) -> str:
    return f"{type(value).__name__} {value!r}"


def _positive(value: Any, key: str, *, integer: bool = False) -> float:
    kind = (int,) if integer else (int, float)
    if isinstance(value, bool) or not isinstance(value, kind) or value <= 0:
        what = "a positive integer" if integer else "a positive number"
        raise LimitsConfigError(f"expected {what}, got {_describe(value)}", key=key)
    return value


def check_action(value: Any, key: str) -> Action:
    """``value`` if it is an action, else a config error naming ``key``."""
    if value not in ACTIONS:
        shown = repr(value) if isinstance(value, str) else _describe(value)
        raise LimitsConfigError(f"{shown} is not one of {', '.join(ACTIONS)}", key=key)
    return value  # type: ignore[no-any-return]


def _level(value: Any, key: str) -> float:
    """A ladder level: a fraction of the cap (``0.8``) or a percentage string (``"80%"``)."""
    if isinstance(value, str):
        text = value.strip()
        try:
            number = float(text[:-1]) / 100 if text.endswith("%") else float(text)
        except ValueError:
            raise LimitsConfigError(
                f"expected a level like 0.8 or '80%', got {value!r}", key=key
            ) from None
        return float(_positive(number, key))
    return float(_positive(value, key))


@dataclass(frozen=True)
class Step:
    """One rung of a ladder: ``action`` once the used amount reaches ``at`` × the cap."""

    at: float
    action: Action


def ladder_of(action: Action | None, ladder: Any, key: str) -> tuple[Step, ...] | None:
    """The steps of ``action`` (one step at 100%) or ``ladder`` (a mapping ``at -> action`` or
    pairs), sorted by ``at``; None when neither is given (the metric's default applies)."""
    if action is not None and ladder is not None:
        raise LimitsConfigError("give action= or ladder=, not both", key=key)
    if action is not None:
        return (Step(1.0, check_action(action, f"{key}.action")),)
    if ladder is None:
        return None
    items: Iterable[Any] = ladder.items() if isinstance(ladder, Mapping) else ladder
    steps: list[Step] = []
    for i, item in enumerate(items):
        here = f"{key}.ladder[{i}]"
        at: Any
        act: Any
        if isinstance(item, Step):
            at, act = item.at, item.action
        elif isinstance(item, Mapping):
            unknown = sorted(set(item) - {"at", "action"})
            if unknown:
                raise LimitsConfigError(
                    "unknown key; a step has 'at' and 'action'", key=f"{here}.{unknown[0]}"
                )
            at, act = item.get("at"), item.get("action")
        elif isinstance(item, (tuple, list)) and len(item) == 2:
            at, act = item
        else:
            raise LimitsConfigError(f"expected (at, action), got {_describe(item)}", key=here)
        steps.append(Step(_level(at, f"{here}.at"), check_action(act, f"{here}.action")))
    if not steps:
        raise LimitsConfigError("an empty ladder never acts", key=f"{key}.ladder")
    ats = [s.at for s in steps]
    if len(set(ats)) != len(ats):
        raise LimitsConfigError("two steps at the same level", key=f"{key}.ladder")
    return tuple(sorted(steps, key=lambda s: s.at))


class Cap:
    """A limit and what happens as it is approached and passed.

    ``Cap(limit)`` uses the metric's default action (``stop`` for turns, tokens and cost,
    ``deny`` for tool calls); ``Cap(limit, "warn")`` acts at 100%; ``ladder=`` grades it:
    ``{0.8: "warn", 1.0: "downgrade", 1.2: "stop"}`` (or a list of ``(at, action)`` pairs).
    """

    __slots__ = ("limit", "steps")

    def __init__(
        self,
        limit: float,
        action: Action | None = None,
        *,
        ladder: Mapping[float, Action] | Iterable[tuple[float, Action]] | None = None,
        key: str = "Cap",
    ) -> None:
        self.limit = _positive(limit, f"{key}.limit")
        self.steps = ladder_of(action, ladder, key)

    def with_default(self, action: Action) -> Cap:
        """This cap, or a copy with one step of ``action`` at 100% when it has no action."""
        if self.steps is not None:
            return self
        cap = Cap.__new__(Cap)
        cap.limit, cap.steps = self.limit, (Step(1.0, action),)
        return cap

    def __repr__(self) -> str:
        steps = ", ".join(f"{s.at:g}: {s.action!r}" for s in self.steps or ())
        return f"Cap({self.limit!r}, ladder={{{steps}}})"


class RateLimit:
    """At most ``calls`` calls of a tool per ``per`` seconds (a sliding window).

    ``shared=True`` counts the calls of every run on the bus together (one window per tool,
    for an API quota); otherwise each run has its own window. ``action`` / ``ladder`` as for
    ``Cap``; the default is ``deny``.
    """

    __slots__ = ("calls", "cap", "per", "shared")

    def __init__(
        self,
        calls: int,
        per: float,
        *,
        shared: bool = False,
        action: Action | None = None,
        ladder: Mapping[float, Action] | Iterable[tuple[float, Action]] | None = None,
        key: str = "RateLimit",
    ) -> None:
        self.calls = int(_positive(calls, f"{key}.calls", integer=True))
        self.per = float(_positive(per, f"{key}.per"))
        if not isinstance(shared, bool):
            raise LimitsConfigError(
                f"expected true or false, got {_describe(shared)}", key=f"{key}.shared"
            )
        self.shared = shared
        self.cap = Cap(self.calls, action, ladder=ladder, key=key).with_default("deny")

    def __repr__(self) -> str:
        return f"RateLimit({self.calls}, per={self.per:g}, shared={self.shared})"


@dataclass(frozen=True)
class Price:
    """Dollars per one million input and output tokens."""

    input: float
    output: float

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        """The cost of a call with these token counts."""
        return (input_tokens * self.input + output_tokens * self.output) / 1_000_000


def as_cap(value: Any, default: Action, key: str) -> Cap | None:
    """``None``, a number (a cap with the default action) or a ``Cap``."""
    if value is None:
        return None
    if isinstance(value, Cap):
        return value.with_default(default)
    return Cap(value, key=key).with_default(default)


def as_price(value: Any, key: str) -> Price:
    """A ``Price``, an ``(input, output)`` pair or ``{"input": ..., "output": ...}``."""
    if isinstance(value, Price):
        pair: tuple[Any, Any] = (value.input, value.output)
    elif isinstance(value, Mapping):
        unknown = sorted(set(value) - {"input", "output"})
        if unknown:
            raise LimitsConfigError(
                "unknown key; a price has 'input' and 'output' ($ per 1M tokens)",
                key=f"{key}.{unknown[0]}",
            )
        pair = (value.get("input"), value.get("output"))
    elif isinstance(value, (tuple, list)) and len(value) == 2:
        pair = (value[0], value[1])
    else:
        raise LimitsConfigError(
            f"expected (input, output) dollars per 1M tokens, got {_describe(value)}", key=key
        )
    for name, amount in zip(("input", "output"), pair):
        if isinstance(amount, bool) or not isinstance(amount, (int, float)) or amount < 0:
            raise LimitsConfigError(
                f"expected a number >= 0, got {_describe(amount)}", key=f"{key}.{name}"
            )
    return Price(float(pair[0]), float(pair[1]))


__all__ = [
    "ACTIONS",
    "SEVERITY",
    "Action",
    "Cap",
    "Price",
    "RateLimit",
    "Step",
    "as_cap",
    "as_price",
    "check_action",
    "ladder_of",
]
