"""The plugin contract and entry-point loading.

A plugin is either

- an object (or a class, instantiated without arguments) whose methods are named after events
  (``def pre_tool_call(self, ctx)``; aliases work too), with options per method through
  ``@hook(match=..., priority=..., guard=..., errors=...)`` or per plugin through the class
  attributes ``priority`` / ``guard`` / ``errors``; it may contribute ``middleware`` (a list)
  and may define ``setup(bus)`` for anything else; or
- a plain ``setup(bus)`` function (or a module that has one).

``bus.use(plugin)`` installs one and returns a disposer that removes everything it added.
Installed packages advertise plugins in the ``agenthooks.plugins`` entry-point group.

Mistakes fail loudly: a public method named like an event that does not exist
(``on_tool_result``) is an error naming the closest event; a second plugin of one name on a
bus is an error; a setup that raises leaves nothing behind (handlers, middleware, blinker
receivers, nested plugins); two installed distributions that claim one entry-point name are
an error naming both, and neither is loaded.
"""

from __future__ import annotations

import difflib
import inspect
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from importlib import metadata
from types import ModuleType
from typing import TYPE_CHECKING, Any, TypeVar

import blinker
import structlog

from .bus.registry import Disposer
from .errors import AgentHooksError, RegistrationError, UnknownEventError
from .events.catalog import ALIASES, CATALOG, resolve

if TYPE_CHECKING:
    from .bus import HookBus
    from .events.typed import HookDecorator

ENTRY_POINT_GROUP = "agenthooks.plugins"
DISABLE_ENV = "AGENTHOOKS_DISABLE_PLUGINS"

log = structlog.get_logger("agenthooks")
F = TypeVar("F", bound=Callable[..., Any])


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


@dataclass
class PluginInfo:
    """An installed plugin: its name, version, distribution and how to remove it."""

    name: str
    version: str | None
    distribution: str | None
    plugin: Any
    dispose: Disposer | None = field(default=None, repr=False)


def _hook(
    event: str | None = None,
    *,
    match: Any = None,
    priority: int | None = None,
    guard: bool | None = None,
    errors: str | None = None,
) -> Callable[[F], F]:
    """Mark a plugin method as a handler: of ``event`` (default: the method's name), with
    registration options. ``@hook(guard=True)`` on ``def pre_tool_call(self, ctx)``."""

    def mark(fn: F) -> F:
        fn.__agenthooks_hook__ = {  # type: ignore[attr-defined]
            "event": event,
            "match": match,
            "priority": priority,
            "guard": guard,
            "errors": errors,
        }
        return fn

    return mark


if TYPE_CHECKING:
    hook: HookDecorator
else:
    hook = _hook


def plugin_name(plugin: Any) -> str:
    """The name a plugin reports (``name`` attribute, else its class or function name)."""
    name = getattr(plugin, "name", None)
    if isinstance(name, str) and name:
        return name
    if inspect.isfunction(plugin) or isinstance(plugin, ModuleType):
        return str(plugin.__name__)
    return type(plugin).__name__


class _Collecting:
    """The bus as a plugin's ``setup(bus)`` sees it: every registration is remembered, so the
    plugin's disposer can undo all of them."""

    def __init__(self, bus: HookBus) -> None:
        self._bus = bus
        self.disposers: list[Callable[[], None]] = []

    def on(self, event: str, handler: Any = None, **options: Any) -> Any:
        return self._keep(self._bus.on(event, handler, **options), event, "on", options)

    def once(self, event: str, handler: Any = None, **options: Any) -> Any:
        return self._keep(self._bus.once(event, handler, **options), event, "once", options)

    def use(self, item: Any) -> Disposer:
        dispose = self._bus.use(item)
        self.disposers.append(dispose)
        return dispose

    def signal(self, event: str) -> _TrackedSignal:
        """The bus's blinker signal, with every receiver connected through it remembered."""
        return _TrackedSignal(self._bus.signal(event), self.disposers)

    @property
    def target(self) -> HookBus:
        """The bus the plugin is being installed on."""
        return self._bus

    def _keep(self, result: Any, event: str, how: str, options: dict[str, Any]) -> Any:
        if isinstance(result, Disposer):
            self.disposers.append(result)
            return result

        def decorate(fn: Any) -> Any:  # decorator form: register through the disposer path
            getattr(self, how)(event, fn, **options)
            return fn

        return decorate

    def __getattr__(self, name: str) -> Any:
        return getattr(self._bus, name)


