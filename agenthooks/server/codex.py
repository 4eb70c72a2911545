"""Codex's hooks: its command hooks reach the server through ``agenthooks hook codex``.

Codex's hook input and output are Claude Code's format (``session_id``, ``hook_event_name``,
``tool_name``, ``tool_input``; ``hookSpecificOutput.permissionDecision``, ``decision:
block``, ``continue: false``), so the requests are served by the same handlers; what
differs is the table below: Codex has no replacement of an MCP tool's output, so a rewritten
result is a typed error in the records and the neutral answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .claude_code import JSON, ClientEvent, serve_hook
from .sessions import Sessions

CLIENT = "codex"

EVENTS: Mapping[str, ClientEvent] = {
    "SessionStart": ClientEvent("on_chat_start", "a deny stops the session (`continue: false`)"),
    "UserPromptSubmit": ClientEvent(
        "on_user_message", "a deny blocks the prompt (`decision: block`, exit 2 from the shim)"
    ),
    "PreToolUse": ClientEvent(
        "pre_tool_call",
        '`Deny` → exit 2 with the reason (the model reads it); `{"call"}` → `updatedInput`; '
        "`Ask` → `permissionDecision: ask`",
    ),
    "PostToolUse": ClientEvent("on_tool_call_result", "a deny → `decision: block` with the reason"),
    "Stop": ClientEvent("on_event", "nothing: a record `codex:Stop`"),
    "PermissionRequest": ClientEvent("on_event", "nothing: a record `codex:PermissionRequest`"),
}
"""Every Codex hook event the server maps."""


async def answer(sessions: Sessions, caller: str, body: Any) -> JSON:
    """Codex's answer to one hook request ``body`` from ``caller``.

    Raises:
        BadRequest: The body is not a Codex hook input (names the field).
    """
    return await serve_hook(CLIENT, sessions, caller, body)


__all__ = ["CLIENT", "EVENTS", "answer"]
