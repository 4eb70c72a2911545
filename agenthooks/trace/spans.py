"""From flat event records to a tree of spans: run → turn → model call / tool calls, with a
sub-agent's run nested under the tool call that delegated to it.

Times are the records' ``mono`` values (seconds, monotonic). A span the recording never closes
(a run that was killed, a truncated file) ends at the last time seen in its run and is marked
``open``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

Status = str
"""``ok``, ``error``, ``denied``, ``recovered`` (an error a hook recovered), ``aborted``,
``paused`` (a run or a call waiting for a human) or ``open`` (never closed)."""

PREVIEW = 2000
"""Characters of an input or output a span keeps for display."""


@dataclass
class Mark:
    """A point in time worth seeing: a deny, a handoff, a stop, a memory operation."""

    event: str
    text: str
    status: Status
    at: float


@dataclass
class Span:
    """One interval of a run: ``kind`` is ``run``, ``turn``, ``model``, ``tool`` or ``event``."""

    id: int
    kind: str
    name: str
    branch: str
    run_id: str
    start: float
    end: float | None = None
    status: Status = "ok"
    error: str | None = None
    tokens: tuple[int, int] | None = None
    details: dict[str, Any] = field(default_factory=dict)
    children: list[Span] = field(default_factory=list)
    marks: list[Mark] = field(default_factory=list)

    @property
    def duration(self) -> float:
        """Seconds from start to end (0 for a point)."""
        return 0.0 if self.end is None else max(0.0, self.end - self.start)

    def walk(self, depth: int = 0) -> Iterator[tuple[Span, int]]:
        """This span and its descendants, depth first, with their depth."""
        yield self, depth
        for child in self.children:
            yield from child.walk(depth + 1)


@dataclass
class Trace:
    """The spans of a recording: top-level runs (and events outside any run), in order."""

    roots: list[Span]
    start: float
    end: float
    records: int

    def walk(self) -> Iterator[tuple[Span, int]]:
        """Every span, depth first, with its depth."""
        for root in self.roots:
            yield from root.walk()

    @property
    def spans(self) -> list[Span]:
        """Every span, depth first."""
        return [span for span, _ in self.walk()]


def preview(value: Any, limit: int = PREVIEW) -> str:
    """``value`` as short display text (strings as they are, the rest as JSON)."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _tokens(usage: Any) -> tuple[int, int] | None:
    if not isinstance(usage, dict):
        return None
    inp, out = usage.get("input_tokens") or 0, usage.get("output_tokens") or 0
    if not isinstance(inp, int) or not isinstance(out, int) or not (inp or out):
        return None
    return inp, out


class _Run:
    """What the builder tracks per run while reading its records."""

    __slots__ = ("last", "model", "span", "tools", "turn")

    def __init__(self, span: Span) -> None:
        self.span = span
        self.turn: Span | None = None
        self.model: Span | None = None
        self.tools: dict[str, Span] = {}
        self.last = span.start

    @property
    def current(self) -> Span:
        """Where a new model or tool span goes: the open turn, else the run."""
        return self.turn if self.turn is not None else self.span


