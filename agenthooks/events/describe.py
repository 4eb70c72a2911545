"""Views derived from the event declarations: the README's event table and the catalog as
data (``agenthooks events --json``), with what each context holds and which fields a handler
may write."""

from __future__ import annotations

import inspect
import re
from typing import Any

from .catalog import CATALOG, EventSpec
from .contexts import EventContext

_COMMON = frozenset(EventContext.model_fields)


def type_name(annotation: Any) -> str:
    """An annotation as a reader writes it: ``ToolCall``, ``str | None``, ``list[ChatMessage]``."""
    if isinstance(annotation, type) and not getattr(annotation, "__args__", None):
        return annotation.__name__
    text = str(annotation).replace("typing.", "")
    text = re.sub(r"<class '(?:[\w.]+\.)?(\w+)'>", r"\1", text)
    text = re.sub(r"\b(?:[a-z_]+\.)+([A-Z]\w*)", r"\1", text)  # module paths off
    return text.replace("NoneType", "None")


def fields_of(spec: EventSpec) -> list[dict[str, Any]]:
    """The context's own fields (the common ones are listed once, apart): name, type, and
    whether a handler's return may write it."""
    out = []
    for name, info in spec.context.model_fields.items():
        if name in _COMMON or name in ("short_circuit", "recovered"):
            continue
        out.append(
            {"name": name, "type": type_name(info.annotation), "writable": name in spec.returns}
        )
    return out


def describe(spec: EventSpec) -> dict[str, Any]:
    """One event as data."""
    return {
        "event": spec.name,
        "kind": spec.kind_label,
        "fires": spec.doc,
        "may_return": spec.may_return,
        "can_deny": spec.deny,
        "can_ask": spec.ask,
        "fails_closed": spec.gate,
        "matches": spec.match,
        "groups": sorted(spec.groups),
        "aliases": list(spec.aliases),
        "context": spec.context.__name__,
        "context_doc": inspect.getdoc(spec.context) or "",
        "fields": fields_of(spec),
    }


def common_fields() -> list[dict[str, str]]:
    """The fields every context carries."""
    return [
        {"name": name, "type": type_name(info.annotation)}
        for name, info in EventContext.model_fields.items()
    ]


def markdown_table() -> str:
    """The catalog as the README's Markdown table: event, kind, may return, seed aliases."""
    lines = ["| event | kind | fires | may return | seed aliases |", "|---|---|---|---|---|"]
    for spec in CATALOG.values():
        aliases = ", ".join(f"`{a}`" for a in spec.aliases) or "—"
        lines.append(
            f"| `{spec.name}` | {spec.kind_label} | {spec.doc} | "
            f"{spec.may_return.replace('|', '/')} | {aliases} |"
        )
    return "\n".join(lines)


__all__ = ["common_fields", "describe", "fields_of", "markdown_table", "type_name"]
