"""The event catalog, derived from the declarations in ``contexts.py`` (each context class
carries its event's ``@event`` declaration): name to ``EventSpec``, the seed aliases, the
groups the runtime asks about at once, and name resolution (``spec/events.md`` is the
contract)."""

from __future__ import annotations

import difflib

from ..errors import UnknownEventError
from . import contexts
from .spec import EventSpec, Kind


def declared() -> list[EventSpec]:
    """Every ``@event`` declaration in ``contexts.py``, in the order of the file."""
    found: dict[str, EventSpec] = {}
    for value in vars(contexts).values():
        # a class declares its own event (its spec names it); a subclass inherits ``spec``
        # without declaring one, and a former name (``ToolResultContext``) is the same class
        spec = getattr(value, "spec", None) if isinstance(value, type) else None
        if isinstance(spec, EventSpec) and spec.context is value:
            found.setdefault(spec.name, spec)
    return list(found.values())


CATALOG: dict[str, EventSpec] = {spec.name: spec for spec in declared()}
"""Every event by canonical name."""

ALIASES: dict[str, str] = {a: s.name for s in CATALOG.values() for a in s.aliases}
"""Each seed alias and the canonical name it stands for."""


def resolve(name: str) -> EventSpec:
    """The spec of a canonical event name or alias; ``UnknownEventError`` suggests the closest."""
    spec = CATALOG.get(name)
    if spec is not None:
        return spec
    canonical = ALIASES.get(name)
    if canonical is not None:
        return CATALOG[canonical]
    if not isinstance(name, str):
        raise UnknownEventError(repr(name), [])
    close = difflib.get_close_matches(name, [*CATALOG, *ALIASES], n=3, cutoff=0.6)
    if not close:
        close = difflib.get_close_matches(name.lower(), list(CATALOG), n=3, cutoff=0.4)
    raise UnknownEventError(name, close)


EVENT_NAMES: tuple[str, ...] = tuple(CATALOG)

GROUPS: dict[str, frozenset[str]] = {
    group: frozenset(s.name for s in CATALOG.values() if group in s.groups)
    for group in sorted({g for s in CATALOG.values() for g in s.groups})
}
"""Each group's events, derived from the declarations."""

__all__ = [
    "ALIASES",
    "CATALOG",
    "EVENT_NAMES",
    "GROUPS",
    "EventSpec",
    "Kind",
    "resolve",
]
