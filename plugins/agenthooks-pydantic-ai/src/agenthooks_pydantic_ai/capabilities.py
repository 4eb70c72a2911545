"""What the Pydantic AI bridge fires and carries out, declared once: ``agenthooks bridges``
and the docs' capability table read it, and the tests pin it to behaviour."""

from __future__ import annotations

from agenthooks.bridges import Capabilities

from .translate import FRAMEWORK

CAPABILITIES = Capabilities(
    framework=FRAMEWORK,
    distribution="agenthooks-pydantic-ai",
    setup="Agent(model, tools=..., capabilities=[AgentHooksCapability(bus)])",
    fires=frozenset(
        {
            "on_chat_start",
            "on_user_message",
            "pre_agent",
            "on_loop_start",
            "transform_context",
            "pre_request",
            "on_response",
            "on_model_error",
            "on_message",
            "pre_tool_call",
            "on_tool_call_result",
            "on_tool_call_error",
            "on_loop_end",
            "prepare_next_turn",
            "should_stop",
            "post_agent",
            "on_chat_done",
            "on_chat_paused",
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
        "on_tool_call_result": frozenset({"result", "deny"}),
        "on_tool_call_error": frozenset({"result", "error"}),
        "post_agent": frozenset({"response", "deny"}),
    },
    gaps={
        "on_tool_call_result.terminate": (
            "a Pydantic AI run has no way to end after a tool result other than a final "
            "output, which the model writes"
        ),
        "on_tool_call_error.terminate": (
            "a Pydantic AI run has no way to end after a tool error other than a final "
            "output, which the model writes"
        ),
        "on_chat_start.deny": (
            "a run whose output cannot be text (a structured output_type) is refused by "
            "raising RunDenied, not with the reason as its answer"
        ),
        "prepare_next_turn": (
            "a Pydantic AI agent chooses the next turn's model, provider, thinking and "
            "history itself (model selectors, capabilities), not from a hook's return"
        ),
        "pre_handoff": "Pydantic AI has no handoffs (agents call agents from tools)",
        "on_stream_chunk": "agent.run_stream() is reported as one model call per turn",
    },
)

__all__ = ["CAPABILITIES"]
