"""What the Strands bridge fires and carries out beyond what every bridge does, declared once:
``agenthooks bridges`` and the docs' capability table read it, and the tests pin it to
behaviour."""

from __future__ import annotations

from agenthooks.bridges import bridge_capabilities

CAPABILITIES = bridge_capabilities(
    "Strands",
    "agenthooks-strands",
    "Agent(model=..., tools=..., plugins=[AgentHooksPlugin(bus)])",
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
        "on_run_resumed",
    ],
    honours={
        "pre_agent": {"deny", "response"},
        "transform_context": {"messages"},
        "on_model_error": {"error"},
        "should_stop": {"true"},
        "on_tool_call_result": {"terminate"},
        "on_tool_call_error": {"terminate"},
    },
    gaps={
        "post_agent.deny": (
            "Strands commits the final assistant message itself; a denied answer is committed "
            "with the reason as its text instead of the withheld content"
        ),
        "on_stream_chunk": (
            "observers hear every chunk as Strands streams it; while a model-call hook or "
            "provider middleware listens, the caller gets the call's stream events once its hooks "
            "are done (a rewrite or short-circuit can change the answer)"
        ),
        "pre_agent": "fires for the invoked agent (an agent used as a tool is its own run)",
        "pre_handoff": "Strands has no handoffs",
        "prepare_next_turn": (
            "Strands calls the agent's own Model with the agent's own transcript: a turn cannot "
            "change the provider, model, thinking or working messages"
        ),
    },
)
"""The Strands bridge's declaration (entry point ``agenthooks.bridges: strands``)."""

__all__ = ["CAPABILITIES"]
