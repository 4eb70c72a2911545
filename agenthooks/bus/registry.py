"""Registrations: who handles which event, in which order, until when.

Order is decided here, at registration (priority, higher first, then registration order), and
kept as tuples that are replaced, never mutated: dispatch loops over a snapshot, so a handler
that registers or removes handlers never breaks the dispatch in progress.
"""

from __future__ import annotations

import functools
import inspect
import itertools
import re
from collections.abc import Callable, Iterable
from typing import Any, Literal

from ..disposer import Disposer
from ..errors import RegistrationError
from ..events.catalog import EventSpec

ErrorPolicy = Literal["raise", "isolate"]
Handler = Callable[[Any], Any]
Matcher = str | re.Pattern[str] | Iterable[str | re.Pattern[str]]
Chain = tuple["Registration", ...]
Chains = tuple[Chain, Chain]
"""(ordinary, guards) of one event, each in dispatch order."""

NO_CHAINS: Chains = ((), ())
_seq = itertools.count()


class Registration:
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
        "match_items",
        "checked",
        "returned",
    )

    def __init__(
        self,
        fn: Handler,
        event: str,
        priority: int = 0,
        matcher: Callable[[str], bool] | None = None,
        errors: ErrorPolicy | None = None,
        guard: bool = False,
        once: bool = False,
        match_items: tuple[str | re.Pattern[str], ...] = (),
    ) -> None:
        if not callable(fn):
            raise RegistrationError(f"handler for {event!r} must be callable, not {fn!r}")
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
        self.match_items = match_items
        """What ``match=`` listed (checked against the names a run can reach)."""
        self.checked = False
        self.returned = False
        """True once an observer handler's ignored return was warned about."""


def check_takes_context(fn: Handler, event: str) -> None:
    """Refuse a handler that cannot be called as ``handler(ctx)``, naming it and the event.

    Checked at registration, so ``lambda: None`` fails where it is written, not mid-run when
    its event first fires. The callable itself is inspected (a bound method without its
    ``self``, a partial without its bound arguments, an object by its ``__call__``), not what
    a decorator wraps: the wrapper is what gets called. A callable without a signature (some
    builtins and C extensions) is accepted as it is."""
    try:
        signature = inspect.signature(fn, follow_wrapped=False)
    except (TypeError, ValueError):
        return
    try:
        signature.bind(None)
    except TypeError as exc:
        takes_one = any(
            p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)
            for p in signature.parameters.values()
        )
        fix = (
            "give its other parameters defaults"
            if takes_one
            else "give it a parameter for the context, e.g. `lambda ctx: ...`"
        )
        shown = signature.replace(  # the names say it; annotations would only crowd them
            parameters=[p.replace(annotation=p.empty) for p in signature.parameters.values()],
            return_annotation=signature.empty,
        )
        raise RegistrationError(
            f"handler {handler_label(fn)} cannot take the context of {event!r}: handlers are "
            f"called as handler(ctx), and its signature {shown} does not allow that "
            f"({exc}); {fix}"
        ) from None


def handler_label(fn: object) -> str:
    """A handler's qualified name, as logs and error notes show it."""
    if isinstance(fn, functools.partial):
        return f"functools.partial({handler_label(fn.func)})"
    module = getattr(fn, "__module__", None) or ""
    name = getattr(fn, "__qualname__", None) or type(fn).__qualname__
    return f"{module}.{name}" if module else name


def check_options(priority: object, errors: object) -> None:
    """Reject registration options of the wrong kind, naming the option."""
    if errors not in (None, "raise", "isolate"):
        raise RegistrationError(f"errors= must be 'raise', 'isolate' or None, not {errors!r}")
    if not isinstance(priority, int):
        raise RegistrationError(f"priority= must be an int, not {type(priority).__name__}")


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


def match_items(match: Matcher | None) -> tuple[str | re.Pattern[str], ...]:
    """The names and regexes a ``match=`` lists."""
    if match is None:
        return ()
    return (match,) if isinstance(match, (str, re.Pattern)) else tuple(match)


def order(registrations: Iterable[Registration], inherited: Chain = ()) -> Chains:
    """The (ordinary, guards) chains of one event: priority then registration order, the
    ``inherited`` guards (an ancestor's) after the own ones, each once."""
    regs = sorted(registrations, key=lambda r: (-r.priority, r.seq))
    ordinary = tuple(r for r in regs if not r.guard)
    guards = tuple(r for r in regs if r.guard)
    guards += tuple(g for g in inherited if g not in guards)
    return ordinary, guards


__all__ = [
    "NO_CHAINS",
    "Chain",
    "Chains",
    "Disposer",
    "ErrorPolicy",
    "Handler",
    "Matcher",
    "Registration",
    "check_options",
    "check_takes_context",
    "compile_matcher",
    "handler_label",
    "match_items",
    "order",
]
