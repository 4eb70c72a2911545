"""A plugin object's methods as handlers: a public method named after an event (an alias works
too) handles it, with options from ``@hook(...)`` or the plugin's class attributes; a public
method named like an event that does not exist is an error naming the closest event."""

from __future__ import annotations

import difflib
import inspect
import re
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any, TypeVar

from ..errors import RegistrationError, UnknownEventError
from ..events.catalog import ALIASES, CATALOG, resolve
from .collecting import Collecting

if TYPE_CHECKING:
    from ..events.typed import HookDecorator

F = TypeVar("F", bound=Callable[..., Any])


def _hook(
    event: str | None = None,
    *,
    match: Any = None,
    priority: int | None = None,
    guard: bool | None = None,
    errors: str | None = None,
) -> Callable[[F], F]:
    """Mark a plugin method as a handler, with registration options.

    ``@hook(guard=True)`` on ``def pre_tool_call(self, ctx)``; ``@hook("pre_tool_call",
    match="shell")`` on a method of any name. The options are those of ``HookBus.on``;
    ``priority``, ``guard`` or ``errors`` left ``None`` take the plugin's attribute of that
    name, if it has one.

    Args:
        event: The event the method handles; default: the method's name.
        match: The tool, sub-agent or handoff names it handles (a name, a regex or a list).
        priority: Higher runs earlier.
        guard: Run it in the guard tier: after every ordinary handler, fail closed.
        errors: ``"raise"`` or ``"isolate"``: what its exception does.

    Returns:
        A decorator that marks the method and returns it unchanged.
    """

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


def register_methods(bus: Collecting, plugin: Any) -> None:
    """Register on ``bus`` each public method of ``plugin`` named after an event (or marked with
    ``@hook``); a plugin with no such method, no middleware and no setup is an error."""
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
    hint = alias = ""
    if suggestions:
        hint = f"did you mean {suggestions[0]!r}? "
        canonical = ALIASES.get(suggestions[0])
        if canonical is not None:  # the event itself is named too
            alias = f"an alias of {canonical!r}; "
    error = UnknownEventError(attr, suggestions)
    error.args = (
        f"plugin {plugin_name(plugin)!r}: method {attr!r} is named like an event, but there is "
        f"no event {attr!r}; {hint}({alias}a method that is not a hook: start its name with '_')",
    )
    return error


__all__ = ["hook", "looks_like_event", "plugin_name"]
