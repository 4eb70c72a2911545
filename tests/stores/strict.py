"""A strict provider: what the OpenAI Chat Completions API enforces on a transcript, checked
on every request the loopback server receives, answered with HTTP 400 like the API when it
does not hold.

Every assistant message with ``tool_calls`` is followed, before any other message, by
exactly one tool message per call id; every tool message answers a call of the assistant
message right before its block; the transcript does not end on unanswered calls.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from wire_server import Reply, error_reply, json_reply


def transcript_problem(messages: list[dict[str, Any]]) -> str | None:
    """Why the API would refuse ``messages``, or None."""
    open_ids: list[str] | None = None
    answered: set[str] = set()
    for index, message in enumerate(messages):
        role = message.get("role")
        if role == "tool":
            call_id = message.get("tool_call_id")
            if open_ids is None or call_id not in open_ids:
                return (
                    f"messages[{index}]: messages with role 'tool' must be a response to a "
                    f"preceding message with 'tool_calls' ({call_id!r})"
                )
            if call_id in answered:
                return f"messages[{index}]: duplicate tool message for {call_id!r}"
            answered.add(call_id)
            continue
        if open_ids is not None and set(open_ids) != answered:
            missing = [i for i in open_ids if i not in answered]
            return (
                "An assistant message with 'tool_calls' must be followed by tool messages "
                f"responding to each 'tool_call_id'. The following tool_call_ids did not have "
                f"response messages: {', '.join(missing)}"
            )
        open_ids, answered = None, set()
        if role == "assistant" and message.get("tool_calls"):
            open_ids = [c["id"] for c in message["tool_calls"]]
    if open_ids is not None and set(open_ids) != answered:
        return "the transcript ends on tool calls without tool messages"
    return None


def strict(body: dict[str, Any]) -> Callable[[dict[str, Any]], Reply]:
    """A reply source: ``body`` when the request's transcript holds, else HTTP 400."""

    def answer(request: dict[str, Any]) -> Reply:
        problem = transcript_problem(request.get("messages", []))
        if problem is not None:
            return error_reply(400, problem, "invalid_request_error")
        return json_reply(body)

    return answer


__all__ = ["strict", "transcript_problem"]
