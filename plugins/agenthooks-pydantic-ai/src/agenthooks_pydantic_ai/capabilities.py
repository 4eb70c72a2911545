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
        "pre_agent.response": (
            "an answer given in the agent's place is its output only where the output may be "
            "text; on a structured output_type it is an UnsupportedReturnError"
        ),
        "should_stop": (
            "a run stopped between turns answers with the last assistant text, which a "
            "structured output_type cannot take: there it is an UnsupportedReturnError"
        ),
        "pre_request.request": (
            "a request's model, tool_choice, reasoning_effort and response_format are the "
            "agent's to choose, and it can run only its own tools"
        ),
        "pre_handoff": "Pydantic AI has no handoffs (agents call agents from tools)",
        "on_subagent_start": (
            "an agent a tool calls is a run of its own (its parent_run_id is the caller's "
            "run), not a sub-agent step of the calling run"
        ),
        "on_stream_chunk": (
            "agent.run_stream() is reported as one model request per turn; its text reaches "
            "the caller before on_response and post_agent"
        ),
    },
)

__all__ = ["CAPABILITIES"]
