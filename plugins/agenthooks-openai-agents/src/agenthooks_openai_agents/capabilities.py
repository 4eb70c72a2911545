"""What the Agents SDK bridge fires and carries out, declared once (``agenthooks bridges`` and
the docs' capability table read it; a test pins it to behaviour)."""

from __future__ import annotations

from agenthooks.bridges import Capabilities

CAPABILITIES = Capabilities(
    framework="OpenAI Agents SDK",
    distribution="agenthooks-openai-agents",
    setup="await AgentHooksRunner(bus).run(agent, input)",
    fires=frozenset(
        {
            "on_chat_start",
            "on_user_message",
            "pre_agent",
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
            "pre_handoff",
            "on_handoff",
            "post_agent",
            "on_chat_done",
            "on_chat_paused",
            "on_run_resumed",
            "on_chat_abort",
            "on_chat_error",
            "on_chat_end",
            "on_event",
        }
    ),
    honours={
        "on_chat_start": frozenset({"deny"}),
        "on_user_message": frozenset({"message", "deny"}),
        "pre_agent": frozenset({"response", "deny"}),
        "transform_context": frozenset({"messages"}),
        "pre_request": frozenset({"request", "response", "deny"}),
        "on_response": frozenset({"response", "deny"}),
        "on_model_error": frozenset({"response", "error"}),
        "pre_tool_call": frozenset({"call", "result", "error", "deny", "ask"}),
        "on_tool_call_result": frozenset({"result", "deny", "terminate"}),
        "on_tool_call_error": frozenset({"result", "error", "terminate"}),
        "prepare_next_turn": frozenset({"model", "thinking"}),
        "post_agent": frozenset({"response", "deny"}),
    },
    gaps={
        "on_chat_start.deny": (
            "the SDK cannot end a run with an answer before it starts: the caller gets "
            "agenthooks.errors.RunDenied carrying the reason (on_chat_error)"
        ),
        "on_user_message.deny": (
            "as on_chat_start: the caller gets RunDenied carrying the reason (on_chat_error)"
        ),
        "pre_agent.deny": (
            "as on_chat_start: the caller gets RunDenied carrying the reason (on_chat_error)"
        ),
        "pre_handoff.deny": (
            "the SDK answers a handoff call with its own transfer message and cannot refuse "
            "it with a reason the model reads"
        ),
        "pre_handoff.ask": "a handoff is not a tool call the SDK's approvals can hold",
        "prepare_next_turn.messages": (
            "the SDK keeps the run's transcript itself; transform_context changes what "
            "each request sends"
        ),
        "prepare_next_turn.provider": (
            "the SDK resolves models through the run's model provider: return a model name "
            "({'model': ...}) it knows"
        ),
    },
)
"""The Agents SDK bridge's declaration."""

__all__ = ["CAPABILITIES"]
