"""What the Strands bridge fires and honours, declared once (the docs' capability table and
``agenthooks bridges`` are generated from it; the tests pin it to behaviour)."""

from __future__ import annotations

from agenthooks.bridges import Capabilities

CAPABILITIES = Capabilities(
    framework="Strands",
    distribution="agenthooks-strands",
    setup="Agent(model=..., tools=..., plugins=[AgentHooksPlugin(bus)])",
    fires=frozenset(
        {
            "on_chat_start",
            "on_user_message",
            "on_message",
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
            "pre_tool_call",
            "on_tool_call_result",
            "on_tool_call_error",
            "on_loop_end",
            "prepare_next_turn",
            "should_stop",
            "on_stop",
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
        "post_agent": frozenset({"response", "deny"}),
    },
    gaps={
        "post_agent.deny": (
            "Strands commits the final assistant message itself; a denied answer is committed "
            "with the reason as its text instead of the withheld content"
        ),
        "on_stream_chunk": (
            "observers hear every chunk as Strands streams it; while a model-call hook or "
            "provider middleware listens, the caller gets the call's stream events once its "
            "hooks are done (a rewrite or short-circuit can change the answer)"
        ),
        "pre_agent": "fires for the invoked agent (an agent used as a tool is its own run)",
        "pre_handoff": "Strands has no handoffs",
        "prepare_next_turn": (
            "Strands calls the agent's own Model with the agent's own transcript: a turn "
            "cannot change the provider, model, thinking or working messages"
        ),
    },
)
"""The Strands bridge's declaration."""

__all__ = ["CAPABILITIES"]
