"""The span tree as terminal text: one line per span, marks beneath, errors and denies marked."""

from __future__ import annotations

from .tree import Mark, Span, Trace, preview

_RED, _YELLOW, _DIM, _BOLD, _RESET = "\033[31m", "\033[33m", "\033[2m", "\033[1m", "\033[0m"
_STATUS_WORD = {
    "error": "ERROR",
    "denied": "DENIED",
    "recovered": "RECOVERED",
    "aborted": "ABORTED",
    "paused": "PAUSED",
    "open": "UNFINISHED",
}


def format_duration(seconds: float) -> str:
    """``0.4 ms``, ``12 ms``, ``1.20 s``."""
    ms = seconds * 1000
    if round(ms, 1) < 10:
        return f"{ms:.1f} ms"
    if round(ms) < 1000:
        return f"{ms:.0f} ms"
    return f"{seconds:.2f} s"


def format_tokens(tokens: tuple[int, int] | None) -> str:
    """``tokens 40 in / 10 out`` or an empty string."""
    return "" if tokens is None else f"tokens {tokens[0]} in / {tokens[1]} out"


def span_line(span: Span) -> str:
    """The text of one span, without tree drawing or colour."""
    parts: list[str] = []
    if span.kind == "run":
        parts.append(f"agent {span.name}")
    elif span.kind == "model":
        parts.append(f"model call {span.name}" if span.name != "model" else "model call")
    elif span.kind == "tool":
        parts.append(f"tool {span.name}({_args(span)})")
    else:
        parts.append(span.name)
    if span.kind != "event":
        parts.append(format_duration(span.duration))
    if span.tokens is not None:
        parts.append(format_tokens(span.tokens))
    word = _STATUS_WORD.get(span.status)
    if word is not None:
        parts.append(f"{word}: {span.error}" if span.error else word)
    else:
        outcome = _outcome(span)
        if outcome:
            parts.append(outcome)
    return "  ".join(parts)


def _args(span: Span) -> str:
    args = span.details.get("arguments")
    if not isinstance(args, str) or args in ("{}", "null"):
        return ""
    return preview(args, 60)


def _outcome(span: Span) -> str:
    d = span.details
    if span.kind == "model":
        if d.get("tool calls"):
            return f"→ tools: {d['tool calls']}"
        if d.get("content") is not None:
            return f"→ {preview(d['content'], 60)!r}"
    if span.kind == "tool" and "result" in d:
        return f"→ {preview(d['result'], 60)}"
    if span.kind == "run" and d.get("finish_reason"):
        return f"→ {d['finish_reason']}"
    return ""


def render_tree(trace: Trace, *, color: bool = False, unicode: bool = True) -> str:
    """The whole trace as text, one line per span (ending with a newline)."""
    tee, last, pipe, blank = (
        ("├─ ", "└─ ", "│  ", "   ") if unicode else ("+- ", "`- ", "|  ", "   ")
    )
    out: list[str] = []

    def paint(text: str, status: str, kind: str) -> str:
        if not color:
            return text
        if status in ("error", "aborted"):
            return f"{_RED}{text}{_RESET}"
        if status in ("denied", "recovered", "open", "paused"):
            return f"{_YELLOW}{text}{_RESET}"
        return f"{_BOLD}{text}{_RESET}" if kind == "run" else text

    def mark_line(mark: Mark) -> str:
        sign = "!" if mark.status in ("error", "denied") else "·" if unicode else "*"
        text = f"{sign} {mark.text}"
        if not color:
            return text
        tint = _RED if mark.status == "error" else _YELLOW if mark.status == "denied" else _DIM
        return f"{tint}{text}{_RESET}"

    def visit(span: Span, prefix: str, is_last: bool, top: bool) -> None:
        head = "" if top else prefix + (last if is_last else tee)
        out.append(head + paint(span_line(span), span.status, span.kind))
        inner = "" if top else prefix + (blank if is_last else pipe)
        items: list[Span | Mark] = sorted(
            [*span.children, *span.marks], key=lambda x: x.start if isinstance(x, Span) else x.at
        )
        for index, item in enumerate(items):
            final = index == len(items) - 1
            if isinstance(item, Span):
                visit(item, inner, final, False)
            else:
                out.append(inner + (last if final else tee) + mark_line(item))

    for root in trace.roots:
        visit(root, "", True, True)
    return "\n".join(out) + "\n"


__all__ = ["format_duration", "format_tokens", "render_tree", "span_line"]
