"""The event catalog and the typed context of every lifecycle point."""

from typing import Literal

from .catalog import ALIASES, CATALOG, EVENT_NAMES, EventSpec, resolve
from .contexts import *  # noqa: F403
from .contexts import __all__ as _contexts_all

EventName = Literal[
    "on_chat_start",
    "on_user_message",
    "pre_agent",
    "post_agent",
    "on_session_start",
    "on_session_end",
    "on_session_close",
    "on_loop_start",
    "transform_context",
    "pre_request",
    "on_stream_start",
    "on_stream_chunk",
    "on_stream_end",
    "on_stream_error",
    "on_response",
    "on_model_error",
    "on_message",
    "pre_tool_call",
    "on_tool_call_result",
    "on_tool_call_error",
    "on_loop_end",
    "prepare_next_turn",
    "should_stop",
    "on_stop",
    "on_memory_read",
    "on_memory_write",
    "on_memory_error",
    "on_subagent_start",
    "on_subagent_stop",
    "pre_handoff",
    "on_handoff",
    "on_chat_done",
    "on_chat_abort",
    "on_chat_error",
    "on_chat_end",
    "on_scope_register",
    "on_scope_unregister",
    "on_event",
]
"""Every canonical event name (aliases are accepted wherever a name is)."""

__all__ = ["ALIASES", "CATALOG", "EVENT_NAMES", "EventName", "EventSpec", "resolve", *_contexts_all]