class _TrackedSignal:
    """A blinker signal as a plugin's ``setup`` sees it: ``connect`` also records how to
    disconnect, so removing the plugin (or a failed setup) disconnects its receivers."""

    def __init__(self, signal: Any, disposers: list[Callable[[], None]]) -> None:
        self._signal = signal
        self._disposers = disposers

    def connect(self, receiver: Any, sender: Any = None, weak: bool = False) -> Any:
        result = self._signal.connect(receiver, blinker.ANY if sender is None else sender, weak)
        # for every sender: blinker keeps a receiver disconnected from one sender listed
        self._disposers.append(lambda: self._signal.disconnect(receiver))
        return result

    def connect_via(self, sender: Any, weak: bool = False) -> Callable[[F], F]:
        def decorate(fn: F) -> F:
            self.connect(fn, sender, weak)
            return fn

        return decorate

    def __getattr__(self, name: str) -> Any:
        return getattr(self._signal, name)


def install(bus: HookBus, plugin: Any) -> Disposer:
    """Install ``plugin`` on ``bus``; the disposer removes every handler, middleware and
    blinker receiver it added and calls the plugin's ``teardown()`` if it has one.

    A plugin whose name is installed on ``bus`` already is a ``RegistrationError`` (remove
    the first, or give the second another name); a setup that raises leaves nothing behind.
    """
    from .bus import Disposer

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
    collecting = _Collecting(bus)
    try:
        if inspect.isfunction(plugin) or isinstance(plugin, ModuleType):
            setup = getattr(plugin, "setup", plugin) if isinstance(plugin, ModuleType) else plugin
            if not callable(setup):
                raise RegistrationError(f"plugin module {plugin_name(plugin)!r} has no setup(bus)")
            extra = setup(collecting)
        else:
            _register_methods(collecting, plugin)
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
    info = PluginInfo(name, _version(plugin), None, plugin)
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


def _register_methods(bus: _Collecting, plugin: Any) -> None:
    defaults = {
        k: getattr(plugin, k)
        for k in ("priority", "guard", "errors")
        if getattr(plugin, k, None) is not None
    }
    found = 0
    for attr in dir(type(plugin)):
        if attr.startswith("_"):
            continue
        method = getattr(plugin, attr, None)
        if not callable(method):
            continue
        marks = getattr(method, "__agenthooks_hook__", None)
        event = (marks or {}).get("event") or attr
        if event not in CATALOG and event not in ALIASES:
            if marks is not None:
                bus.on(event, method)  # raises UnknownEventError with suggestions
            elif looks_like_event(attr):
                raise _misnamed(plugin, attr)
            continue
        options = dict(defaults)
        options.update({k: v for k, v in (marks or {}).items() if k != "event" and v is not None})
        bus.on(event, method, **options)
        found += 1
    if (
        not found
        and not getattr(plugin, "middleware", None)
        and not callable(getattr(plugin, "setup", None))
    ):
        raise RegistrationError(
            f"{plugin_name(plugin)!r} is neither Middleware nor a plugin: it has no method named "
            "after an event, no middleware and no setup(bus)"
        )


_EVENTISH = re.compile(
    r"^(?:(?:on|pre|post|before|after)_|(?:on|On|pre|Pre|post|Post|before|Before|after|After)[A-Z])"
)
_EVENT_NAMES = (*CATALOG, *ALIASES)


def looks_like_event(name: str) -> bool:
    """True for a method name that reads as an event (``on_…``, ``pre_…``, ``onToolEnd``,
    ``BeforeRun``) or is one typo away from one: in a plugin, such a method that names no event
    would be skipped in silence, so it is an error instead."""
    if name in CATALOG or name in ALIASES:
        return True
    if _EVENTISH.match(name):
        return True
    return bool(difflib.get_close_matches(name, _EVENT_NAMES, n=1, cutoff=0.85))


def _misnamed(plugin: Any, attr: str) -> UnknownEventError:
    suggestions: list[str] = []
    try:
        resolve(attr)
    except UnknownEventError as exc:
        suggestions = exc.suggestions
    hint = f"did you mean {suggestions[0]!r}? " if suggestions else ""
    error = UnknownEventError(attr, suggestions)
    error.args = (
        f"plugin {plugin_name(plugin)!r}: method {attr!r} is named like an event, but there is "
        f"no event {attr!r}; {hint}(a method that is not a hook: start its name with '_')",
    )
    return error


def _version(plugin: Any) -> str | None:
    version = getattr(plugin, "version", None) or getattr(plugin, "__version__", None)
    return str(version) if version is not None else None


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
                plugin = plugin()
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
    "PluginInfo",
    "disabled_names",
    "entry_points",
    "hook",
    "install",
    "load_entry_point_plugins",
    "looks_like_event",
    "plugin_name",
]
