"""The span of each run: the builder's bookkeeping per run (a sub-agent's run nested under the
tool call that delegated to it), the run's own events and its marks.

A span the recording never closes (a run that was killed, a truncated file) ends at the last
time seen in its run and is marked ``open``.
"""

from __future__ import annotations

from typing import Any

from .tree import Mark, Span, Status, preview


def as_dict(value: Any) -> dict[str, Any]:
    """``value`` if it is a dict, else an empty one."""
    return value if isinstance(value, dict) else {}


def usage_tokens(usage: Any) -> tuple[int, int] | None:
    """``(input, output)`` tokens of a usage record, or ``None`` when it counts none."""
    if not isinstance(usage, dict):
        return None
    inp, out = usage.get("input_tokens") or 0, usage.get("output_tokens") or 0
    if not isinstance(inp, int) or not isinstance(out, int) or not (inp or out):
        return None
    return inp, out


class RunState:
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


class RunSpans:
    """Builds the span tree of a recording: one span per run, its events and marks, and the
    closing of what the recording left open."""

    def __init__(self) -> None:
        self.roots: list[Span] = []
        self.runs: dict[str, RunState] = {}
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

    def run_of(self, r: dict[str, Any]) -> RunState:
        run_id = str(r.get("run_id") or "")
        state = self.runs.get(run_id)
        if state is None:
            agent = str(r.get("agent") or "agent")
            span = self.new("run", agent, r, self.parent_of(r, agent))
            state = self.runs[run_id] = RunState(span)
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

    @staticmethod
    def mark(span: Span, r: dict[str, Any], text: str, status: Status) -> None:
        span.marks.append(Mark(str(r["type"]), text, status, float(r["mono"])))

    # run ------------------------------------------------------------------------------------

    def on_chat_start(self, state: RunState, r: dict[str, Any]) -> None:
        state.span.details["input"] = preview(r.get("input"))
        if r.get("denied"):
            self.mark(state.span, r, f"denied at on_chat_start: {r['denied']}", "denied")

    def on_user_message(self, state: RunState, r: dict[str, Any]) -> None:
        state.span.details["input"] = preview(r.get("input"))
        if r.get("denied"):
            self.mark(state.span, r, f"denied at on_user_message: {r['denied']}", "denied")

    def on_chat_done(self, state: RunState, r: dict[str, Any]) -> None:
        out = r.get("output")
        if isinstance(out, dict):
            state.span.details["output"] = preview(out.get("content"))
            state.span.details["finish_reason"] = out.get("finish_reason")
            if out.get("finish_reason") == "denied":
                state.span.status = "denied"
                state.span.error = preview(out.get("content"), 300)

    def on_chat_paused(self, state: RunState, r: dict[str, Any]) -> None:
        out = as_dict(r.get("output"))
        state.span.status = "paused"
        state.span.details["finish_reason"] = "paused"
        waits = ", ".join(
            f"{p.get('tool')} #{p.get('call_id')}: {p.get('reason')}"
            for p in out.get("pending") or []
            if isinstance(p, dict)
        )
        self.mark(state.span, r, f"paused, waiting on {waits}", "paused")

    def on_run_resumed(self, state: RunState, r: dict[str, Any]) -> None:
        """The same run goes on (in this process or another): one span across the pause."""
        span = state.span
        span.end, span.status = None, "ok"
        answers = []
        for call_id, decision in as_dict(r.get("input")).items():
            if isinstance(decision, dict) and "reason" in decision:
                answers.append(f"denied #{call_id}: {decision.get('reason') or 'denied'}")
            else:
                answers.append(f"approved #{call_id}")
        self.mark(span, r, "resumed: " + ", ".join(answers), "info")

    def on_chat_error(self, state: RunState, r: dict[str, Any]) -> None:
        state.span.status = "error"
        state.span.error = r.get("error")

    def on_chat_abort(self, state: RunState, r: dict[str, Any]) -> None:
        state.span.status = "aborted"

    def on_chat_end(self, state: RunState, r: dict[str, Any]) -> None:
        span = state.span
        span.end = float(r["mono"])
        out = r.get("output")
        span.tokens = usage_tokens(
            out.get("usage") if isinstance(out, dict) else None
        ) or usage_tokens(r.get("usage"))
        if r.get("error") and span.status == "ok":
            span.status = "error"
        if r.get("error") and span.error is None:
            span.error = r.get("error")

    # marks ----------------------------------------------------------------------------------

    def on_handoff(self, state: RunState, r: dict[str, Any]) -> None:
        self.mark(state.span, r, f"handoff to {r.get('agent')}", "info")

    def on_stop(self, state: RunState, r: dict[str, Any]) -> None:
        self.mark(state.span, r, f"stop: {r.get('output')}", "error")

    def on_memory_read(self, state: RunState, r: dict[str, Any]) -> None:
        self.mark(state.current, r, f"memory read {r.get('input')}", "info")

    def on_memory_write(self, state: RunState, r: dict[str, Any]) -> None:
        self.mark(state.current, r, f"memory write {r.get('input')}", "info")

    def on_memory_error(self, state: RunState, r: dict[str, Any]) -> None:
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


__all__: list[str] = []
