"""What a plugin needs to keep its promises: per option, the events that must fire for it to
act. A host that cannot fire one of them (a bridge to a framework without that lifecycle
point) refuses the plugin at set-up instead of running it doing less than it says.

A plugin declares them with a ``needs()`` method returning ``Need`` values for the options it
was configured with (an option left unset needs nothing)::

    def needs(self) -> list[Need]:
        if self.max_turns is None:
            return []
        return [Need("max_turns", {"prepare_next_turn"}, "a turn cap is checked between turns")]
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigError
from ..events.catalog import resolve


@dataclass(frozen=True)
class Need:
    """One promise of a plugin and the events it rests on.

    Args:
        option: The option that makes the promise (``"max_turns"``, ``"redact"``).
        events: The canonical names of the events that must fire for it.
        why: What the plugin does at those events (one clause).

    Raises:
        UnknownEventError: An event name is not in the catalog.
    """

    option: str
    events: frozenset[str]
    why: str = ""

    def __init__(self, option: str, events: Iterable[str], why: str = "") -> None:
        object.__setattr__(self, "option", option)
        object.__setattr__(self, "events", frozenset(resolve(e).name for e in events))
        object.__setattr__(self, "why", why)


class MissingEventError(ConfigError):
    """A plugin was installed where an event one of its options needs never fires.

    Attributes:
        plugin: The plugin's name.
        option: The option whose promise cannot be kept.
        framework: What runs the agent (a bridged framework's name).
        event: The event that never fires there.
    """

    def __init__(self, plugin: str, option: str, framework: str, event: str, why: str = "") -> None:
        self.plugin = plugin
        self.option = option
        self.framework = framework
        self.event = event
        because = f" ({why})" if why else ""
        super().__init__(
            f"plugin {plugin!r}: option {option!r} needs {event!r}{because}, which {framework} "
            f"never fires; remove the option or run the agent where {event!r} fires"
        )


def needs_of(plugin: Any) -> list[Need]:
    """The needs ``plugin`` declares (none without a ``needs()`` method).

    Raises:
        TypeError: ``needs()`` returned something other than ``Need`` values.
    """
    declare = getattr(plugin, "needs", None)
    if not callable(declare):
        return []
    found = list(declare())
    for need in found:
        if not isinstance(need, Need):
            raise TypeError(
                f"{type(plugin).__name__}.needs() must return Need values, not {need!r}"
            )
    return found


__all__ = ["MissingEventError", "Need", "needs_of"]
