"""Writes ``typed.py`` from the event declarations in ``contexts.py``: the ``EventName``
Literal and the typed faces of ``on`` / ``once`` / ``@hook``, so an editor and mypy know each
event's context. ``python -m agenthooks.events.generate`` rewrites it; ``--check`` exits 1
when it is stale (a test runs that check). The other views need no file written: the event
table of the docs site is ``describe.markdown_table()`` at build time, and ``agenthooks
events --json`` is ``describe.describe()``."""

from __future__ import annotations

import sys
from pathlib import Path

from .catalog import CATALOG, EventSpec

TARGET = Path(__file__).with_name("typed.py")

_OPTIONS = (
    "match: Matcher | None = None, priority: int = 0, "
    "errors: ErrorPolicy | None = None, guard: bool = False"
)
_HOOK_OPTIONS = (
    "match: Any = None, priority: int | None = None, guard: bool | None = None, "
    "errors: str | None = None"
)


def _names(spec: EventSpec) -> str:
    return ", ".join(f'"{n}"' for n in (spec.name, *spec.aliases))


def render() -> str:
    """The text of ``typed.py``."""
    specs = list(CATALOG.values())
    contexts = sorted({s.context.__name__ for s in specs}, key=str.lower)
    imported = sorted({*contexts, "EventContext"}, key=str.lower)
    out = [
        '"""Generated from the event declarations in ``contexts.py`` by ``python -m',
        "agenthooks.events.generate``: do not edit. The event names as a Literal, and the typed",
        "faces of ``on`` / ``once`` (a Literal event name gives the handler its context type)",
        'and of ``@hook``."""',
        "",
        "from __future__ import annotations",
        "",
        "from collections.abc import Callable",
        "from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar, overload",
        "",
        "from .contexts import (",
        *(f"    {c}," for c in imported),
        ")",
        "",
        "if TYPE_CHECKING:",
        "    from ..bus.registry import Disposer, ErrorPolicy, Matcher",
        "",
        "EventName = Literal[",
        *(f'    "{s.name}",' for s in specs),
        "]",
        '"""Every canonical event name (aliases are accepted wherever a name is)."""',
        "",
        "_H = TypeVar('_H', bound=Callable[[Any], Any])",
        "_M = TypeVar('_M', bound=Callable[..., Any])",
    ]
    for c in contexts:
        out.append(f"_{c} = TypeVar('_{c}', bound=Callable[[{c}], Any])")
        out.append(f"_M{c} = TypeVar('_M{c}', bound=Callable[[Any, {c}], Any])")
    out += ["", "", "class OnMethod(Protocol):"]
    out.append(
        '    """``bus.on`` / ``bus.once`` / ``agent.on`` / ``agent.once``, typed per event."""'
    )
    for s in specs:
        c, names = s.context.__name__, _names(s)
        out += [
            "",
            "    @overload",
            f"    def __call__(self, event: Literal[{names}], handler: Callable[[{c}], Any], "
            f"*, {_OPTIONS}) -> Disposer: ...",
            "    @overload",
            f"    def __call__(self, event: Literal[{names}], handler: None = None, "
            f"*, {_OPTIONS}) -> Callable[[_{c}], _{c}]: ...",
        ]
    out += [
        "",
        "    @overload",
        "    def __call__(self, event: str, handler: Callable[[EventContext], Any], "
        f"*, {_OPTIONS}) -> Disposer: ...",
        "    @overload",
        "    def __call__(self, event: str, handler: None = None, "
        f"*, {_OPTIONS}) -> Callable[[_H], _H]: ...",
        "",
        "",
        "class HookDecorator(Protocol):",
        '    """``@hook(event, ...)`` on a plugin method, typed per event."""',
    ]
    for s in specs:
        c, names = s.context.__name__, _names(s)
        out += [
            "",
            "    @overload",
            f"    def __call__(self, event: Literal[{names}], *, {_HOOK_OPTIONS}) "
            f"-> Callable[[_M{c}], _M{c}]: ...",
        ]
    out += [
        "",
        "    @overload",
        f"    def __call__(self, event: str | None = None, *, {_HOOK_OPTIONS}) "
        "-> Callable[[_M], _M]: ...",
        "",
        "",
        '__all__ = ["EventName", "HookDecorator", "OnMethod"]',
        "",
    ]
    return "\n".join(out)


def main(argv: list[str]) -> int:
    """Rewrite ``typed.py``, or with ``--check`` report whether it is current."""
    wanted = render()
    stale = TARGET.read_text(encoding="utf-8") != wanted
    if "--check" in argv:
        if stale:
            print(f"{TARGET} is stale: run python -m agenthooks.events.generate", file=sys.stderr)
        return 1 if stale else 0
    if stale:
        TARGET.write_text(wanted, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
