"""HookBus: register hooks (``on`` / ``once`` / ``off``), middleware and plugins; dispatch is
the ``Dispatcher``'s one loop."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import blinker

from ..errors import RegistrationError
from ..events.catalog import CATALOG, resolve
from ..middleware import Middleware, Stack
from ..plugins import install, load_entry_point_plugins
from .dispatch import Dispatcher
from .registry import (
    NO_CHAINS,
    Disposer,
    ErrorPolicy,
    Handler,
    Matcher,
    Registration,
    check_options,
    check_takes_context,
    compile_matcher,
    match_items,
    order,
)
from .signals import BusSignal

if TYPE_CHECKING:
    from ..events import EventName
    from ..events.typed import OnMethod
    from ..plugins import PluginError, PluginInfo

H = TypeVar("H", bound=Handler)


class HookBus(Dispatcher):
    """The central bus: register hooks with ``on`` / ``once`` / ``off``, add middleware and
    plugins with ``use``; the runtime fires each lifecycle point through ``emit`` (observers),
    ``intercept`` (interceptor folds) and ``check`` (predicates), one loop underneath.

    Args:
        errors: What a handler's exception does. ``"raise"`` (default): it ends the run and
            reaches the caller. ``"isolate"``: it is logged and counts as ``None`` (as
            ``Deny`` in a gate). A registration's own ``errors=`` overrides it.
        plugins: ``"auto"`` loads every installed plugin of the ``agenthooks.plugins`` entry
            points (the same as calling ``load_plugins()``); a list of names loads those;
            ``None`` (default) loads none.
        strict: With ``plugins``: a plugin that fails to load raises its ``PluginError``
            instead of being reported in ``plugin_errors``.

    Raises:
        RegistrationError: ``errors`` is neither ``"raise"`` nor ``"isolate"``.
    """

    def __init__(
        self,
        *,
        errors: ErrorPolicy = "raise",
        plugins: Literal["auto"] | Iterable[str] | None = None,
        strict: bool = False,
    ) -> None:
        if errors not in ("raise", "isolate"):
            raise RegistrationError(f"errors= must be 'raise' or 'isolate', not {errors!r}")
        self.errors = errors
        self._registrations: dict[str, list[Registration]] = {}
        self.chains = {}
        self.signals = {}
        self.listened = frozenset()
        self.after = frozenset()
        self.records = False
        self._inherited: tuple[HookBus, ...] = ()
        self.middleware: tuple[Middleware, ...] = ()
        """The middleware added with ``use``, in the order added (first outermost)."""
        self.stacks: dict[str, Stack] = {}
        """The middleware per stack name (``"provider"``, ``"tool"``), as each declares."""
        self.version = 0
        """Counts registration changes; what is built from the registrations (the call
        stacks) is rebuilt when it moves."""
        self.plugins: dict[str, PluginInfo] = {}
        """Installed plugins by name."""
        self.plugin_errors: list[PluginError] = []
        """Entry-point plugins that failed to load (when not ``strict``)."""
        if plugins is not None:
            self.load_plugins(None if plugins == "auto" else list(plugins), strict=strict)

    # registration -------------------------------------------------------------------------

    if TYPE_CHECKING:
        on: OnMethod
        once: OnMethod
    else:

        def on(
            self,
            event: EventName | str,
            handler: Handler | None = None,
            *,
            match: Matcher | None = None,
            priority: int = 0,
            errors: ErrorPolicy | None = None,
            guard: bool = False,
        ) -> Disposer | Callable[[H], H]:
            """Register ``handler`` on ``event``.

            Args:
                event: A canonical event name or an alias of one.
                handler: Called with the event's context; omit it to use ``on`` as a
                    decorator.
                match: Tool, sub-agent and handoff events only: the names it handles (a
                    name, a compiled regex or a list of those).
                priority: Higher runs earlier; equal priorities run in registration order.
                errors: ``"raise"`` or ``"isolate"`` for this handler; ``None``: the bus's.
                guard: Put it in the guard tier: after every ordinary handler, never skipped
                    by their short-circuits, fail closed.

            Returns:
                A disposer that removes it (also a context manager); without ``handler``,
                    a decorator that registers the function and returns it unchanged.

            Raises:
                UnknownEventError: ``event`` is not an event; it names the closest ones.
                RegistrationError: An option is invalid, ``match`` on an event without
                    names, or a handler that cannot take the context.
            """
            return self._register(event, handler, match, priority, errors, guard, False)

        def once(self, event, handler=None, *, match=None, priority=0, errors=None, guard=False):
            """Like ``on``, but the handler is removed before its first call."""
            return self._register(event, handler, match, priority, errors, guard, True)

    def add_hook(
        self,
        event: EventName | str,
        handler: Handler,
        *,
        match: Matcher | None = None,
        priority: int = 0,
        errors: ErrorPolicy | None = None,
        guard: bool = False,
    ) -> Disposer:
        """Seed 000's spelling of ``on`` with a handler: returns the idempotent disposer."""
        return self._register(event, handler, match, priority, errors, guard, False)  # type: ignore[return-value]

    def off(self, event: EventName | str, handler: Handler) -> bool:
        """Remove every registration of ``handler`` on ``event``.

        Returns:
            True if one was removed.
        """
        spec = resolve(event)
        found = [
            r for r in self._registrations.get(spec.name, ()) if r.fn is handler or r.fn == handler
        ]
        for reg in found:
            self._remove(reg)
        return bool(found)

    @contextmanager
    def connected(
        self, event: EventName | str, handler: Handler, **options: Any
    ) -> Iterator[Handler]:
        """``with bus.connected(event, handler):`` is ``with bus.on(event, handler):`` (the
        disposer is a context manager too); kept for blinker's spelling."""
        with self.on(event, handler, **options):
            yield handler

    def _register(
        self,
        event: str,
        handler: Handler | None,
        match: Matcher | None,
        priority: int,
        errors: ErrorPolicy | None,
        guard: bool,
        once: bool,
    ) -> Disposer | Callable[[H], H]:
        spec = resolve(event)
        matcher = compile_matcher(spec, match)
        check_options(priority, errors)
        items = match_items(match)

        def register(fn: Handler) -> Registration:
            if callable(fn):  # Registration refuses what is not callable
                check_takes_context(fn, spec.name)
            reg = Registration(fn, spec.name, priority, matcher, errors, guard, once, items)
            self._registrations.setdefault(reg.event, []).append(reg)
            self._rebuild(reg.event)
            return reg

        if handler is None:

            def decorate(fn: H) -> H:
                register(fn)
                return fn

            return decorate
        reg = register(handler)
        return Disposer(lambda: self._remove(reg))

    def _remove(self, reg: Registration) -> None:
        regs = self._registrations.get(reg.event)
        if regs and reg in regs:
            regs.remove(reg)
            self._rebuild(reg.event)

    def _rebuild(self, event: str) -> None:
        inherited = tuple(
            g for ancestor in self._inherited for g in ancestor.chains.get(event, NO_CHAINS)[1]
        )
        ordinary, guards = order(self._registrations.get(event, ()), inherited)
        chains = dict(self.chains)
        if ordinary or guards:
            chains[event] = (ordinary, guards)
        else:
            chains.pop(event, None)
        self.chains = chains
        self._refresh()

    def _refresh(self) -> None:
        """Recompute ``listened`` after handlers or receivers changed."""
        live = {
            name
            for name in CATALOG
            if name in self.chains or (name in self.signals and self.signals[name].receivers)
        }
        self.records = "on_event" in live
        self.listened = frozenset(CATALOG) if self.records else frozenset(live)
        self.after = (
            self.listened
            if self.records
            else frozenset(name for name, sig in self.signals.items() if sig.receivers)
        )
        self.version += 1

    def with_guards_of(self, ancestor: HookBus) -> HookBus:
        """A dispatch view of this bus that also runs ``ancestor``'s guards, after its own.

        How an agent with a bus of its own stays under the policy of the agents above it (as a
        sub-agent or a handoff target). The view shares this bus's registrations, signals and
        middleware; its chains are a snapshot."""
        view = copy.copy(self)
        view._inherited = (*self._inherited, ancestor)
        view.chains = {}
        for event in {*self._registrations, *(e for a in view._inherited for e in a.chains)}:
            view._rebuild(event)
        return view

    @property
    def empty(self) -> bool:
        """True when nothing is registered: no handler, receiver or middleware."""
        return (
            not self.chains
            and not self.middleware
            and not any(s.receivers for s in self.signals.values())
        )

    def handlers(self, event: EventName | str) -> list[Handler]:
        """The handlers of ``event`` in the order they run (guards last)."""
        ordinary, guards = self.chains.get(resolve(event).name, NO_CHAINS)
        return [r.fn for r in (*ordinary, *guards)]

    def guards(self, event: EventName | str) -> list[Handler]:
        """The guard-tier handlers of ``event`` (inherited ones included), in order."""
        return [r.fn for r in self.chains.get(resolve(event).name, NO_CHAINS)[1]]

    def registrations(self) -> list[Registration]:
        """Every registration of this bus, in no particular order."""
        return [r for regs in self._registrations.values() for r in regs]

    def signal(self, event: EventName | str) -> blinker.NamedSignal:
        """The named blinker signal of ``event``. Receivers connected to it (strongly, unless
        ``weak=True`` is asked for) are called after the ordered chain as
        ``receiver(bus, ctx=ctx)``."""
        name = resolve(event).name
        sig = self.signals.get(name)
        if sig is None:
            sig = self.signals[name] = BusSignal(name, self._refresh)
        return sig

    # middleware and plugins ---------------------------------------------------------------

    @property
    def provider_stack(self) -> Stack:
        """The middleware on the provider stack, first added outermost."""
        return self.stacks.get("provider") or Stack()

    @property
    def tool_stack(self) -> Stack:
        """The middleware on the tool stack, first added outermost."""
        return self.stacks.get("tool") or Stack()

    def use(self, item: Any) -> Disposer:
        """Add a ``Middleware`` (to the stacks it declares) or install a plugin.

        Args:
            item: A ``Middleware``, or a plugin: an object whose public methods are named
                after events (or marked ``@hook``), with optional ``middleware`` and
                ``setup(bus)``.

        Returns:
            A disposer that removes it.

        Raises:
            RegistrationError: ``item`` is neither middleware nor a plugin, or a plugin of
                its name is installed already.
        """
        if isinstance(item, Middleware):
            self._set_middleware((*self.middleware, item))

            def remove() -> None:
                if item in self.middleware:
                    self._set_middleware(tuple(m for m in self.middleware if m is not item))

            return Disposer(remove)
        return install(self, item)

    def _set_middleware(self, middleware: tuple[Middleware, ...]) -> None:
        self.middleware = middleware
        names = {name for m in middleware for name in m.stacks}
        self.stacks = {n: Stack(m for m in middleware if n in m.stacks) for n in sorted(names)}
        self.version += 1

    def load_plugins(
        self, names: Iterable[str] | None = None, *, strict: bool = False
    ) -> list[Any]:
        """Install the plugins of the ``agenthooks.plugins`` entry points (all, or ``names``).

        A plugin that fails to import or set up is reported in ``plugin_errors`` and skipped
        unless ``strict``. ``AGENTHOOKS_DISABLE_PLUGINS=a,b`` switches installed plugins off."""
        return load_entry_point_plugins(self, names, strict=strict)


__all__ = ["HookBus"]
