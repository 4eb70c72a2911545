"""What the LangChain bridge fires and carries out beyond what every bridge does, declared once:
``agenthooks bridges`` and the docs' capability table read it, and the tests pin it to
behaviour."""

from __future__ import annotations

from agenthooks.bridges import bridge_capabilities

CAPABILITIES = bridge_capabilities(
    "LangChain",
    "agenthooks-langchain",
    "create_agent(model, tools, middleware=[AgentHooksMiddleware(bus)])",
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
        "pre_request.request": (
            "a rewritten request may change the messages, the system prompt and which of the "
            "agent's tools are offered; LangChain's model object cannot be swapped by name, so a "
            "changed model, temperature or response format raises"
        ),
        "pre_tool_call.ask": (
            "pauses through LangGraph's interrupt(), which needs a checkpointer "
            "(create_agent(..., checkpointer=InMemorySaver()))"
        ),
        "prepare_next_turn": (
            "observed (limits stop a run there); LangChain's model object and state make the next "
            "call, so a changed model, provider, thinking or transcript raises"
        ),
        "on_tool_call_result.terminate": (
            "create_agent ends a run after a tool only for a tool declared return_direct"
        ),
        "on_tool_call_error.terminate": (
            "create_agent ends a run after a tool only for a tool declared return_direct"
        ),
        "pre_handoff": "create_agent has no handoffs",
        "on_chat_abort": (
            "LangGraph raises a CancelledError a handler raised inside a node as its "
            "NodeCancelledError, chained from it: the run ends with on_chat_abort and the "
            "caller gets LangGraph's exception"
        ),
        "on_stream_chunk": (
            "a middleware sees the model's whole answer; LangChain streams tokens to "
            "astream(stream_mode='messages') through its callbacks, around the middleware"
        ),
    },
)
"""The LangChain bridge's declaration (entry point ``agenthooks.bridges: langchain``)."""

__all__ = ["CAPABILITIES"]
