"""A bridge never runs a handler less than it promises in silence: what the bus asks of the
framework is checked against what the bridge fires.

- A plugin's declared needs (``agenthooks.plugins.Need``) on an event the bridge never fires:
  ``MissingEventError`` at set-up (the bridge's constructor) and when a run starts.
- A user's handler whose return changes the run (an interceptor, a predicate such as
  ``should_stop``) on such an event: ``UnfiredEventError`` when a run starts with it.
- An observer of such an event: one ``UnfiredEventWarning`` per bridge and event.

A plugin's own handlers are governed by the needs it declares: a plugin that handles an event
only where it exists (the guard's ``pre_handoff``, on a framework without handoffs) states no
need for it. A handler marked ``everywhere`` (a recorder listening to every event on purpose)
is neither.
"""

from __future__ import annotations

import warnings
import weakref
from collections.abc import Callable
from typing import Any, TypeVar

from ..bus import HookBus
from ..errors import ConfigError
from ..events.catalog import CATALOG
from ..plugins.needs import MissingEventError, needs_of
from .capabilities import Capabilities

F = TypeVar("F", bound=Callable[..., Any])

_IGNORED = frozenset({"on_event"})
"""Heard by a record listener on every event: it asks nothing of any one."""

_EVERYWHERE = "__agenthooks_everywhere__"

_warned: set[tuple[str, str, str]] = set()
_checked: weakref.WeakKeyDictionary[HookBus, dict[str, int]] = weakref.WeakKeyDictionary()
"""Per bus, per framework: the bus version last checked (a bus is checked once per change)."""


class UnfiredEventError(ConfigError):
    """A handler that may change a run is registered on an event the bridge never fires.

    Attributes:
        event: The event.
        handler: The handler's label.
        framework: The bridged framework.
    """

    def __init__(self, event: str, handler: str, framework: str, why: str = "") -> None:
        self.event = event
        self.handler = handler
        self.framework = framework
        because = f": {why}" if why else ""
        super().__init__(
            f"{handler} on {event!r} can change the run, but {framework} never fires "
            f"{event!r}{because}; it would never be called"
        )


class UnfiredEventWarning(UserWarning):
    """An observer is registered on an event the bridge never fires: it will not be called."""


def everywhere(handler: F) -> F:
    """Mark ``handler`` as listening to every event on purpose (a recorder): a bridge that
    never fires one of its events neither refuses nor warns about it."""
    setattr(handler, _EVERYWHERE, True)
    return handler


def check_plugins(bus: HookBus, capabilities: Capabilities) -> None:
    """Raise for the first plugin on ``bus`` whose declared needs ``capabilities`` cannot
    keep.

    Raises:
        MissingEventError: Naming the plugin, the option, the framework and the event.
    """
    for name, info in bus.plugins.items():
        for need in needs_of(info.plugin):
            for event in sorted(need.events - capabilities.fires):
                raise MissingEventError(name, need.option, capabilities.framework, event, need.why)


def check_bus(bus: HookBus, capabilities: Capabilities) -> None:
    """Everything the bus asks of the framework, checked once per change of the bus.

    Raises:
        MissingEventError: A plugin's need cannot be kept.
        UnfiredEventError: A user's interceptor or predicate is on an event never fired.
    """
    versions = _checked.setdefault(bus, {})
    if versions.get(capabilities.framework) == bus.version:
        return
    check_plugins(bus, capabilities)
    owned = {id(h) for info in bus.plugins.values() for _, h in info.handlers}
    for event in sorted(set(bus.chains) - capabilities.fires - _IGNORED):
        spec = CATALOG[event]
        for handler in bus.handlers(event):
            if id(handler) in owned or getattr(handler, _EVERYWHERE, False):
                continue
            label = _label(handler)
            why = capabilities.gaps.get(event, "")
            if spec.kind != "observer":
                raise UnfiredEventError(event, label, capabilities.framework, why)
            seen = (capabilities.framework, event, label)
            if seen not in _warned:
                _warned.add(seen)
                warnings.warn(
                    f"{label} observes {event!r}, which {capabilities.framework} never fires: "
                    "it will not be called",
                    UnfiredEventWarning,
                    stacklevel=2,
                )
    versions[capabilities.framework] = bus.version


def _label(handler: Any) -> str:
    name = getattr(handler, "__qualname__", None) or type(handler).__name__
    return f"handler {name!r}"


__all__ = ["UnfiredEventError", "UnfiredEventWarning", "check_bus", "check_plugins", "everywhere"]
