"""What the Pydantic AI bridge fires and carries out beyond what every bridge does, declared once:
``agenthooks bridges`` and the docs' capability table read it, and the tests pin it to
behaviour."""

from __future__ import annotations

from agenthooks.bridges import bridge_capabilities

from .translate import FRAMEWORK

CAPABILITIES = bridge_capabilities(
    FRAMEWORK,
    "agenthooks-pydantic-ai",
    "Agent(model, tools=..., capabilities=[AgentHooksCapability(bus)])",
    fires=[
        "pre_agent",
        "transform_context",
        "prepare_next_turn",
        "should_stop",
        "on_run_resumed",
        "on_subagent_start",
        "on_subagent_stop",
    ],
    honours={
        "pre_agent": {"deny", "response"},
        "transform_context": {"messages"},
        "on_model_error": {"error"},
        "should_stop": {"true"},
    },
    gaps={
        "on_tool_call_result.terminate": (
            "a Pydantic AI run has no way to end after a tool result other than a final output, "
            "which the model writes"
        ),
        "on_tool_call_error.terminate": (
            "a Pydantic AI run has no way to end after a tool error other than a final output, "
            "which the model writes"
        ),
        "on_chat_start.deny": (
            "a run whose output cannot be text (a structured output_type) cannot answer with the "
            "reason: the caller gets agenthooks.errors.RunDenied carrying the reason "
            "(on_chat_error)"
        ),
        "prepare_next_turn": (
            "a Pydantic AI agent chooses the next turn's model, provider, thinking and history "
            "itself (model selectors, capabilities), not from a hook's return"
        ),
        "pre_agent.response": (
            "an answer given in the agent's place is its output only where the output may be "
            "text; on a structured output_type it is an UnsupportedReturnError"
        ),
        "should_stop.true": (
            "a run stopped between turns answers with the last assistant text, which a structured "
            "output_type cannot take: there it is an UnsupportedReturnError"
        ),
        "pre_request.request": (
            "a request's model, tool_choice, reasoning_effort and response_format are the agent's "
            "to choose, and it can run only its own tools"
        ),
        "post_agent.response": (
            "a structured output stays in the run's stored history as the model gave it: a "
            "rewritten structured output (a redaction) is an UnsupportedReturnError rather than "
            "an answer whose history still holds what was removed; agent.run_stream() with a "
            "guard on the answer is refused the same way, since its text reaches the caller "
            "first"
        ),
        "pre_handoff": "Pydantic AI has no handoffs (agents call agents from tools)",
        "on_stream_chunk": (
            "agent.run_stream() is reported as one model request per turn; its text reaches the "
            "caller before on_response and post_agent"
        ),
    },
)
"""The Pydantic AI bridge's declaration (entry point ``agenthooks.bridges: pydantic_ai``)."""

__all__ = ["CAPABILITIES"]