class _Builder:
    def __init__(self) -> None:
        self.roots: list[Span] = []
        self.runs: dict[str, _Run] = {}
        self.ids = 0
        self.delegated: set[int] = set()  # tool spans that already hold a sub-agent run

    def new(self, kind: str, name: str, r: dict[str, Any], parent: Span | None) -> Span:
        self.ids += 1
        span = Span(
            self.ids,
            kind,
            name,
            str(r.get("branch") or r.get("agent") or ""),
            str(r.get("run_id") or ""),
            float(r["mono"]),
        )
        (parent.children if parent is not None else self.roots).append(span)
        return span

    def run_of(self, r: dict[str, Any]) -> _Run:
        run_id = str(r.get("run_id") or "")
        state = self.runs.get(run_id)
        if state is None:
            agent = str(r.get("agent") or "agent")
            span = self.new("run", agent, r, self.parent_of(r, agent))
            state = self.runs[run_id] = _Run(span)
        state.last = max(state.last, float(r["mono"]))
        return state

    def parent_of(self, r: dict[str, Any], agent: str) -> Span | None:
        """A sub-agent's run goes under the open tool call of its parent run that delegated
        to it (the tool is named after the sub-agent), else under the parent's turn."""
        parent = self.runs.get(str(r.get("parent_run_id") or ""))
        if parent is None:
            return None
        candidates = [
            t for t in parent.tools.values() if t.end is None and t.id not in self.delegated
        ]
        for tool in sorted(candidates, key=lambda t: t.id):
            if tool.name == agent:
                self.delegated.add(tool.id)
                return tool
        return parent.current

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

    @staticmethod
    def mark(span: Span, r: dict[str, Any], text: str, status: Status) -> None:
        span.marks.append(Mark(str(r["type"]), text, status, float(r["mono"])))

    # run ------------------------------------------------------------------------------------

    def on_chat_start(self, state: _Run, r: dict[str, Any]) -> None:
        state.span.details["input"] = preview(r.get("input"))
        if r.get("denied"):
            self.mark(state.span, r, f"denied at on_chat_start: {r['denied']}", "denied")

    def on_user_message(self, state: _Run, r: dict[str, Any]) -> None:
        state.span.details["input"] = preview(r.get("input"))
        if r.get("denied"):
            self.mark(state.span, r, f"denied at on_user_message: {r['denied']}", "denied")

    def on_chat_done(self, state: _Run, r: dict[str, Any]) -> None:
        out = r.get("output")
        if isinstance(out, dict):
            state.span.details["output"] = preview(out.get("content"))
            state.span.details["finish_reason"] = out.get("finish_reason")
            if out.get("finish_reason") == "denied":
                state.span.status = "denied"
                state.span.error = preview(out.get("content"), 300)

    def on_chat_paused(self, state: _Run, r: dict[str, Any]) -> None:
        out = _dict(r.get("output"))
        state.span.status = "paused"
        state.span.details["finish_reason"] = "paused"
        waits = ", ".join(
            f"{p.get('tool')} #{p.get('call_id')}: {p.get('reason')}"
            for p in out.get("pending") or []
            if isinstance(p, dict)
        )
        self.mark(state.span, r, f"paused, waiting on {waits}", "paused")

    def on_run_resumed(self, state: _Run, r: dict[str, Any]) -> None:
        """The same run goes on (in this process or another): one span across the pause."""
        span = state.span
        span.end, span.status = None, "ok"
        answers = []
        for call_id, decision in _dict(r.get("input")).items():
            if isinstance(decision, dict) and "reason" in decision:
                answers.append(f"denied #{call_id}: {decision.get('reason') or 'denied'}")
            else:
                answers.append(f"approved #{call_id}")
        self.mark(span, r, "resumed: " + ", ".join(answers), "info")

    def on_chat_error(self, state: _Run, r: dict[str, Any]) -> None:
        state.span.status = "error"
        state.span.error = r.get("error")

    def on_chat_abort(self, state: _Run, r: dict[str, Any]) -> None:
        state.span.status = "aborted"

    def on_chat_end(self, state: _Run, r: dict[str, Any]) -> None:
        span = state.span
        span.end = float(r["mono"])
        out = r.get("output")
        span.tokens = _tokens(out.get("usage") if isinstance(out, dict) else None) or _tokens(
            r.get("usage")
        )
        if r.get("error") and span.status == "ok":
            span.status = "error"
        if r.get("error") and span.error is None:
            span.error = r.get("error")

    # turns and model calls ------------------------------------------------------------------

    def on_loop_start(self, state: _Run, r: dict[str, Any]) -> None:
        state.turn = self.new("turn", f"turn {r.get('iteration')}", r, state.span)

    def on_loop_end(self, state: _Run, r: dict[str, Any]) -> None:
        if state.turn is not None:
            state.turn.end = float(r["mono"])
            state.turn = None

    def pre_request(self, state: _Run, r: dict[str, Any]) -> None:
        request = _dict(r.get("input"))
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

    def on_stream_chunk(self, state: _Run, r: dict[str, Any]) -> None:
        if state.model is not None:
            state.model.details["streamed chunks"] = (
                state.model.details.get("streamed chunks", 0) + 1
            )

    def on_stream_error(self, state: _Run, r: dict[str, Any]) -> None:
        if state.model is not None:
            state.model.details["stream error"] = r.get("error")

    def on_model_error(self, state: _Run, r: dict[str, Any]) -> None:
        span = state.model
        if span is None:
            span = state.model = self.new("model", "model", r, state.current)
        span.status, span.error = "error", r.get("error")
        span.end = float(r["mono"])

    def on_response(self, state: _Run, r: dict[str, Any]) -> None:
        span = state.model
        if span is None:
            span = self.new("model", "model", r, state.current)
        state.model = None
        span.end = float(r["mono"])
        response = _dict(r.get("output"))
        span.tokens = _tokens(response.get("usage"))
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

    def tool(self, state: _Run, r: dict[str, Any]) -> Span:
        call_id = str(r.get("tool_call_id") or "")
        span = state.tools.get(call_id)
        if span is None:
            span = self.new("tool", str(r.get("tool_name") or "tool"), r, state.current)
            span.details = {"tool_call_id": call_id, "arguments": preview(r.get("input"))}
            state.tools[call_id] = span
        return span

    def pre_tool_call(self, state: _Run, r: dict[str, Any]) -> None:
        span = self.tool(state, r)
        if r.get("denied"):
            span.status, span.error = "denied", r["denied"]
        elif r.get("asked"):
            span.status, span.error = "paused", f"asked: {r['asked']}"
        elif r.get("error"):
            span.status, span.error = "denied", r["error"]
        elif r.get("output") is not None:
            span.details["short-circuit"] = "a pre_tool_call hook supplied the result"

    def on_tool_call_result(self, state: _Run, r: dict[str, Any]) -> None:
        span = self.tool(state, r)
        span.end = float(r["mono"])
        span.details["result"] = preview(r.get("output"))
        if r.get("denied"):
            span.status, span.error = "denied", r["denied"]
        elif span.status == "error":
            span.status = "recovered"
        elif span.status == "paused":  # approved at resume
            span.status, span.error = "ok", None

    def on_tool_call_error(self, state: _Run, r: dict[str, Any]) -> None:
        span = self.tool(state, r)
        span.end = float(r["mono"])
        if span.status != "denied":
            span.status = "error"
        span.error = r.get("error") or span.error

    def on_message(self, state: _Run, r: dict[str, Any]) -> None:
        """A tool message for a call still open was written without an after-event: the run
        was aborted or failed mid-call (its text says why, e.g. ``cancelled``)."""
        message = _dict(r.get("output"))
        span = state.tools.get(str(message.get("tool_call_id") or ""))
        if message.get("role") != "tool" or span is None or span.end is not None:
            return
        span.end = float(r["mono"])
        if span.status == "paused":  # denied by a human at resume: the reason is the message
            span.status, span.error = "denied", message.get("content")
        elif message.get("is_error") and span.status != "denied":
            span.status, span.error = "error", message.get("content")

    # marks ----------------------------------------------------------------------------------

    def on_handoff(self, state: _Run, r: dict[str, Any]) -> None:
        self.mark(state.span, r, f"handoff to {r.get('agent')}", "info")

    def on_stop(self, state: _Run, r: dict[str, Any]) -> None:
        self.mark(state.span, r, f"stop: {r.get('output')}", "error")

    def on_memory_read(self, state: _Run, r: dict[str, Any]) -> None:
        self.mark(state.current, r, f"memory read {r.get('input')}", "info")

    def on_memory_write(self, state: _Run, r: dict[str, Any]) -> None:
        self.mark(state.current, r, f"memory write {r.get('input')}", "info")

    def on_memory_error(self, state: _Run, r: dict[str, Any]) -> None:
        self.mark(state.current, r, f"memory error {r.get('input')}: {r.get('error')}", "error")

    def finish(self) -> None:
        """Close what the recording left open, sub-agent runs before their parents."""
        for state in reversed(list(self.runs.values())):
            own = [s for s, _ in state.span.walk() if s.run_id == state.span.run_id]
            closing = max([state.last, *(s.end for s, _ in state.span.walk() if s.end is not None)])
            if state.span.end is not None:
                closing = state.span.end
            for span in own:
                if span.end is None:
                    span.end = max(closing, span.start)
                    if span.status == "ok":
                        span.status = "open"


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
    builder = _Builder()
    for record in records:
        builder.add(record)
    builder.finish()
    monos = [float(r["mono"]) for r in records]
    start = min(monos) if monos else 0.0
    end = max(monos) if monos else 0.0
    return Trace(builder.roots, start, end, len(records))


__all__ = ["PREVIEW", "Mark", "Span", "Status", "Trace", "build_trace", "preview"]
