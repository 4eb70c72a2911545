"""Conditions on a tool call's arguments: ``args.path`` startswith ``/etc/``, ``args.amount`` > 100.

A rule's ``args`` is a nested mapping: argument name → either a value (shorthand for
``equals``) or a table of operators; a table whose keys are not operators goes one level
deeper into a nested argument (``args.options.force.equals = true``). Every condition of a
rule must hold. A condition on an argument the call does not carry does not hold.

Conditions judge the arguments the tool will receive: validated and coerced by the tool's
signature (``"yes"`` is ``True`` for a ``bool``), then seen as plain data by ``plain``
(models and dataclasses as mappings, enums as their values, paths as strings).
"""

from __future__ import annotations

import dataclasses
import difflib
import enum
import json
import math
import re
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from pathlib import PurePath
from typing import Any

from pydantic import BaseModel

from agenthooks import AgentHooksError

from .where import Where, describe


class PolicyEvaluationError(AgentHooksError):
    """A rule could not be evaluated against a call (``args.amount`` is not a number). Raised
    inside the guard, so the bus counts it as a ``Deny`` with this text: fail closed."""


_MISSING = object()

OPERATORS = (
    "equals",
    "not_equals",
    "matches",
    "not_matches",
    "startswith",
    "not_startswith",
    "endswith",
    "not_endswith",
    "contains",
    "not_contains",
    "in",
    "not_in",
    "gt",
    "ge",
    "lt",
    "le",
)
"""Every operator a condition may use."""


@dataclass(frozen=True)
class Condition:
    """One test on one argument: ``path`` into the arguments, an operator, an operand."""

    path: tuple[str, ...]
    op: str
    operand: Any

    def __str__(self) -> str:
        shown = self.operand.pattern if isinstance(self.operand, re.Pattern) else self.operand
        return f"args.{'.'.join(self.path)} {self.op} {shown!r}"

    def holds(self, arguments: Mapping[str, Any]) -> bool:
        """True when the call's ``arguments`` satisfy this condition."""
        value: Any = arguments
        for step in self.path:
            if not isinstance(value, Mapping) or step not in value:
                return False
            value = value[step]
        return _TESTS[self.op](value, self.operand, self)


def plain(value: Any) -> Any:
    """``value`` as the plain data conditions compare: a pydantic model or a dataclass as a
    dict of its fields, an enum as its value, a path or a UUID as its string, a set or a tuple
    as a list; everything inside converted the same way."""
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, enum.Enum):
        return plain(value.value)
    if isinstance(value, BaseModel):
        fields = {name: plain(getattr(value, name)) for name in type(value).model_fields}
        fields.update({k: plain(v) for k, v in (value.model_extra or {}).items()})
        return fields
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [plain(v) for v in value]
    if isinstance(value, (PurePath, uuid.UUID)):
        return str(value)
    return value


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, default=str)


def _number(value: Any, cond: Condition) -> float:
    number: float | None = None
    if isinstance(value, (int, float, Decimal)) and not isinstance(value, bool):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            pass
    if number is None or math.isnan(number):  # NaN compares False both ways: fail closed
        raise PolicyEvaluationError(
            f"policy condition {cond} cannot be checked: args.{'.'.join(cond.path)} is "
            f"{describe(value)}, not a number"
        )
    return number


def _starts(value: Any, prefixes: tuple[str, ...], cond: Condition) -> bool:
    return _text(value).startswith(prefixes)


def _ends(value: Any, suffixes: tuple[str, ...], cond: Condition) -> bool:
    return _text(value).endswith(suffixes)


def _contains(value: Any, item: Any, cond: Condition) -> bool:
    if isinstance(value, str):
        return isinstance(item, str) and item in value
    if isinstance(value, (list, tuple, Mapping)):
        return item in value
    return False


