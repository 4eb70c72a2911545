"""Claude Code's HTTP hooks (``type: "http"``): its hook input in, its hook output out.

Claude Code posts one JSON object per hook event (``session_id``, ``hook_event_name`` and the
event's own fields) and reads the answer's JSON body. ``EVENTS`` is the mapping, one row per
client event: the event of ours it becomes and what the answer can carry back. An event not in
the table is an ``on_event`` record and gets no decision. Unknown fields are kept: the record
of an unmapped event carries the whole input, and a mapped event takes what it needs.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..decisions import Deny
from ..errors import StopRun, UnsupportedReturnError
from ..messages import ToolCall
from ..runtime.run_state import new_id
from .errors import MISSING, BadRequest, field_error
from .runs import ServedRun, ToolVerdict
from .sessions import Sessions

CLIENT = "claude-code"

JSON = dict[str, Any]


@dataclass(frozen=True)
class ClientEvent:
    """One row of a client's table: the event of ours a client event becomes (``on_event``:
    a record only), and what the client's answer can carry back."""

    ours: str
    answers: str


EVENTS: Mapping[str, ClientEvent] = {
    "SessionStart": ClientEvent(
        "on_chat_start", "a deny stops the session (`continue: false` with the reason)"
    ),
    "UserPromptSubmit": ClientEvent(
        "on_user_message", "a deny blocks the prompt (`decision: block` with the reason)"
    ),
    "PreToolUse": ClientEvent(
        "pre_tool_call",
        '`Deny` → `permissionDecision: deny` with the reason the model reads; `{"call"}` → '
        '`updatedInput`; `Ask` → `permissionDecision: ask`; `{"error"}` → deny with its text',
    ),
    "PostToolUse": ClientEvent(
        "on_tool_call_result",
        "a deny → `decision: block` with the reason; a rewritten result of an MCP tool → "
        "`updatedMCPToolOutput` (redaction)",
    ),
    "PostToolUseFailure": ClientEvent(
        "on_tool_call_error", "a deny → `decision: block` with the reason"
    ),
    "SubagentStart": ClientEvent("on_subagent_start", "nothing (an observer)"),
    "SubagentStop": ClientEvent("on_subagent_stop", "nothing (an observer)"),
    "SessionEnd": ClientEvent("on_chat_done", "nothing: the run ends (`on_chat_end` follows)"),
    "Stop": ClientEvent("on_event", "nothing: a record `claude-code:Stop`"),
    "PreCompact": ClientEvent("on_event", "nothing: a record `claude-code:PreCompact`"),
    "PermissionRequest": ClientEvent(
        "on_event", "nothing: a record `claude-code:PermissionRequest`"
    ),
    "Notification": ClientEvent("on_event", "nothing: a record `claude-code:Notification`"),
}
"""Every Claude Code hook event the server maps, in the order a session meets them."""


def text_field(body: JSON, key: str, *, client: str = CLIENT, required: bool = True) -> str:
    """``body[key]`` as a str; a ``BadRequest`` naming the key when it is missing (and
    ``required``) or not a string."""
    value = body.get(key, MISSING)
    if value is MISSING and not required:
        return ""
    if not isinstance(value, str):
        raise field_error(client, key, "a string", value)
    return value


def object_field(body: JSON, key: str, *, client: str = CLIENT) -> JSON:
    """``body[key]`` as a JSON object (missing counts as empty)."""
    value = body.get(key, {})
    if not isinstance(value, dict):
        raise field_error(client, key, "an object", value)
    return value


def tool_call(body: JSON, client: str = CLIENT) -> ToolCall:
    """The tool call a tool event describes."""
    name = text_field(body, "tool_name", client=client)
    arguments = object_field(body, "tool_input", client=client)
    call_id = body.get("tool_use_id")
    if call_id is not None and not isinstance(call_id, str):
        raise field_error(client, "tool_use_id", "a string", call_id)
    return ToolCall(id=call_id or new_id(), name=name, arguments=arguments)


def stopped(reason: str, event: str) -> JSON:
    """The answer to any event of a session a handler stopped."""
    answer: JSON = {"continue": False, "stopReason": reason}
    if event == "PreToolUse":
        answer["hookSpecificOutput"] = _pre_tool("deny", reason)
    return answer


def _pre_tool(decision: str, reason: str | None = None) -> JSON:
    out: JSON = {"hookEventName": "PreToolUse", "permissionDecision": decision}
    if reason is not None:
        out["permissionDecisionReason"] = reason
    return out


def tool_answer(verdict: ToolVerdict) -> JSON:
    """A ``pre_tool_call`` verdict as Claude Code's ``PreToolUse`` output."""
    if verdict.stop is not None:
        return stopped(verdict.stop, "PreToolUse")
    if verdict.decision is not None:
        return {"hookSpecificOutput": _pre_tool(verdict.decision, verdict.reason)}
    if verdict.arguments is not None:
        return {
            "hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": verdict.arguments}
        }
    return {}


