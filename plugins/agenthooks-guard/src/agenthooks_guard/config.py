"""Reading a policy from TOML (a file, a string, or ``AGENTHOOKS_GUARD_POLICY``).

Every problem is a ``GuardConfigError`` naming the file and the key (``policy.toml:
rules[2].action: 'alow' is not one of allow, deny, ask``) or, for a syntax error, the line.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .policy import DEFAULT_ASK_TIMEOUT, Approver, InputRules, Policy, Rule
from .redact import BUILTIN_PATTERNS, TARGETS, RedactionPattern, Redactor
from .settings import GuardConfigError, GuardSettings
from .where import Where, describe

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

_TOP = ("default", "ask", "ask_timeout", "approver", "rules", "input", "redact")
_RULE = ("name", "tool", "action", "reason", "args", "timeout")
_INPUT = ("max_length", "deny_patterns", "reason")
_REDACT = ("patterns", "custom", "targets", "replacement")
_CUSTOM = ("name", "regex")
_POSITION = re.compile(r"\s*\(at line (\d+), column (\d+)\)\s*$")
_AT_END = "(at end of document)"


def load_policy(path: str | os.PathLike[str]) -> Policy:
    """The policy in the TOML file ``path``; errors name the path as given."""
    source = os.fspath(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise GuardConfigError("policy file not found", source=source) from None
    except OSError as exc:
        raise GuardConfigError(
            f"cannot read the policy file: {exc.strerror or exc}", source=source
        ) from None
    except UnicodeDecodeError as exc:
        raise GuardConfigError(f"the policy file is not UTF-8: {exc}", source=source) from None
    return parse_policy(text, source=source)


def parse_policy(text: str, *, source: str = "<policy>") -> Policy:
    """The policy in the TOML ``text``; ``source`` names it in errors."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line = getattr(exc, "lineno", None)
        column = getattr(exc, "colno", None)
        message = str(getattr(exc, "msg", None) or exc)
        found = _POSITION.search(message)
        if found:
            line, column = int(found.group(1)), int(found.group(2))
            message = message[: found.start()]
        elif message.endswith(_AT_END):  # the error is on the last line
            line = line or text.count("\n") + (0 if text.endswith("\n") else 1)
            message = message[: -len(_AT_END)].rstrip() + " at the end of the document"
        raise GuardConfigError(
            f"invalid TOML: {message}", source=source, line=line, column=column
        ) from None
    return policy_from_mapping(data, source=source)


def policy_from_env() -> Policy:
    """The policy in the file ``AGENTHOOKS_GUARD_POLICY`` names, or ``Policy()`` (allow
    everything, redact nothing) when it is unset or empty.

    Raises:
        PluginOptionError: The variable is unknown (it names the closest) or bad.
        GuardConfigError: The policy does not load.
    """
    path = GuardSettings.from_env().policy
    return load_policy(path) if path is not None else Policy()


def policy_from_mapping(data: Mapping[str, Any], *, source: str | None = None) -> Policy:
    """The policy described by ``data`` (the TOML document as a mapping)."""
    root = Where(source)
    _keys(data, _TOP, root)
    rules = [
        _rule(item, root.child("rules").item(i))
        for i, item in enumerate(_list(data.get("rules", []), root.child("rules")))
    ]
    approver = _approver(data["approver"], root.child("approver")) if "approver" in data else None
    input_rules = _input(data["input"], root.child("input")) if "input" in data else None
    redact = _redact(data["redact"], root.child("redact")) if "redact" in data else None
    return Policy(
        rules,
        default=data.get("default", "allow"),
        ask_timeout=data.get("ask_timeout", DEFAULT_ASK_TIMEOUT),
        approver=approver,
        ask=data.get("ask", "wait"),
        input=input_rules,
        redact=redact,
        source=source,
    )


def _keys(data: Any, known: tuple[str, ...], where: Where) -> None:
    if not isinstance(data, Mapping):
        raise where.error(f"expected a table, got {describe(data)}")
    for key in data:
        if key not in known:
            raise where.unknown_key(str(key), known)


