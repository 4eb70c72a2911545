"""What a bridge fires and honours, declared once: the docs' capability table and
``agenthooks bridges`` are generated from these declarations, and each bridge's tests pin its
declaration to behaviour."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any

from ..errors import ConfigError, UnsupportedReturnError
from ..events.catalog import CATALOG, resolve

ENTRY_POINT_GROUP = "agenthooks.bridges"
"""The entry-point group a bridge distribution registers its ``Capabilities`` under."""

DECISIONS = frozenset({"deny", "ask"})
"""The names ``honours`` uses for ``Deny(...)`` and ``Ask(...)`` returns."""

VERDICT = "true"
"""The name ``honours`` uses for a predicate's ``True`` (``should_stop``: stop the run)."""


@dataclass(frozen=True)
class Capabilities:
    """One bridge's declaration: the events it fires and the returns it carries out.

    Args:
        framework: The framework's display name (``"LangChain"``).
        distribution: The distribution that holds the bridge (``"agenthooks-langchain"``).
        setup: The one line a user of that framework writes.
        fires: The canonical names of the events the bridge fires.
        honours: Per interceptor or predicate event, the returns the bridge carries out: return
            keys, ``"deny"`` and ``"ask"`` for ``Deny(...)`` and ``Ask(...)``, ``"true"`` for a
            predicate's ``True``.
        gaps: What the framework cannot do, keyed by ``"event"`` or ``"event.key"``, with why.

    Raises:
        UnknownEventError: An event name is not in the catalog (the error names the closest).
        ConfigError: A return key is not one the event's handlers may return.
    """

    framework: str
    distribution: str
    setup: str
    fires: frozenset[str]
    honours: Mapping[str, frozenset[str]] = field(default_factory=dict)
    gaps: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in (*self.fires, *self.honours):
            spec = resolve(name)
            if spec.name != name:
                raise ConfigError(f"{self.framework}: name the event {spec.name!r}, not {name!r}")
        for name, keys in self.honours.items():
            valid = returns(name)
            wrong = set(keys) - valid
            if wrong:
                raise ConfigError(
                    f"{self.framework}: {name!r} handlers cannot return {sorted(wrong)}; "
                    f"they may return {sorted(valid)}"
                )
            if name not in self.fires:
                raise ConfigError(f"{self.framework}: honours {name!r} but does not fire it")

    def honoured(self, event: str, key: str) -> bool:
        """Whether the bridge carries out ``key`` (a return key, ``"deny"`` or ``"ask"``)
        returned by a handler of ``event``."""
        return key in self.honours.get(event, ())

    def unhonoured(self) -> list[tuple[str, str]]:
        """Every ``(event, key)`` a handler of a fired event may return that the bridge does
        not carry out (``require`` raises for each), sorted: what a capability test pins."""
        return sorted(
            (event, key)
            for event in self.fires
            for key in returns(event)
            if not self.honoured(event, key)
        )

    def require(self, event: str, key: str) -> None:
        """Raise ``UnsupportedReturnError`` unless the bridge carries out ``key`` for ``event``.

        Raises:
            UnsupportedReturnError: Naming the event, the return and the framework, with the
                declared reason when ``gaps`` has one.
        """
        if not self.honoured(event, key):
            why = self.gaps.get(f"{event}.{key}") or self.gaps.get(event, "")
            raise UnsupportedReturnError(event, key, self.framework, why)

    def describe(self) -> dict[str, Any]:
        """The declaration as plain data (``agenthooks bridges --json``)."""
        return {
            "framework": self.framework,
            "distribution": self.distribution,
            "setup": self.setup,
            "fires": [name for name in CATALOG if name in self.fires],
            "honours": {
                name: sorted(self.honours[name]) for name in CATALOG if name in self.honours
            },
            "gaps": dict(self.gaps),
        }


def returns(event: str) -> frozenset[str]:
    """The return keys a handler of ``event`` may give: its context's return fields,
    ``"deny"`` / ``"ask"`` where the event takes ``Deny(...)`` / ``Ask(...)``, and ``"true"``
    for a predicate (whose ``True`` changes the run as much as an interceptor's return)."""
    spec = CATALOG[event]
    decisions = {"deny"} if spec.deny else set()
    if spec.ask:
        decisions.add("ask")
    if spec.kind == "predicate":
        decisions.add(VERDICT)
    return frozenset(spec.returns) | decisions


def installed_bridges() -> dict[str, Capabilities]:
    """The declarations of the bridges installed here, by entry-point name, sorted.

    Raises:
        ConfigError: An entry point does not load, or does not name a ``Capabilities``.
    """
    found: dict[str, Capabilities] = {}
    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: ep.name):
        try:
            value = ep.load()
        except Exception as exc:
            raise ConfigError(
                f"bridge entry point {ep.name!r} ({ep.value}) does not load: "
                f"{type(exc).__name__}: {exc}"
            ) from exc
        if not isinstance(value, Capabilities):
            raise ConfigError(
                f"bridge entry point {ep.name!r} ({ep.value}) names "
                f"{type(value).__name__}, not agenthooks.bridges.Capabilities"
            )
        found[ep.name] = value
    return found


def capability_table(bridges: Mapping[str, Capabilities]) -> str:
    """A Markdown table: one row per event any bridge fires, one column per bridge; a cell
    lists what the bridge does with that event (fires it, and which returns it honours)."""
    names = list(bridges)
    header = "| event | " + " | ".join(bridges[n].framework for n in names) + " |"
    rows = [header, "|---|" + "---|" * len(names)]
    for event in CATALOG:
        if not any(event in bridges[n].fires for n in names):
            continue
        cells = []
        for n in names:
            caps = bridges[n]
            if event not in caps.fires:
                cells.append("-")
                continue
            keys = sorted(caps.honours.get(event, ()))
            cells.append(", ".join(_label(k) for k in keys) if keys else "fires")
        rows.append(f"| `{event}` | " + " | ".join(cells) + " |")
    return "\n".join(rows) + "\n"


def _label(key: str) -> str:
    return {"deny": "Deny", "ask": "Ask", VERDICT: "True"}.get(key, f"`{key}`")


__all__ = [
    "DECISIONS",
    "ENTRY_POINT_GROUP",
    "VERDICT",
    "Capabilities",
    "capability_table",
    "installed_bridges",
    "returns",
]
