"""From flat event records to a tree of spans: run → turn → model call / tool calls, with a
sub-agent's run nested under the tool call that delegated to it.
"""

from __future__ import annotations

from typing import Any

from .call_spans import CallSpans
from .tree import PREVIEW, Mark, Span, Status, Trace, preview


class SpanBuilder(CallSpans):
    """Reads records one at a time into the span tree (``roots``, and ``runs`` by run id)."""

    def add(self, r: dict[str, Any]) -> None:
        event = str(r["type"])
        if not r.get("run_id"):
            agent = r.get("agent")
            point = self.new("event", f"{event} ({agent})" if agent else event, r, None)
            point.end = point.start
            point.details = {"input": preview(r.get("input")), "output": preview(r.get("output"))}
            return
        state = self.run_of(r)
        if event in _HANDLED:
            getattr(self, event)(state, r)
        elif r.get("denied"):
            self.mark(state.span, r, f"denied at {event}: {r['denied']}", "denied")


_HANDLED = frozenset(
    {
        "on_chat_start",
        "on_user_message",
        "on_chat_done",
        "on_chat_paused",
        "on_run_resumed",
        "on_chat_error",
        "on_chat_abort",
        "on_chat_end",
        "on_loop_start",
        "on_loop_end",
        "pre_request",
        "on_stream_chunk",
        "on_stream_error",
        "on_model_error",
        "on_response",
        "pre_tool_call",
        "on_tool_call_result",
        "on_tool_call_error",
        "on_message",
        "on_handoff",
        "on_stop",
        "on_memory_read",
        "on_memory_write",
        "on_memory_error",
    }
)
"""Events the builder reads; any other event only contributes a deny mark, if it denied."""


def build_trace(records: list[dict[str, Any]]) -> Trace:
    """The span tree of ``records`` (file order)."""
    builder = SpanBuilder()
    for record in records:
        builder.add(record)
    builder.finish()
    monos = [float(r["mono"]) for r in records]
    start = min(monos) if monos else 0.0
    end = max(monos) if monos else 0.0
    return Trace(builder.roots, start, end, len(records))


__all__ = ["PREVIEW", "Mark", "Span", "Status", "Trace", "build_trace", "preview"]
