"""HookBus: named blinker signals as the namespace, our own ordered handler lists as the dispatch.

Order is decided at registration (priority, higher first, then registration order); dispatch
is a plain ``for`` over a tuple snapshot, so a handler that registers or removes handlers never
breaks the dispatch in progress: the change applies from the next emission.
"""

from __future__ import annotations

import copy
import inspect
import itertools
import re
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

import blinker
import structlog

from .decisions import Deny
from .errors import HOOK_MARK, BadReturnError, RegistrationError, StopRun
from .events.catalog import CATALOG, EventSpec, resolve
from .events.contexts import EventContext, EventRecord
from .middleware import Middleware, Stack
from .returns import apply_return

if TYPE_CHECKING:
    from .events import EventName
    from .plugins import PluginError, PluginInfo

log = structlog.get_logger("agenthooks")

ErrorPolicy = Literal["raise", "isolate"]
Handler = Callable[[Any], Any]
Matcher = str | re.Pattern[str] | Iterable[str | re.Pattern[str]]
H = TypeVar("H", bound=Handler)

_EMPTY: tuple[tuple[_Registration, ...], tuple[_Registration, ...]] = ((), ())
_seq = itertools.count()
# return types that are never awaitable: the awaitable test is skipped for them
_PLAIN = frozenset({dict, bool, Deny})


class Disposer:
    """Removes what a registration added. Idempotent: a second call is a no-op.

    Also a context manager: ``with bus.on("on_message", h): ...`` removes ``h`` on exit.
    """

    __slots__ = ("_undo",)

    def __init__(self, undo: Callable[[], None]) -> None:
        self._undo: Callable[[], None] | None = undo

    def __call__(self) -> None:
        undo, self._undo = self._undo, None
        if undo is not None:
            undo()

    @property
    def active(self) -> bool:
        """False once disposed."""
        return self._undo is not None

    def __enter__(self) -> Disposer:
        return self

    def __exit__(self, *exc: object) -> None:
        self()


class _Registration:
    """One handler on one event, as registered."""

    __slots__ = (
        "fn",
        "event",
        "priority",
        "seq",
        "matcher",
        "errors",
        "guard",
        "once",
        "spent",
        "is_async",
        "label",
    )

    def __init__(
        self,
        fn: Handler,
        event: str,
        priority: int,
        matcher: Callable[[str], bool] | None,
        errors: ErrorPolicy | None,
        guard: bool,
        once: bool,
    ) -> None:
        self.fn = fn
        self.event = event
        self.priority = priority
        self.seq = next(_seq)
        self.matcher = matcher
        self.errors = errors
        self.guard = guard
        self.once = once
        self.spent = False  # a once-handler that some emission already called
        # an object whose __call__ is a coroutine function is awaited too
        self.is_async = inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(
            getattr(type(fn), "__call__", None)  # noqa: B004
        )
        self.label = handler_label(fn)


def handler_label(fn: object) -> str:
    """A handler's qualified name, as logs and error notes show it."""
    module = getattr(fn, "__module__", None) or ""
    name = getattr(fn, "__qualname__", None) or type(fn).__qualname__
    return f"{module}.{name}" if module else name


class _BusSignal(blinker.NamedSignal):
    """A named blinker signal that tells its bus when receivers come and go, so the
    zero-handler fast path never skips an event someone connected to directly."""

    def __init__(self, name: str, bus: HookBus) -> None:
        super().__init__(name)
        self._bus = bus

    def connect(self, receiver: Any, sender: Any = blinker.ANY, weak: bool = True) -> Any:
        result = super().connect(receiver, sender, weak)
        self._bus._refresh(self.name)
        return result

    def disconnect(self, receiver: Any, sender: Any = blinker.ANY) -> None:
        super().disconnect(receiver, sender)
        self._bus._refresh(self.name)


def compile_matcher(spec: EventSpec, match: Matcher | None) -> Callable[[str], bool] | None:
    """``match=`` as a predicate on the name the event matches on (tool, sub-agent, target)."""
    if match is None:
        return None
    if spec.match is None:
        raise RegistrationError(
            f"match= is not supported on {spec.name!r}: only tool, sub-agent and handoff "
            "events match a name"
        )
    items: list[str | re.Pattern[str]] = (
        [match] if isinstance(match, (str, re.Pattern)) else list(match)
    )
    if not items:
        raise RegistrationError(f"match= on {spec.name!r} is an empty list: it would never match")
    names: set[str] = set()
    patterns: list[re.Pattern[str]] = []
    for item in items:
        if isinstance(item, str):
            names.add(item)
        elif isinstance(item, re.Pattern):
            patterns.append(item)
        else:
            raise RegistrationError(
                f"match= on {spec.name!r} takes a name, a compiled regex or a list of those, "
                f"not {type(item).__name__}"
            )
    if not patterns:
        return names.__contains__

    def matches(value: str) -> bool:
        return value in names or any(p.search(value) for p in patterns)

    return matches


