"""The span tree as one self-contained HTML page: a timeline of every span per branch.

The page embeds its data as JSON and draws itself with inline JavaScript; it loads nothing
from anywhere, so it opens offline and can be attached to a bug report as one file. Its
stylesheet and script are package data (``assets/timeline.css``, ``assets/timeline.js``),
inlined into every page.
"""

from __future__ import annotations

import html
import json
from functools import cache
from importlib.resources import files
from typing import Any

from .load import Skipped
from .text import format_duration, span_line
from .tree import Span, Trace


@cache
def asset(name: str) -> str:
    """A file of the page's ``assets/`` folder (its stylesheet or script), as text."""
    return (files(__package__) / "assets" / name).read_text(encoding="utf-8")


def page_data(trace: Trace, *, title: str, skipped: list[Skipped] | None = None) -> dict[str, Any]:
    """What the page's script draws: one entry per span, times in ms from the first record."""
    origin = trace.start
    rows: list[tuple[Span, int]] = list(trace.walk())
    lane_floor: dict[str, int] = {}
    for span, depth in rows:
        lane_floor[span.branch] = min(depth, lane_floor.get(span.branch, depth))
    parents = {child.id: span.id for span, _ in rows for child in span.children}
    spans = []
    for span, depth in rows:
        spans.append(
            {
                "id": span.id,
                "parent": parents.get(span.id),
                "kind": span.kind,
                "name": span.name,
                "label": span_line_short(span),
                "branch": span.branch,
                "depth": depth,
                "lane_depth": depth - lane_floor[span.branch],
                "start_ms": (span.start - origin) * 1000,
                "duration_ms": span.duration * 1000,
                "status": span.status,
                "error": span.error,
                "tokens": list(span.tokens) if span.tokens is not None else None,
                "details": {k: v for k, v in span.details.items() if v is not None},
                "marks": [
                    {
                        "event": m.event,
                        "text": m.text,
                        "status": m.status,
                        "at_ms": (m.at - origin) * 1000,
                    }
                    for m in span.marks
                ],
            }
        )
    return {
        "title": title,
        "duration_ms": (trace.end - origin) * 1000,
        "records": trace.records,
        "skipped": [{"line": s.line, "reason": s.reason} for s in skipped or []],
        "spans": spans,
    }


def span_line_short(span: Span) -> str:
    """The label a row shows: the span line without its duration (the bar shows that)."""
    line = span_line(span).replace(f"  {format_duration(span.duration)}", "", 1)
    return line.replace("  ", " · ")


def _script_json(data: Any) -> str:
    # inside <script>, "</script>" or "<!--" in a tool output must not end the element
    text = json.dumps(data, ensure_ascii=False, default=str)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_html(trace: Trace, *, title: str, skipped: list[Skipped] | None = None) -> str:
    """The timeline page of ``trace``."""
    data = page_data(trace, title=title, skipped=skipped)
    spans = data["spans"]
    runs = sum(1 for s in spans if s["kind"] == "run")
    errors = sum(1 for s in spans if s["status"] in ("error", "aborted"))
    denied = sum(1 for s in spans if s["status"] == "denied")
    bad = ' class="bad"' if errors else ""
    summary = (
        f"{runs} run{'s' * (runs != 1)} · {len(spans)} spans · "
        f"<span{bad}>{errors} error{'s' * (errors != 1)}</span> · {denied} denied · "
        f"{trace.records} records · {format_duration(trace.end - trace.start)}"
    )
    warning = ""
    if skipped:
        items = "".join(f"<li>{html.escape(str(s))}</li>" for s in skipped)
        warning = (
            f'<div class="warning" id="skipped"><strong>{len(skipped)} line'
            f"{'s' * (len(skipped) != 1)} skipped</strong><ul>{items}</ul></div>"
        )
    legend = "".join(
        f'<span><i style="background: var(--{var})"></i>{name}</span>'
        for name, var in [
            ("agent run", "ok-run"),
            ("turn", "ok-turn"),
            ("model call", "ok-model"),
            ("tool call", "ok-tool"),
            ("error", "error"),
            ("denied", "denied"),
            ("recovered", "recovered"),
        ]
    )
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>agenthooks trace: {html.escape(title)}</title>
<style>
{asset("timeline.css")}</style>
</head>
<body>
<header>
<h1>agenthooks trace: {html.escape(title)}</h1>
<div class="summary">{summary}</div>
{warning}
<div class="legend">{legend}</div>
</header>
<main id="timeline" aria-label="timeline"></main>
<div id="tooltip" role="tooltip" hidden></div>
<noscript>The timeline is drawn with JavaScript; enable it to see the spans.</noscript>
<script id="trace-data" type="application/json">{_script_json(data)}</script>
<script>
{asset("timeline.js")}</script>
</body>
</html>
"""


__all__ = ["page_data", "render_html", "span_line_short"]