def _list(value: Any, where: Where) -> list[Any]:
    if not isinstance(value, list):
        raise where.error(f"expected a list (an array of tables), got {describe(value)}")
    return value


def _rule(data: Any, where: Where) -> Rule:
    _keys(data, _RULE, where)
    if "action" not in data:
        raise where.child("action").error("missing; give one of allow, deny, ask")
    return Rule(
        data.get("tool"),
        data["action"],
        args=data.get("args"),
        reason=data.get("reason"),
        name=data.get("name"),
        timeout=data.get("timeout"),
        where=where,
    )


def _approver(spec: Any, where: Where) -> Approver:
    if not isinstance(spec, str) or ":" not in spec:
        raise where.error(f"expected 'module:function', got {describe(spec)}")
    module_name, _, attr = spec.partition(":")
    try:
        target: Any = importlib.import_module(module_name)
        for part in attr.split("."):
            target = getattr(target, part)
    except Exception as exc:
        raise where.error(f"cannot import {spec!r}: {type(exc).__name__}: {exc}") from None
    if not callable(target):
        raise where.error(f"{spec!r} is {describe(target)}, not a callable")
    return target  # type: ignore[no-any-return]


def _input(data: Any, where: Where) -> InputRules:
    _keys(data, _INPUT, where)
    patterns = _list(data.get("deny_patterns", []), where.child("deny_patterns"))
    reason = data.get("reason")
    if reason is not None and not isinstance(reason, str):
        raise where.child("reason").error(f"expected a string, got {describe(reason)}")
    return InputRules(
        max_length=data.get("max_length"), deny_patterns=patterns, reason=reason, where=where
    )


def _redact(data: Any, where: Where) -> Redactor:
    _keys(data, _REDACT, where)
    names = _list(data.get("patterns", list(BUILTIN_PATTERNS)), where.child("patterns"))
    chosen: list[RedactionPattern | str] = []
    for i, name in enumerate(names):
        if name not in BUILTIN_PATTERNS:
            shown = repr(name) if isinstance(name, str) else describe(name)
            raise (
                where.child("patterns")
                .item(i)
                .error(
                    f"{shown} is not a built-in pattern ({', '.join(BUILTIN_PATTERNS)}); add your "
                    "own under [[redact.custom]]"
                )
            )
        chosen.append(name)
    for i, item in enumerate(_list(data.get("custom", []), where.child("custom"))):
        here = where.child("custom").item(i)
        _keys(item, _CUSTOM, here)
        name, regex = item.get("name"), item.get("regex")
        if not isinstance(name, str) or not name:
            raise here.child("name").error(f"expected a non-empty string, got {describe(name)}")
        if not isinstance(regex, str):
            raise here.child("regex").error(f"expected a string, got {describe(regex)}")
        try:
            chosen.append(RedactionPattern(name, re.compile(regex)))
        except re.error as exc:
            raise here.child("regex").error(
                f"invalid regular expression {regex!r}: {exc}"
            ) from None
    targets = _list(data.get("targets", list(TARGETS)), where.child("targets"))
    for i, target in enumerate(targets):
        if target not in TARGETS:
            shown = repr(target) if isinstance(target, str) else describe(target)
            raise (
                where.child("targets").item(i).error(f"{shown} is not one of {', '.join(TARGETS)}")
            )
    replacement = data.get("replacement", "[REDACTED:{name}]")
    if not isinstance(replacement, str):
        raise where.child("replacement").error(f"expected a string, got {describe(replacement)}")
    try:
        return Redactor(chosen, replacement=replacement, targets=targets)
    except GuardConfigError as exc:  # the replacement format: name the file and key
        raise where.child(exc.key or "replacement").error(exc.problem) from None


__all__ = ["load_policy", "parse_policy", "policy_from_env", "policy_from_mapping"]