class HookBus:
    """The central bus: register hooks with ``on`` / ``once`` / ``off``, add middleware with
    ``use``, and let the runtime ``emit`` (observers), ``run`` (interceptor folds) and ``check``
    (predicates) each lifecycle point.

    ``errors="raise"`` (default): a handler's exception ends the run and reaches the caller.
    ``errors="isolate"``: it is logged and counts as ``None`` (as ``Deny`` in a gate).
    ``plugins="auto"`` loads every installed plugin of the ``agenthooks.plugins`` entry points.
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
        self.errors: ErrorPolicy = errors
        self._registrations: dict[str, list[_Registration]] = {}
        # (ordinary, guards) per event, each sorted by priority (higher first) then
        # registration order; replaced, never mutated, so dispatch can loop over a snapshot
        self._chains: dict[str, tuple[tuple[_Registration, ...], tuple[_Registration, ...]]] = {}
        self._signals: dict[str, _BusSignal] = {}
        self._middleware: list[Middleware] = []
        self.provider_stack = Stack()
        self.tool_stack = Stack()
        self._records = False
        # events whose emission has work after the chain: receivers, or on_event records
        self._after: frozenset[str] = frozenset()
        self._inherited: tuple[HookBus, ...] = ()
        self.listened: frozenset[str] = frozenset()
        """Events an emission must not skip: those with handlers or receivers (every event
        while ``on_event`` has one). The runtime builds a context only for these."""
        self.plugins: dict[str, PluginInfo] = {}
        """Installed plugins by name."""
        self.plugin_errors: list[PluginError] = []
        """Entry-point plugins that failed to load (when not ``strict``)."""
        if plugins is not None:
            self.load_plugins(None if plugins == "auto" else list(plugins), strict=strict)

    # registration -------------------------------------------------------------------------

    @overload
    def on(
        self,
        event: EventName | str,
        handler: H,
        *,
        match: Matcher | None = None,
        priority: int = 0,
        errors: ErrorPolicy | None = None,
        guard: bool = False,
    ) -> Disposer: ...
    @overload
    def on(
        self,
        event: EventName | str,
        handler: None = None,
        *,
        match: Matcher | None = None,
        priority: int = 0,
        errors: ErrorPolicy | None = None,
        guard: bool = False,
    ) -> Callable[[H], H]: ...
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
        """Register ``handler`` on ``event`` (a canonical name or a seed alias).

        Returns a disposer that removes it. Without ``handler``, returns a decorator that
        registers the function and returns it unchanged. ``guard=True`` puts it in the guard
        tier: after every ordinary handler, never skipped by their short-circuits, fail closed.
        """
        return self._register(event, handler, match, priority, errors, guard, once=False)

    @overload
    def once(
        self,
        event: EventName | str,
        handler: H,
        *,
        match: Matcher | None = None,
        priority: int = 0,
        errors: ErrorPolicy | None = None,
        guard: bool = False,
    ) -> Disposer: ...
    @overload
    def once(
        self,
        event: EventName | str,
        handler: None = None,
        *,
        match: Matcher | None = None,
        priority: int = 0,
        errors: ErrorPolicy | None = None,
        guard: bool = False,
    ) -> Callable[[H], H]: ...
    def once(
        self,
        event: EventName | str,
        handler: Handler | None = None,
        *,
        match: Matcher | None = None,
        priority: int = 0,
        errors: ErrorPolicy | None = None,
        guard: bool = False,
    ) -> Disposer | Callable[[H], H]:
        """Like ``on``, but the handler is removed before its first call."""
        return self._register(event, handler, match, priority, errors, guard, once=True)

    def off(self, event: EventName | str, handler: Handler) -> bool:
        """Remove every registration of ``handler`` on ``event``; True if one was removed."""
        spec = resolve(event)
        found = [
            r for r in self._registrations.get(spec.name, ()) if r.fn is handler or r.fn == handler
        ]
        for reg in found:
            self._remove(reg)
        return bool(found)

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
        if errors not in (None, "raise", "isolate"):
            raise RegistrationError(f"errors= must be 'raise', 'isolate' or None, not {errors!r}")
        if not isinstance(priority, int):
            raise RegistrationError(f"priority= must be an int, not {type(priority).__name__}")
        if handler is None:

            def decorate(fn: H) -> H:
                self._add(
                    _Registration(
                        _checked(spec, fn), spec.name, priority, matcher, errors, guard, once
                    )
                )
                return fn

            return decorate
        reg = _Registration(
            _checked(spec, handler), spec.name, priority, matcher, errors, guard, once
        )
        self._add(reg)
        return Disposer(lambda: self._remove(reg))

    def _add(self, reg: _Registration) -> None:
        self._registrations.setdefault(reg.event, []).append(reg)
        self._rebuild(reg.event)

    def _remove(self, reg: _Registration) -> None:
        regs = self._registrations.get(reg.event)
        if regs and reg in regs:
            regs.remove(reg)
            self._rebuild(reg.event)

    def _rebuild(self, event: str) -> None:
        regs = sorted(self._registrations.get(event, ()), key=lambda r: (-r.priority, r.seq))
        ordinary = tuple(r for r in regs if not r.guard)
        guards = tuple(r for r in regs if r.guard)
        for ancestor in self._inherited:  # ancestors' guards run after this bus's own
            # once each: a sub-agent may share a bus with an ancestor (the same registrations)
            guards += tuple(g for g in ancestor._chains.get(event, _EMPTY)[1] if g not in guards)
        if ordinary or guards:
            self._chains[event] = (ordinary, guards)
        else:
            self._chains.pop(event, None)
        self._refresh(event)

    def _refresh(self, event: str) -> None:
        """Recompute ``listened`` after the handlers or receivers of ``event`` changed."""
        live = {name for name in CATALOG if self._has_listeners(name)}
        self._records = "on_event" in live
        self.listened = frozenset(CATALOG) if self._records else frozenset(live)
        self._after = (
            self.listened
            if self._records
            else frozenset(name for name, sig in self._signals.items() if sig.receivers)
        )

    def _has_listeners(self, name: str) -> bool:
        sig = self._signals.get(name)
        return name in self._chains or (sig is not None and bool(sig.receivers))

    def with_guards_of(self, ancestor: HookBus) -> HookBus:
        """A dispatch view of this bus that also runs ``ancestor``'s guards, after its own.

        How a sub-agent with a bus of its own stays under its parents' policy. The view shares
        this bus's registrations, signals and middleware; its chains are a snapshot.
        """
        view = copy.copy(self)
        view._inherited = (*self._inherited, ancestor)  # a view of a view keeps both
        view._chains = {}
        for event in {*self._registrations, *(e for a in view._inherited for e in a._chains)}:
            view._rebuild(event)
        return view

    @property
    def empty(self) -> bool:
        """True when nothing is registered: no handler, receiver or middleware."""
        return (
            not self._chains
            and not self._middleware
            and not any(s.receivers for s in self._signals.values())
        )

    def handlers(self, event: EventName | str) -> list[Handler]:
        """The handlers of ``event`` in the order they run (guards last)."""
        ordinary, guards = self._chains.get(resolve(event).name, _EMPTY)
        return [r.fn for r in (*ordinary, *guards)]

    def guards(self, event: EventName | str) -> list[Handler]:
        """The guard-tier handlers of ``event`` (inherited ones included), in order."""
        return [r.fn for r in self._chains.get(resolve(event).name, _EMPTY)[1]]

    def signal(self, event: EventName | str) -> blinker.NamedSignal:
        """The named blinker signal of ``event``; receivers connected to it are called after
        the ordered chain as ``receiver(bus, ctx=ctx)``."""
        name = resolve(event).name
        sig = self._signals.get(name)
        if sig is None:
            sig = self._signals[name] = _BusSignal(name, self)
        return sig

    @contextmanager
    def connected(
        self, event: EventName | str, handler: Handler, **options: Any
    ) -> Iterator[Handler]:
        """Register ``handler`` for the duration of a ``with`` block (test helper)."""
        dispose = self.on(event, handler, **options)
        try:
            yield handler
        finally:
            dispose()

    # middleware and plugins ---------------------------------------------------------------

    def use(self, item: Any) -> Disposer:
        """Add a ``Middleware`` (to the provider stack, the tool stack or both, as it declares)
        or install a plugin; returns a disposer that removes it."""
        if isinstance(item, Middleware):
            self._middleware.append(item)
            self._rebuild_stacks()

            def remove() -> None:
                if item in self._middleware:
                    self._middleware.remove(item)
                    self._rebuild_stacks()

            return Disposer(remove)
        from .plugins import install

        return install(self, item)

    def _rebuild_stacks(self) -> None:
        self.provider_stack = Stack(m for m in self._middleware if "provider" in m.stacks)
        self.tool_stack = Stack(m for m in self._middleware if "tool" in m.stacks)

    def load_plugins(
        self, names: Iterable[str] | None = None, *, strict: bool = False
    ) -> list[Any]:
        """Install the plugins of the ``agenthooks.plugins`` entry points (all, or ``names``).

        A plugin that fails to import or set up is reported and skipped unless ``strict``.
        ``AGENTHOOKS_DISABLE_PLUGINS=a,b`` switches installed plugins off."""
        from .plugins import load_entry_point_plugins

        return load_entry_point_plugins(self, names, strict=strict)

    # dispatch -----------------------------------------------------------------------------

    # The three dispatch loops below are the hot path: each is a plain ``for`` over the tuple
    # snapshot sorted at registration, with the handler call inlined (no per-handler coroutine),
    # and the awaitable test skipped for the plain values handlers usually return.

    async def emit(self, event: str, ctx: EventContext) -> None:
        """Fire an observer event: every handler runs, return values are ignored.

        ``event`` is a canonical name or an alias; an unknown name raises
        ``UnknownEventError``."""
        if event not in self.listened and (
            event in CATALOG or (event := resolve(event).name) not in self.listened
        ):
            return
        spec = CATALOG[event]
        ordinary, guards = self._chains.get(event, _EMPTY)
        for reg in ordinary + guards if guards else ordinary:
            if reg.matcher is not None and not reg.matcher(getattr(ctx, spec.match)):  # type: ignore[arg-type]
                continue
            if reg.once and not self._consume(reg):
                continue
            try:
                result = reg.fn(ctx)
                if reg.is_async or (result is not None and inspect.isawaitable(result)):
                    await result
            except Exception as exc:
                self._failed(reg, spec, exc)
        if event in self._after:
            await self._after_chain(spec, ctx, None)

    async def run(self, event: str, ctx: EventContext) -> Deny | None:
        """Fold an interceptor event over its handlers; each return is applied to ``ctx``
        before the next handler runs. Returns the ``Deny`` that refused the step, or None.

        Ordinary handlers run first and stop at a short-circuit or recovery; guards then run
        in their own order; a ``Deny`` from anyone ends the chain."""
        if event not in self.listened and (
            event in CATALOG or (event := resolve(event).name) not in self.listened
        ):
            return None
        spec = CATALOG[event]
        ordinary, guards = self._chains.get(event, _EMPTY)
        deny: Deny | None = None
        for tier in (ordinary, guards) if guards else (ordinary,):
            for reg in tier:
                if reg.matcher is not None and not reg.matcher(getattr(ctx, spec.match)):  # type: ignore[arg-type]
                    continue
                if reg.once and not self._consume(reg):
                    continue
                try:
                    result = reg.fn(ctx)
                    if reg.is_async or (
                        result is not None
                        and type(result) not in _PLAIN
                        and inspect.isawaitable(result)
                    ):
                        result = await result
                    if result is None:
                        continue
                    stop, deny = apply_return(spec, ctx, result, reg)
                except Exception as exc:
                    stop, deny = False, self._failed(reg, spec, exc)
                # a short-circuit or recovery ends the ordinary tier; guards never stop early
                if deny is not None or (stop and not reg.guard):
                    break
            if deny is not None:
                break
        if event in self._after:
            await self._after_chain(spec, ctx, deny)
        return deny

    async def check(self, event: str, ctx: EventContext) -> bool:
        """Ask a predicate event: True as soon as one handler returns True."""
        if event not in self.listened and (
            event in CATALOG or (event := resolve(event).name) not in self.listened
        ):
            return False
        spec = CATALOG[event]
        ordinary, guards = self._chains.get(event, _EMPTY)
        verdict = False
        for reg in ordinary + guards if guards else ordinary:
            if reg.once and not self._consume(reg):
                continue
            try:
                result = reg.fn(ctx)
                if reg.is_async or (
                    result is not None and type(result) is not bool and inspect.isawaitable(result)
                ):
                    result = await result
                if result is not None and not isinstance(result, bool):
                    raise BadReturnError(
                        f"{spec.name} handlers return True, False or None, not "
                        f"{type(result).__name__} (handler {reg.label})"
                    )
            except Exception as exc:
                self._failed(reg, spec, exc)
                continue
            if result:
                verdict = True
                break
        if event in self._after:
            await self._after_chain(spec, ctx, None)
        return verdict

    def _consume(self, reg: _Registration) -> bool:
        """Claim a once-handler's single call and remove it; False when a concurrent emission
        (holding an older snapshot of the chain) already claimed it."""
        if reg.spent:
            return False
        reg.spent = True
        self._remove(reg)
        return True

    def _failed(self, reg: _Registration, spec: EventSpec, exc: Exception) -> Deny | None:
        """What a handler's exception (or bad return) means: raise it, or log it and count it
        as ``None`` (as ``Deny`` in a gate, and in any guard of an event that can deny)."""
        if spec.teardown:
            self._log_isolated(reg, spec, exc)
            return None
        if isinstance(exc, StopRun):  # a deliberate stop is never isolated
            raise exc
        if reg.guard and spec.deny:
            self._log_isolated(reg, spec, exc)
            return Deny(_error_text(exc))
        if reg.guard or (reg.errors or self.errors) == "raise":
            if getattr(exc, HOOK_MARK, None) is None:
                note = getattr(exc, "add_note", None)
                if note is not None:
                    note(f"raised by handler {reg.label} of event {spec.name!r}")
                try:
                    setattr(exc, HOOK_MARK, spec.name)
                except AttributeError:  # an exception type that takes no attributes
                    pass
            raise exc
        self._log_isolated(reg, spec, exc)
        return Deny(_error_text(exc)) if spec.gate else None

    @staticmethod
    def _log_isolated(reg: _Registration, spec: EventSpec, exc: Exception) -> None:
        log.warning(
            "hook_error_isolated",
            hook_event=spec.name,
            handler=reg.label,
            error=f"{type(exc).__name__}: {exc}",
            guard=reg.guard,
        )

    async def _after_chain(self, spec: EventSpec, ctx: EventContext, deny: Deny | None) -> None:
        sig = self._signals.get(spec.name)
        if sig is not None and sig.receivers:
            await self._send_receivers(sig, spec, ctx)
        if self._records and spec.name != "on_event":
            await self.emit("on_event", make_record(spec.name, ctx, deny))

    async def _send_receivers(self, sig: _BusSignal, spec: EventSpec, ctx: EventContext) -> None:
        for receiver in list(sig.receivers_for(self)):
            try:
                result = receiver(self, ctx=ctx)
                if inspect.isawaitable(result):
                    await result
            except Exception as exc:
                reg = _Registration(receiver, spec.name, 0, None, None, False, False)
                self._failed(reg, spec, exc)


def _checked(spec: EventSpec, fn: Any) -> Handler:
    if not callable(fn):
        raise RegistrationError(f"handler for {spec.name!r} must be callable, not {fn!r}")
    return fn  # type: ignore[no-any-return]


def _error_text(exc: BaseException) -> str:
    return str(exc) or type(exc).__name__


_RECORD_FIELDS = frozenset(EventRecord.model_fields)
_new = object.__new__
_set = object.__setattr__


def make_record(name: str, ctx: EventContext, deny: Deny | None) -> EventRecord:
    """The uniform ``on_event`` record of one emission."""
    data = ctx.__dict__
    error = data.get("error")
    inp, out = ctx.record_io()
    call = data.get("call")
    tool_name = call.name if call is not None else None
    # Built as one dict literal, in field order, without validation: one record per emission
    # makes this a hot path (a generic trusted build costs ~3x as much for 18 fields).
    record = _new(EventRecord)
    _set(
        record,
        "__dict__",
        {
            "run_id": ctx.run_id,
            "parent_run_id": ctx.parent_run_id,
            "session_id": ctx.session_id,
            "agent": ctx.agent,
            "branch": ctx.branch,
            "iteration": ctx.iteration,
            "usage": ctx.usage,
            "signal": None,
            "type": name,
            "timestamp": time.time(),
            "tool_call_id": data.get("tool_call_id"),
            "tool_name": tool_name,
            "input": inp,
            "output": out,
            "is_error": error is not None or deny is not None,
            "duration": data.get("duration"),
            "error": None
            if error is None
            else _error_text(error)
            if isinstance(error, BaseException)
            else str(error),
            "denied": None if deny is None else deny.text(tool_name),
        },
    )
    _set(record, "__pydantic_fields_set__", set(_RECORD_FIELDS))
    _set(record, "__pydantic_extra__", None)
    _set(record, "__pydantic_private__", None)
    return record


__all__ = [
    "Disposer",
    "ErrorPolicy",
    "HookBus",
    "Matcher",
    "compile_matcher",
    "handler_label",
    "make_record",
]
