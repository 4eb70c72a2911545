"""PII redaction: emails, phone numbers, card numbers (Luhn-checked) and API keys.

Patterns apply in order, each to the text the previous ones left, so an earlier pattern wins
where two overlap (the defaults run ``api_key``, ``email``, ``card``, ``phone``: a card number
is never half-redacted as a phone number). A pattern with a group named ``value`` replaces
only that group (``Bearer [REDACTED:api_key]`` keeps the scheme).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

from pydantic import BaseModel

from .settings import GuardConfigError

TARGETS = ("tool_results", "requests", "responses")
"""Where a ``Redactor`` can apply: tool results (``on_tool_call_result``), the messages of
provider requests (``pre_request``) and provider responses (``on_response``)."""


@dataclass(frozen=True)
class RedactionPattern:
    """A named pattern; ``validate`` (optional) confirms a match (the Luhn check for cards)."""

    name: str
    regex: re.Pattern[str]
    validate: Callable[[str], bool] | None = None


def luhn_valid(number: str) -> bool:
    """True when the digits of ``number`` pass the Luhn checksum (payment card numbers)."""
    digits = [int(c) for c in number if c.isdigit()]
    if len(digits) < 13:
        return False
    total = 0
    for i, d in enumerate(reversed(digits)):
        if i % 2:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def _phone_valid(text: str) -> bool:
    digits = sum(c.isdigit() for c in text)
    return 7 <= digits <= 15


EMAIL = RedactionPattern(
    "email",
    re.compile(r"(?<![\w.+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}"),
)
PHONE = RedactionPattern(
    "phone",
    re.compile(
        r"(?<![\w+])(?:"
        r"\+\d{1,3}(?:[ .-]?\(?\d{1,4}\)?){2,5}"  # +44 20 7946 0958, +14155552671
        r"|(?:\(\d{3}\)[ ]?|\d{3}[ .-])\d{3}[ .-]\d{4}"  # (415) 555-2671, 415-555-2671
        r")(?![\w])"
    ),
    _phone_valid,
)
CARD = RedactionPattern("card", re.compile(r"(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])"), luhn_valid)
API_KEY = RedactionPattern(
    "api_key",
    re.compile(
        r"\bsk-(?:proj-|ant-|live-|test-)?[A-Za-z0-9_-]{20,}"  # OpenAI / Anthropic / Stripe
        r"|\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"  # AWS access key id
        r"|\bgh[pousr]_[A-Za-z0-9]{36,}\b|\bgithub_pat_[A-Za-z0-9_]{22,}"  # GitHub tokens
        r"|\b[Bb]earer\s+(?P<value>[A-Za-z0-9._~+/-]{16,}=*)"  # any bearer token
    ),
)

BUILTIN_PATTERNS: dict[str, RedactionPattern] = {p.name: p for p in (API_KEY, EMAIL, CARD, PHONE)}
"""The built-in patterns by name, in the order they apply by default."""

Replacement = str | Callable[[RedactionPattern, str], str]


class Redactor:
    """Replaces what its patterns match with ``replacement`` (``"[REDACTED:{name}]"``).

    ``patterns``: built-in names and/or ``RedactionPattern`` objects, applied in order
    (default: every built-in). ``replacement``: a format string with ``{name}``, or a callable
    ``(pattern, matched_text) -> str``. ``targets``: any of ``TARGETS`` (default: all).
    """

    def __init__(
        self,
        patterns: Iterable[RedactionPattern | str] | None = None,
        *,
        replacement: Replacement = "[REDACTED:{name}]",
        targets: Iterable[str] = TARGETS,
    ) -> None:
        chosen: list[RedactionPattern] = []
        for item in BUILTIN_PATTERNS.values() if patterns is None else patterns:
            if isinstance(item, str):
                if item not in BUILTIN_PATTERNS:
                    raise GuardConfigError(
                        f"unknown redaction pattern {item!r}; built-in patterns: "
                        f"{', '.join(BUILTIN_PATTERNS)}",
                        key="patterns",
                    )
                item = BUILTIN_PATTERNS[item]
            chosen.append(item)
        self.patterns: tuple[RedactionPattern, ...] = tuple(chosen)
        self.targets = frozenset(targets)
        unknown = self.targets - set(TARGETS)
        if unknown:
            raise GuardConfigError(
                f"unknown redaction target {min(unknown)!r}; targets: {', '.join(TARGETS)}",
                key="targets",
            )
        if isinstance(replacement, str):
            try:  # a bad format string fails now, not in the middle of a run
                replacement.format(name="x")
            except (KeyError, IndexError, ValueError) as exc:
                raise GuardConfigError(
                    f"{replacement!r} is not a valid replacement: {type(exc).__name__}: {exc}; "
                    "use {name} for the pattern's name, e.g. '[REDACTED:{name}]'",
                    key="replacement",
                ) from None
        self.replacement = replacement

    def _replace(self, pattern: RedactionPattern, matched: str) -> str:
        if callable(self.replacement):
            return self.replacement(pattern, matched)
        return self.replacement.format(name=pattern.name)

    def redact(self, text: str) -> str:
        """``text`` with every match replaced (the same object when nothing matched)."""
        for pattern in self.patterns:
            text = pattern.regex.sub(partial(self._sub, pattern), text)
        return text

    def _sub(self, pattern: RedactionPattern, match: re.Match[str]) -> str:
        whole = match.group(0)
        if pattern.validate is not None and not pattern.validate(whole):
            return whole
        if "value" in pattern.regex.groupindex and match.group("value") is not None:
            start, end = match.span("value")
            offset = match.start()
            return (
                whole[: start - offset]
                + self._replace(pattern, match.group("value"))
                + whole[end - offset :]
            )
        return self._replace(pattern, whole)

    def redact_value(self, value: Any) -> Any:
        """``value`` with every string inside it redacted (dicts, lists, tuples, pydantic
        models as their JSON data); the same object when nothing changed."""
        if isinstance(value, str):
            redacted = self.redact(value)
            return value if redacted == value else redacted
        if isinstance(value, BaseModel):
            data = value.model_dump(mode="json")
            redacted_data = self.redact_value(data)
            return value if redacted_data is data else redacted_data
        if isinstance(value, Mapping):
            items = {k: self.redact_value(v) for k, v in value.items()}
            return value if all(items[k] is value[k] for k in items) else items
        if isinstance(value, (list, tuple)):
            seq = [self.redact_value(v) for v in value]
            if all(a is b for a, b in zip(seq, value)):
                return value
            return seq if isinstance(value, list) else tuple(seq)
        return value


__all__ = [
    "API_KEY",
    "BUILTIN_PATTERNS",
    "CARD",
    "EMAIL",
    "PHONE",
    "TARGETS",
    "RedactionPattern",
    "Redactor",
    "luhn_valid",
]
