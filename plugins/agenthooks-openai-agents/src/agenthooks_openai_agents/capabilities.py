"""What the Agents SDK bridge fires and carries out beyond what every bridge does, declared once:
``agenthooks bridges`` and the docs' capability table read it, and the tests pin it to
behaviour."""

from __future__ import annotations

from agenthooks.bridges import bridge_capabilities

CAPABILITIES = bridge_capabilities(
    "OpenAI Agents SDK",
    "agenthooks-openai-agents",
    "await AgentHooksRunner(bus).run(agent, input)",
    fires=[
        "pre_agent",
        "transform_context",
        "on_stream_start",
        "on_stream_chunk",
        "on_stream_end",
        "on_stream_error",
        "prepare_next_turn",
        "should_stop",
        "on_subagent_start",
        "on_subagent_stop",
        "pre_handoff",
        "on_handoff",
        "on_run_resumed",
    ],
    honours={
        "pre_agent": {"deny", "response"},
        "transform_context": {"messages"},
        "on_model_error": {"error"},
        "should_stop": {"true"},
        "on_tool_call_result": {"terminate"},
        "on_tool_call_error": {"terminate"},
        "prepare_next_turn": {"model", "thinking"},
    },
    gaps={
        "on_chat_start.deny": (
            "the SDK cannot end a run with an answer before it starts: the caller gets "
            "agenthooks.errors.RunDenied carrying the reason (on_chat_error)"
        ),
        "on_user_message.deny": (
            "the SDK cannot end a run with an answer before it starts: the caller gets "
            "agenthooks.errors.RunDenied carrying the reason (on_chat_error)"
        ),
        "pre_agent.deny": (
            "the SDK cannot end a run with an answer before it starts: the caller gets "
            "agenthooks.errors.RunDenied carrying the reason (on_chat_error)"
        ),
        "pre_handoff.deny": (
            "the SDK answers a handoff call with its own transfer message and cannot refuse it "
            "with a reason the model reads"
        ),
        "pre_handoff.ask": "a handoff is not a tool call the SDK's approvals can hold",
        "prepare_next_turn.messages": (
            "the SDK keeps the run's transcript itself; transform_context changes what each "
            "request sends"
        ),
        "prepare_next_turn.provider": (
            "the SDK resolves models through the run's model provider: return a model name "
            "({'model': ...}) it knows"
        ),
    },
)
"""The OpenAI Agents SDK bridge's declaration (entry point ``agenthooks.bridges: openai_agents``)."""

__all__ = ["CAPABILITIES"]
