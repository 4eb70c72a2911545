"""The policy: rules per tool (first match wins, else the default), input rules, redaction.

A rule's ``tool`` matches like ``bus.on(..., match=)``: an exact name, a compiled regex
(``re.search``), ``{"regex": "..."}`` (the TOML spelling of a regex), or a list of those;
``None`` matches every tool. Its ``args`` are conditions on the call's arguments, all of which
must hold (see ``conditions``). Its ``action`` is ``allow``, ``deny`` or ``ask`` (wait for the
approver).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from agenthooks import Deny, ToolCall

from .conditions import Condition, compile_conditions
from .where import Where, describe

if TYPE_CHECKING:
    from agenthooks.events import PreToolCallContext

    from .redact import Redactor

Action: TypeAlias = Literal["allow", "deny", "ask"]
ACTIONS: tuple[Action, ...] = ("allow", "deny", "ask")

Approver: TypeAlias = Callable[
    [ToolCall, "PreToolCallContext"], "Awaitable[bool | Deny] | bool | Deny"
]
"""``approver(call, ctx) -> bool | Deny`` (async): ``True`` lets an ``ask`` call run; ``False``
or a ``Deny`` refuses it."""

AskMode = Literal["wait", "pause"]
ASK_MODES: tuple[AskMode, ...] = ("wait", "pause")
"""What an ``ask`` rule does: wait for the approver, or pause the run for a human."""

DEFAULT_ASK_TIMEOUT = 60.0


def check_action(value: Any, where: Where) -> Action:
    """``value`` if it is an action, else a config error naming ``where``."""
    if value not in ACTIONS:
        shown = repr(value) if isinstance(value, str) else describe(value)
        raise where.error(f"{shown} is not one of {', '.join(ACTIONS)}")
    return value  # type: ignore[no-any-return]


def check_timeout(value: Any, where: Where) -> float:
    """A positive number of seconds."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise where.error(f"expected a positive number of seconds, got {describe(value)}")
    return float(value)


def compile_tool_matcher(spec: Any, where: Where) -> Callable[[str], bool]:
    """A predicate on the tool name from a name, a regex, ``{"regex": ...}`` or a list."""
    if spec is None:
        return lambda name: True
    single = isinstance(spec, (str, re.Pattern, Mapping))
    items = [spec] if single else spec
    if not isinstance(items, (list, tuple)) or not items:
        raise where.error(
            f'expected a tool name, a regex, {{regex = "..."}} or a non-empty list of those, '
            f"got {describe(spec)}"
        )
    names: set[str] = set()
    patterns: list[re.Pattern[str]] = []
    for i, item in enumerate(items):
        here = where if single else where.item(i)
        if isinstance(item, str):
            names.add(item)
        elif isinstance(item, re.Pattern):
            patterns.append(item)
        elif isinstance(item, Mapping):
            extra = [k for k in item if k != "regex"]
            if extra:
                raise here.unknown_key(str(extra[0]), ["regex"])
            regex = item.get("regex")
            if not isinstance(regex, str):
                raise here.child("regex").error(f"expected a string, got {describe(regex)}")
            try:
                patterns.append(re.compile(regex))
            except re.error as exc:
                raise here.child("regex").error(
                    f"invalid regular expression {regex!r}: {exc}"
                ) from None
        else:
            raise here.error(f"expected a tool name or a regex, got {describe(item)}")
    if not patterns:
        return names.__contains__
    return lambda name: name in names or any(p.search(name) for p in patterns)


class Rule:
    """One policy rule: which tool calls it matches and what happens to them.

    ``Rule("delete_file", "deny", reason="Deleting files is not allowed.")``;
    ``Rule(re.compile("^shell_"), "ask", timeout=30)``;
    ``Rule("write_file", "deny", args={"path": {"not_startswith": "/tmp/"}})``.
    ``reason`` is what the model (or, for ``ask``, the approver's refusal) reads.
    """

    __slots__ = ("_matches", "action", "conditions", "name", "reason", "timeout", "tool")

    def __init__(
        self,
        tool: Any = None,
        action: Action = "deny",
        *,
        args: Mapping[str, Any] | None = None,
        reason: str | None = None,
        name: str | None = None,
        timeout: float | None = None,
        where: Where | None = None,
    ) -> None:
        where = where or Where(None, f"Rule({name or tool!r})")
        self.tool = tool
        self.action = check_action(action, where.child("action"))
        self._matches = compile_tool_matcher(tool, where.child("tool"))
        self.conditions: tuple[Condition, ...] = compile_conditions(args, where.child("args"))
        if reason is not None and not isinstance(reason, str):
            raise where.child("reason").error(f"expected a string, got {describe(reason)}")
        if name is not None and not isinstance(name, str):
            raise where.child("name").error(f"expected a string, got {describe(name)}")
        self.reason = reason
        self.name = name
        self.timeout = None if timeout is None else check_timeout(timeout, where.child("timeout"))

    def matches(self, call: ToolCall) -> bool:
        """True when this rule applies to ``call`` (its tool and every argument condition)."""
        return self._matches(call.name) and all(c.holds(call.arguments) for c in self.conditions)

    def matches_tool(self, name: str) -> bool:
        """True when this rule's ``tool`` matches the tool called ``name``."""
        return self._matches(name)

    def __repr__(self) -> str:
        label = f"name={self.name!r}, " if self.name else ""
        return f"Rule({label}tool={self.tool!r}, action={self.action!r})"