_TESTS: dict[str, Callable[[Any, Any, Condition], bool]] = {
    "equals": lambda v, o, c: bool(v == o),
    "not_equals": lambda v, o, c: bool(v != o),
    "matches": lambda v, o, c: o.search(_text(v)) is not None,
    "not_matches": lambda v, o, c: o.search(_text(v)) is None,
    "startswith": _starts,
    "not_startswith": lambda v, o, c: not _starts(v, o, c),
    "endswith": _ends,
    "not_endswith": lambda v, o, c: not _ends(v, o, c),
    "contains": _contains,
    "not_contains": lambda v, o, c: not _contains(v, o, c),
    "in": lambda v, o, c: v in o,
    "not_in": lambda v, o, c: v not in o,
    "gt": lambda v, o, c: _number(v, c) > o,
    "ge": lambda v, o, c: _number(v, c) >= o,
    "lt": lambda v, o, c: _number(v, c) < o,
    "le": lambda v, o, c: _number(v, c) <= o,
}


def compile_conditions(spec: Any, where: Where) -> tuple[Condition, ...]:
    """The conditions of a rule's ``args`` mapping (``None`` → no condition)."""
    if spec is None:
        return ()
    if not isinstance(spec, Mapping):
        raise where.error(f"expected a table of argument conditions, got {describe(spec)}")
    found: list[Condition] = []
    _walk(spec, (), where, found)
    return tuple(found)


def _walk(
    spec: Mapping[str, Any], path: tuple[str, ...], where: Where, found: list[Condition]
) -> None:
    for name, value in spec.items():
        if not isinstance(name, str) or not name:
            raise where.error(f"argument names are non-empty strings, got {name!r}")
        here = where.child(name)
        steps = (*path, *name.split("."))
        if not isinstance(value, Mapping):
            found.append(_condition(steps, "equals", value, here))
            continue
        if not value:
            raise here.error("empty table: give an operator (e.g. equals = ...) or a value")
        ops = [k for k in value if k in OPERATORS]
        if not ops:
            # a typo'd operator would silently become a nested argument that never matches
            # (a deny rule that never fires): refuse names that look like operators
            for key in value:
                close = difflib.get_close_matches(str(key), OPERATORS, n=1, cutoff=0.8)
                if close and not isinstance(value[key], Mapping):
                    raise here.child(str(key)).error(
                        f"unknown operator; did you mean {close[0]!r}? (to test a nested "
                        f"argument of that name write {here.child(str(key)).key}.equals = ...)"
                    )
            _walk(value, steps, here, found)
            continue
        others = [k for k in value if k not in OPERATORS]
        if others:
            bad = str(others[0])
            close = difflib.get_close_matches(bad, OPERATORS, n=1)
            hint = f"did you mean {close[0]!r}?" if close else f"operators: {', '.join(OPERATORS)}"
            raise here.child(bad).error(f"unknown operator; {hint}")
        for op in ops:
            found.append(_condition(steps, op, value[op], here.child(op)))


def _condition(path: tuple[str, ...], op: str, operand: Any, where: Where) -> Condition:
    if op in ("matches", "not_matches"):
        if isinstance(operand, re.Pattern):
            return Condition(path, op, operand)
        if not isinstance(operand, str):
            raise where.error(f"expected a regular expression string, got {describe(operand)}")
        try:
            return Condition(path, op, re.compile(operand))
        except re.error as exc:
            raise where.error(f"invalid regular expression {operand!r}: {exc}") from None
    if op in ("startswith", "not_startswith", "endswith", "not_endswith"):
        items = [operand] if isinstance(operand, str) else operand
        if (
            not isinstance(items, (list, tuple))
            or not items
            or not all(isinstance(i, str) for i in items)
        ):
            raise where.error(f"expected a string or a list of strings, got {describe(operand)}")
        return Condition(path, op, tuple(items))
    if op in ("in", "not_in"):
        if not isinstance(operand, (list, tuple)):
            raise where.error(f"expected a list, got {describe(operand)}")
        return Condition(path, op, tuple(operand))
    if op in ("gt", "ge", "lt", "le"):
        if isinstance(operand, bool) or not isinstance(operand, (int, float)):
            raise where.error(f"expected a number, got {describe(operand)}")
        return Condition(path, op, float(operand))
    return Condition(path, op, operand)


__all__ = ["OPERATORS", "Condition", "PolicyEvaluationError", "compile_conditions", "plain"]
