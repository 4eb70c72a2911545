"""Installing a plugin on a bus: what ``bus.use(plugin)`` does, and what the bus keeps of it
(``bus.plugins``)."""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any

from ..disposer import Disposer
from ..errors import RegistrationError
from .collecting import Collecting
from .methods import plugin_name, register_methods

if TYPE_CHECKING:
    from ..bus import HookBus


@dataclass
class PluginInfo:
    """An installed plugin: its name, version, distribution and how to remove it."""

    name: str
    version: str | None
    distribution: str | None
    plugin: Any
    dispose: Disposer | None = field(default=None, repr=False)
    handlers: list[tuple[str, Any]] = field(default_factory=list, repr=False)
    """Each ``(event, handler)`` the plugin registered."""


def install(bus: HookBus, plugin: Any) -> Disposer:
    """Install ``plugin`` on ``bus``; the disposer removes every handler, middleware and
    blinker receiver it added and calls the plugin's ``teardown()`` if it has one.

    A plugin whose name is installed on ``bus`` already is a ``RegistrationError`` (remove
    the first, or give the second another name); a setup that raises leaves nothing behind.
    """
    if inspect.isclass(plugin):
        plugin = plugin()
    name = plugin_name(plugin)
    existing = bus.plugins.get(name)
    if existing is not None:
        same = "this very plugin" if existing.plugin is plugin else repr(existing.plugin)
        raise RegistrationError(
            f"a plugin named {name!r} is installed on this bus already ({same}); remove it "
            f"first (bus.plugins[{name!r}].dispose()) or give this one another name"
        )
    collecting = Collecting(bus)
    try:
        if inspect.isfunction(plugin) or isinstance(plugin, ModuleType):
            setup = getattr(plugin, "setup", plugin) if isinstance(plugin, ModuleType) else plugin
            if not callable(setup):
                raise RegistrationError(f"plugin module {plugin_name(plugin)!r} has no setup(bus)")
            extra = setup(collecting)
        else:
            register_methods(collecting, plugin)
            for mw in getattr(plugin, "middleware", None) or ():
                collecting.use(mw)
            setup = getattr(plugin, "setup", None)
            extra = setup(collecting) if callable(setup) else None
    except BaseException:
        for dispose in reversed(collecting.disposers):
            dispose()
        raise
    if callable(extra):
        collecting.disposers.append(extra)
    info = PluginInfo(name, _version(plugin), None, plugin, handlers=collecting.handlers)
    teardown = getattr(plugin, "teardown", None)

    def remove() -> None:
        for dispose in reversed(collecting.disposers):
            dispose()
        if callable(teardown):
            teardown()
        if bus.plugins.get(info.name) is info:
            del bus.plugins[info.name]

    info.dispose = Disposer(remove)
    bus.plugins[info.name] = info
    return info.dispose


def _version(plugin: Any) -> str | None:
    version = getattr(plugin, "version", None) or getattr(plugin, "__version__", None)
    return str(version) if version is not None else None


__all__ = ["PluginInfo", "install"]
