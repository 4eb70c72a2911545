"""The spans inside a run: its turns, the model calls and the tool calls."""

from __future__ import annotations

from typing import Any

from .run_spans import RunSpans, RunState, as_dict, usage_tokens
from .tree import Span, preview


class CallSpans(RunSpans):
    """Adds to the run spans the turn, model and tool spans inside them."""

    # turns and model calls ------------------------------------------------------------------

    def on_loop_start(self, state: RunState, r: dict[str, Any]) -> None:
        state.turn = self.new("turn", f"turn {r.get('iteration')}", r, state.span)

    def on_loop_end(self, state: RunState, r: dict[str, Any]) -> None:
        if state.turn is not None:
            state.turn.end = float(r["mono"])
            state.turn = None

    def pre_request(self, state: RunState, r: dict[str, Any]) -> None:
        request = as_dict(r.get("input"))
        span = self.new("model", str(request.get("model") or "model"), r, state.current)
        messages = request.get("messages") or []
        span.details = {"messages": len(messages), "tools": len(request.get("tools") or [])}
        if messages and isinstance(messages[-1], dict):
            span.details["last message"] = preview(messages[-1].get("content"), 500)
        state.model = span
        if r.get("output") is not None:
            span.details["short-circuit"] = "a pre_request hook supplied the response"
        if r.get("denied"):
            span.status, span.error, span.end = "denied", r["denied"], float(r["mono"])
            self.mark(span, r, f"denied at pre_request: {r['denied']}", "denied")
            state.model = None

    def on_stream_chunk(self, state: RunState, r: dict[str, Any]) -> None:
        if state.model is not None:
            state.model.details["streamed chunks"] = (
                state.model.details.get("streamed chunks", 0) + 1
            )

    def on_stream_error(self, state: RunState, r: dict[str, Any]) -> None:
        if state.model is not None:
            state.model.details["stream error"] = r.get("error")

    def on_model_error(self, state: RunState, r: dict[str, Any]) -> None:
        span = state.model
        if span is None:
            span = state.model = self.new("model", "model", r, state.current)
        span.status, span.error = "error", r.get("error")
        span.end = float(r["mono"])

    def on_response(self, state: RunState, r: dict[str, Any]) -> None:
        span = state.model
        if span is None:
            span = self.new("model", "model", r, state.current)
        state.model = None
        span.end = float(r["mono"])
        response = as_dict(r.get("output"))
        span.tokens = usage_tokens(response.get("usage"))
        calls = response.get("tool_calls") or []
        span.details["finish_reason"] = response.get("finish_reason")
        if calls:
            span.details["tool calls"] = ", ".join(
                str(c.get("name")) for c in calls if isinstance(c, dict)
            )
        if response.get("content") is not None:
            span.details["content"] = preview(response.get("content"))
        if span.status == "error":
            span.status = "recovered"
        if r.get("denied"):
            span.status, span.error = "denied", r["denied"]
            self.mark(span, r, f"denied at on_response: {r['denied']}", "denied")

    # tool calls -----------------------------------------------------------------------------

    def tool(self, state: RunState, r: dict[str, Any]) -> Span:
        call_id = str(r.get("tool_call_id") or "")
        span = state.tools.get(call_id)
        if span is None:
            span = self.new("tool", str(r.get("tool_name") or "tool"), r, state.current)
            span.details = {"tool_call_id": call_id, "arguments": preview(r.get("input"))}
            state.tools[call_id] = span
        return span

    def pre_tool_call(self, state: RunState, r: dict[str, Any]) -> None:
        call_id = str(r.get("tool_call_id") or "")
        paused = state.tools.get(call_id)
        if paused is not None and paused.status == "paused":
            # the call approved at resume runs now: a span of its own where it runs, after
            # the pause, while the asking span stays a point in its turn
            del state.tools[call_id]
        span = self.tool(state, r)
        if r.get("denied"):
            span.status, span.error = "denied", r["denied"]
        elif r.get("asked"):
            # nothing ran: the call waits for a human, as a point in its turn
            span.status, span.error, span.end = "paused", f"asked: {r['asked']}", span.start
        elif r.get("error"):
            span.status, span.error = "denied", r["error"]
        elif r.get("output") is not None:
            span.details["short-circuit"] = "a pre_tool_call hook supplied the result"

    def on_tool_call_result(self, state: RunState, r: dict[str, Any]) -> None:
        span = self.tool(state, r)
        self.close_tool(span, r)
        span.details["result"] = preview(r.get("output"))
        if r.get("denied"):
            span.status, span.error = "denied", r["denied"]
        elif span.status == "error":
            span.status = "recovered"

    def on_tool_call_error(self, state: RunState, r: dict[str, Any]) -> None:
        span = self.tool(state, r)
        self.close_tool(span, r)
        if span.status != "denied":
            span.status = "error"
        span.error = r.get("error") or span.error

    @staticmethod
    def close_tool(span: Span, r: dict[str, Any]) -> None:
        """End a tool span as its record says: after the ``duration`` the tool ran (0 for a
        call that never ran: denied, invalid, unknown), not when the record arrived, which
        is later by the after-hooks' time and, in a parallel batch, by the other calls'."""
        duration = r.get("duration")
        if isinstance(duration, (int, float)) and not isinstance(duration, bool) and duration >= 0:
            span.end = span.start + float(duration)
        else:
            span.end = float(r["mono"])

    def on_message(self, state: RunState, r: dict[str, Any]) -> None:
        """A tool message for a call still open was written without an after-event: the run
        was aborted or failed mid-call (its text says why, e.g. ``cancelled``)."""
        message = as_dict(r.get("output"))
        span = state.tools.get(str(message.get("tool_call_id") or ""))
        if message.get("role") != "tool" or span is None:
            return
        if span.status == "paused":  # denied by a human at resume: the reason is the message
            span.status, span.error = "denied", message.get("content")
            return
        if span.end is not None:
            return
        span.end = float(r["mono"])
        if message.get("is_error") and span.status != "denied":
            span.status, span.error = "error", message.get("content")


__all__: list[str] = []