class InputRules:
    """Checks on the user message (``on_user_message``): a maximum length and patterns that
    deny. ``deny_patterns`` items are regex strings, compiled patterns, or ``(pattern,
    reason)`` pairs; ``reason`` is the default reason of a pattern match."""

    __slots__ = ("deny_patterns", "max_length", "reason")

    DEFAULT_REASON = "message denied by input policy"

    def __init__(
        self,
        *,
        max_length: int | None = None,
        deny_patterns: Iterable[Any] = (),
        reason: str | None = None,
        where: Where | None = None,
    ) -> None:
        where = where or Where(None, "InputRules")
        if max_length is not None and (
            isinstance(max_length, bool) or not isinstance(max_length, int) or max_length < 1
        ):
            raise where.child("max_length").error(
                f"expected a positive integer, got {describe(max_length)}"
            )
        self.max_length = max_length
        self.reason = reason or self.DEFAULT_REASON
        compiled: list[tuple[re.Pattern[str], str]] = []
        for i, item in enumerate(deny_patterns):
            here = where.child("deny_patterns").item(i)
            text: Any
            why: Any = self.reason
            if isinstance(item, Mapping):
                extra = [k for k in item if k not in ("pattern", "reason")]
                if extra:
                    raise here.unknown_key(str(extra[0]), ["pattern", "reason"])
                text, why = item.get("pattern"), item.get("reason", self.reason)
            elif isinstance(item, tuple) and len(item) == 2:
                text, why = item
            else:
                text = item
            if not isinstance(why, str):
                raise here.child("reason").error(f"expected a string, got {describe(why)}")
            if isinstance(text, re.Pattern):
                compiled.append((text, why))
                continue
            if not isinstance(text, str):
                raise here.error(f"expected a regular expression string, got {describe(text)}")
            try:
                compiled.append((re.compile(text), why))
            except re.error as exc:
                raise here.error(f"invalid regular expression {text!r}: {exc}") from None
        self.deny_patterns: tuple[tuple[re.Pattern[str], str], ...] = tuple(compiled)

    def check(self, message: str) -> str | None:
        """The reason ``message`` is denied, or None when it passes."""
        if self.max_length is not None and len(message) > self.max_length:
            return f"message too long: {len(message)} characters, the limit is {self.max_length}"
        for pattern, reason in self.deny_patterns:
            if pattern.search(message):
                return reason
        return None


class Policy:
    """Tool rules (first match wins, else ``default``), the ``ask`` timeout and approver, input
    rules and redaction. ``Policy()`` allows everything and changes nothing."""

    __slots__ = ("approver", "ask", "ask_timeout", "default", "input", "redact", "rules", "source")

    def __init__(
        self,
        rules: Iterable[Rule] = (),
        *,
        default: Action = "allow",
        ask_timeout: float = DEFAULT_ASK_TIMEOUT,
        approver: Approver | None = None,
        ask: AskMode = "wait",
        input: InputRules | None = None,
        redact: Redactor | None = None,
        source: str | None = None,
    ) -> None:
        where = Where(source)
        self.rules = tuple(rules)
        for i, rule in enumerate(self.rules):
            if not isinstance(rule, Rule):
                raise where.child("rules").item(i).error(f"expected a Rule, got {describe(rule)}")
        self.default = check_action(default, where.child("default"))
        self.ask_timeout = check_timeout(ask_timeout, where.child("ask_timeout"))
        if approver is not None and not callable(approver):
            raise where.child("approver").error(f"expected a callable, got {describe(approver)}")
        self.approver = approver
        if ask not in ASK_MODES:
            raise where.child("ask").error(
                f"{ask!r} is not one of {', '.join(ASK_MODES)}"
                if isinstance(ask, str)
                else f"expected a string, got {describe(ask)}"
            )
        self.ask: AskMode = ask
        """``"wait"``: an ``ask`` waits for the approver (up to ``ask_timeout``); ``"pause"``:
        it pauses the run (``Ask``), which ``resume()`` continues in any process."""
        self.input = input
        self.redact = redact
        self.source = source

    @property
    def checks_tools(self) -> bool:
        """False when no tool call could be refused (no rule, default ``allow``)."""
        return bool(self.rules) or self.default != "allow"

    def decide(
        self, call: ToolCall, arguments: Callable[[], Mapping[str, Any]] | None = None
    ) -> tuple[Rule | None, Action]:
        """The first rule matching ``call`` and its action, else ``(None, default)``.

        ``arguments`` (called at most once, and only when a rule for this tool has argument
        conditions) gives the arguments the conditions judge; default: ``call.arguments``."""
        judged: Mapping[str, Any] | None = None
        for rule in self.rules:
            if not rule.matches_tool(call.name):
                continue
            if rule.conditions:
                if judged is None:
                    judged = arguments() if arguments is not None else call.arguments
                if not all(c.holds(judged) for c in rule.conditions):
                    continue
            return rule, rule.action
        return None, self.default

    def __repr__(self) -> str:
        src = f", source={self.source!r}" if self.source else ""
        return f"Policy({len(self.rules)} rules, default={self.default!r}{src})"


__all__ = [
    "ACTIONS",
    "ASK_MODES",
    "DEFAULT_ASK_TIMEOUT",
    "Action",
    "Approver",
    "AskMode",
    "InputRules",
    "Policy",
    "Rule",
    "check_action",
    "check_timeout",
    "compile_tool_matcher",
]
