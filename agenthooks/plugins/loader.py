"""Installed plugins: the ``agenthooks.plugins`` entry points, switched off by name with
``AGENTHOOKS_DISABLE_PLUGINS``, loaded onto a bus; a plugin that fails to load is a
``PluginError``."""

from __future__ import annotations

import inspect
import os
from collections.abc import Iterable
from importlib import metadata
from typing import TYPE_CHECKING

import structlog

from ..errors import AgentHooksError, RegistrationError
from .installing import PluginInfo, install
from .methods import plugin_name

if TYPE_CHECKING:
    from ..bus import HookBus

ENTRY_POINT_GROUP = "agenthooks.plugins"
DISABLE_ENV = "AGENTHOOKS_DISABLE_PLUGINS"

log = structlog.get_logger("agenthooks")


class PluginError(AgentHooksError):
    """A plugin failed to import or to set up; names the plugin and its distribution."""

    def __init__(self, name: str, distribution: str | None, error: BaseException) -> None:
        self.name = name
        self.distribution = distribution
        self.error = error
        where = f" (distribution {distribution})" if distribution else ""
        super().__init__(f"plugin {name!r}{where} failed: {type(error).__name__}: {error}")


class PluginConflictError(PluginError):
    """Two installed distributions claim one plugin name: neither is loaded, since loading
    either one would silently drop the other (a policy plugin replaced by an impostor)."""

    def __init__(self, name: str, claims: list[metadata.EntryPoint]) -> None:
        self.claims = claims
        shown = " and ".join(_claim(ep) for ep in claims)
        problem = RegistrationError(
            f"{len(claims)} installed distributions claim the plugin name {name!r}: {shown}; "
            f"neither is loaded. Uninstall the one you do not want, or switch the name off "
            f"with {DISABLE_ENV}={name}"
        )
        super().__init__(name, ", ".join(_dist_name(ep) for ep in claims), problem)
        self.args = (str(problem),)

    def __str__(self) -> str:
        return str(self.args[0])


def _dist_name(ep: metadata.EntryPoint) -> str:
    return ep.dist.name if ep.dist is not None else "an unknown distribution"


def _claim(ep: metadata.EntryPoint) -> str:
    version = f" {ep.dist.version}" if ep.dist is not None else ""
    return f"{_dist_name(ep)}{version} ({ep.value})"


def entry_points() -> list[metadata.EntryPoint]:
    """The installed plugins' entry points, sorted by name (the same order on every machine)."""
    return sorted(metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: ep.name)


def disabled_names() -> set[str]:
    """Plugin names switched off by ``AGENTHOOKS_DISABLE_PLUGINS=a,b``."""
    return {n.strip() for n in os.environ.get(DISABLE_ENV, "").split(",") if n.strip()}


def load_entry_point_plugins(
    bus: HookBus, names: Iterable[str] | None = None, *, strict: bool = False
) -> list[PluginInfo]:
    """Install entry-point plugins (all, or ``names``) on ``bus``; failures are logged and kept
    in ``bus.plugin_errors`` unless ``strict``, which raises the first ``PluginError``.

    Two distributions that claim one name raise ``PluginConflictError`` whatever ``strict``
    says: skipping both would fail open (no policy at all), loading one would be a guess."""
    wanted = None if names is None else set(names)
    off = disabled_names()
    claims: dict[str, list[metadata.EntryPoint]] = {}
    for ep in entry_points():
        claims.setdefault(ep.name, []).append(ep)
    for name, eps in claims.items():
        dists = {_dist_name(ep) for ep in eps}
        if len(dists) > 1 and name not in off and (wanted is None or name in wanted):
            raise PluginConflictError(name, sorted(eps, key=_dist_name))
    available = {name: eps[0] for name, eps in claims.items()}
    if wanted is not None:
        for missing in sorted(wanted - set(available)):
            error = PluginError(
                missing,
                None,
                LookupError(f"no installed plugin of that name; installed: {sorted(available)}"),
            )
            _report(bus, error, strict)
    loaded = []
    for name, ep in available.items():
        if (wanted is not None and name not in wanted) or name in off:
            continue
        dist = ep.dist.name if ep.dist is not None else None
        try:
            plugin = ep.load()
            if inspect.isclass(plugin):
                # a plugin configured by the environment builds itself with from_env()
                from_env = getattr(plugin, "from_env", None)
                plugin = from_env() if callable(from_env) else plugin()
            if getattr(plugin, "name", None) is None and not inspect.isfunction(plugin):
                try:
                    plugin.name = name
                except AttributeError:
                    pass
            install(bus, plugin)
        except Exception as exc:
            _report(bus, PluginError(name, dist, exc), strict)
            continue
        info = bus.plugins.get(plugin_name(plugin))
        if info is not None:
            info.distribution = dist
            info.version = info.version or (ep.dist.version if ep.dist is not None else None)
            loaded.append(info)
    return loaded


def _report(bus: HookBus, error: PluginError, strict: bool) -> None:
    if strict:
        raise error
    bus.plugin_errors.append(error)
    log.error(
        "plugin_failed",
        plugin=error.name,
        distribution=error.distribution,
        error=f"{type(error.error).__name__}: {error.error}",
    )


__all__ = [
    "DISABLE_ENV",
    "ENTRY_POINT_GROUP",
    "PluginConflictError",
    "PluginError",
    "disabled_names",
    "entry_points",
    "load_entry_point_plugins",
]
