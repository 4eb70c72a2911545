"""The demo's readable timeline: one line per event as it fires, indented by branch."""

from __future__ import annotations

import json
import time
from typing import Any, TextIO

from ..events.contexts import EventRecord

_QUIET = frozenset(
    {"transform_context", "prepare_next_turn", "should_stop", "on_loop_end", "on_stream_chunk"}
)


def _short(value: Any, limit: int = 70) -> str:
    if value is None:
        return ""
    if hasattr(value, "model_dump"):
        value = value.model_dump(mode="json", exclude_defaults=True)
    text = value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def describe(record: EventRecord) -> str:
    """What one record says, in a few words."""
    kind, out, inp = record.type, record.output, record.input
    if record.denied is not None:
        return f"DENIED: {record.denied}"
    if record.error is not None:
        return f"error: {record.error}"
    if kind in ("on_chat_start", "on_user_message", "pre_agent"):
        return _short(inp)
    if kind == "pre_request":
        if out is not None:
            return "served from the cache (the provider is not called)"
        return f"{len(inp.messages)} messages → {record.tool_name or 'model'}"
    if kind == "on_response":
        if out.tool_calls:
            return "asks for " + ", ".join(
                f"{c.name}({_short(c.arguments, 40)})" for c in out.tool_calls
            )
        return f"answers {_short(out.content)}"
    if kind == "on_model_error":
        return f"recovered: {_short(out)}" if out is not None else ""
    if kind == "pre_tool_call":
        return f"{record.tool_name}({_short(inp, 50)})"
    if kind in ("on_tool_call_result", "on_tool_call_error"):
        return f"{record.tool_name} → {_short(out)}"
    if kind == "on_message":
        role = out.role
        text = out.content if out.content is not None else ", ".join(c.name for c in out.tool_calls)
        return f"{role}: {_short(text)}"
    if kind in ("on_chat_done", "post_agent"):
        return f"{out.finish_reason}: {_short(out.content)}"
    if kind == "on_chat_end":
        return f"{(record.duration or 0) * 1000:.1f} ms, {record.usage.total_tokens} tokens"
    return _short(out)


class Timeline:
    """An ``on_event`` observer printing each event as it fires."""

    def __init__(self, out: TextIO, *, verbose: bool = False) -> None:
        self.out = out
        self.verbose = verbose
        self.started = time.perf_counter()

    def __call__(self, record: EventRecord) -> None:
        """Write one line for ``record``: time since start, turn, denial or error mark, event.

        Per-turn plumbing (stream chunks, stop checks, context transforms) is skipped unless
        ``verbose``.
        """
        if record.type in _QUIET and not self.verbose:
            return
        elapsed = (time.perf_counter() - self.started) * 1000
        depth = record.branch.count("/")
        turn = f"t{record.iteration}" if record.iteration is not None else "  "
        mark = "✗" if record.denied is not None or record.is_error else " "
        self.out.write(
            f"{elapsed:8.1f} ms {turn} {mark} {'  ' * depth}{record.type:<20} {describe(record)}\n"
        )