Handler = Callable[[ServedRun, JSON], Awaitable[JSON]]


async def _session_start(served: ServedRun, body: JSON) -> JSON:
    deny = await served.start()
    return {} if deny is None else stopped(deny.text(), "SessionStart")


async def _prompt(served: ServedRun, body: JSON) -> JSON:
    prompt = text_field(body, "prompt", client=served.client)
    deny = await served.start(prompt)
    if deny is not None:
        return {"decision": "block", "reason": deny.text(), **stopped(deny.text(), "")}
    got = await served.user_message(prompt)
    if isinstance(got, Deny):
        return {"decision": "block", "reason": got.text()}
    if isinstance(got, str):
        served.run.capabilities.require("on_user_message", "message")
    return {}


async def _pre_tool_use(served: ServedRun, body: JSON) -> JSON:
    call = tool_call(body, served.client)
    await served.start()
    verdict = await served.pre_tool(call)
    if verdict.stop is not None:
        await served.stop(verdict.stop)
    return tool_answer(verdict)


async def _post_tool_use(served: ServedRun, body: JSON) -> JSON:
    call = tool_call(body, served.client)
    await served.start()
    failed = body["hook_event_name"] == "PostToolUseFailure"
    if failed:
        error = text_field(body, "error", client=served.client, required=False)
        error = error or "the tool failed"
        verdict = await served.tool_done(call, error=error)
    else:
        verdict = await served.tool_done(call, result=body.get("tool_response"))
    if verdict.stop is not None:
        await served.stop(verdict.stop)
        return stopped(verdict.stop, "")
    if verdict.block is not None:
        return {"decision": "block", "reason": verdict.block}
    if verdict.changed:
        if failed or served.client != CLIENT or not call.name.startswith("mcp__"):
            # Claude Code replaces only an MCP tool's output (Codex none): a typed error in
            # the records, and the neutral answer
            why = "only an MCP tool's output can be replaced" if served.client == CLIENT else ""
            event = "on_tool_call_error" if failed else "on_tool_call_result"
            raise UnsupportedReturnError(event, "result", served.client, why)
        return {
            "hookSpecificOutput": {
                "hookEventName": "PostToolUse",
                "updatedMCPToolOutput": verdict.result,
            }
        }
    return {}


async def _subagent(served: ServedRun, body: JSON) -> JSON:
    await served.start()
    name = body.get("agent_type") or body.get("agent_id") or "subagent"
    if body["hook_event_name"] == "SubagentStart":
        await served.subagent(True, str(name))
    else:
        await served.subagent(False, str(name), result=body.get("last_assistant_message"))
    return {}


async def _session_end(served: ServedRun, body: JSON) -> JSON:
    await served.start()
    await served.record("SessionEnd", body)
    await served.end()
    return {}


async def _record(served: ServedRun, body: JSON) -> JSON:
    await served.start()
    await served.record(str(body["hook_event_name"]), body)
    return {}


HANDLERS: dict[str, Handler] = {
    "SessionStart": _session_start,
    "UserPromptSubmit": _prompt,
    "PreToolUse": _pre_tool_use,
    "PostToolUse": _post_tool_use,
    "PostToolUseFailure": _post_tool_use,
    "SubagentStart": _subagent,
    "SubagentStop": _subagent,
    "SessionEnd": _session_end,
}


async def serve_hook(client: str, sessions: Sessions, caller: str, body: Any) -> JSON:
    """The answer of a client speaking Claude Code's hook format (``client`` names it: Codex
    speaks the same) to one hook request ``body`` from ``caller``.

    Raises:
        BadRequest: The body is not a hook input (names the field).
    """
    if not isinstance(body, dict):
        raise BadRequest(f"{client} hook input must be a JSON object, not {type(body).__name__}")
    event = text_field(body, "hook_event_name", client=client)
    session_id = text_field(body, "session_id", client=client)
    if not session_id:
        raise BadRequest(f"{client} hook input: 'session_id' must not be empty")
    served = await sessions.get(client, session_id, caller)
    if served.stopped is not None:
        return stopped(served.stopped, event)
    handler = HANDLERS.get(event, _record)
    try:
        return await handler(served, body)
    except UnsupportedReturnError as problem:
        # a return the client cannot carry: a typed error in the records, the neutral answer
        await served.record("unsupported", error=str(problem))
        return {}
    except StopRun as stop:
        await served.stop(stop.reason)
        return stopped(stop.reason, event)
    except Exception as exc:
        await served.fail(exc)
        raise
    finally:
        await sessions.done(served)


async def answer(sessions: Sessions, caller: str, body: Any) -> JSON:
    """Claude Code's answer to one hook request ``body`` from ``caller``.

    Raises:
        BadRequest: The body is not a Claude Code hook input (names the field).
    """
    return await serve_hook(CLIENT, sessions, caller, body)


__all__ = [
    "CLIENT",
    "EVENTS",
    "ClientEvent",
    "answer",
    "object_field",
    "serve_hook",
    "text_field",
    "tool_answer",
    "tool_call",
]
