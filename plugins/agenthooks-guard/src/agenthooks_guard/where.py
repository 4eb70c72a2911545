"""Where a configuration value sits (``policy.toml``, ``rules[2].action``), for error messages."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass

from .settings import GuardConfigError


@dataclass(frozen=True)
class Where:
    """A file (or ``None`` for code) and the dotted key of one value in it."""

    source: str | None = None
    key: str = ""

    def child(self, name: str) -> Where:
        """The key ``name`` inside this value."""
        return Where(self.source, f"{self.key}.{name}" if self.key else name)

    def item(self, index: int) -> Where:
        """The ``index``-th item (0-based) of this list."""
        return Where(self.source, f"{self.key}[{index}]")

    def error(self, problem: str) -> GuardConfigError:
        """A ``GuardConfigError`` naming this place."""
        return GuardConfigError(problem, source=self.source, key=self.key or None)

    def unknown_key(self, key: str, known: Iterable[str]) -> GuardConfigError:
        """``rules[0].acton: unknown key; did you mean 'action'?``."""
        known = sorted(known)
        close = difflib.get_close_matches(key, known, n=1)
        hint = f"did you mean {close[0]!r}?" if close else f"known keys: {', '.join(known)}"
        return self.child(key).error(f"unknown key; {hint}")


def describe(value: object) -> str:
    """A value as an error message shows it: its type and repr."""
    return f"{type(value).__name__} {value!r}"


__all__ = ["Where", "describe"]
