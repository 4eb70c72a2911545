"""What the LangChain bridge fires and which returns it carries out, declared once: the docs'
capability table, ``agenthooks bridges`` and the capability test read this."""

from __future__ import annotations

from agenthooks.bridges import Capabilities

CAPABILITIES = Capabilities(
    framework="LangChain",
    distribution="agenthooks-langchain",
    setup="create_agent(model, tools, middleware=[AgentHooksMiddleware(bus)])",
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
            "pre_tool_call",
            "on_tool_call_result",
            "on_tool_call_error",
            "on_message",
            "on_loop_end",
            "prepare_next_turn",
            "should_stop",
            "on_stop",
            "post_agent",
            "on_chat_done",
            "on_chat_paused",
            "on_chat_error",
            "on_chat_abort",
            "on_chat_end",
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
        "pre_request.request": (
            "a rewritten request may change the messages, the system prompt and which of the "
            "agent's tools are offered; LangChain's model object cannot be swapped by name, so "
            "a changed model, temperature or response format raises"
        ),
        "pre_tool_call.ask": (
            "pauses through LangGraph's interrupt(), which needs a checkpointer "
            "(create_agent(..., checkpointer=InMemorySaver()))"
        ),
        "prepare_next_turn": (
            "observed (limits stop a run there); LangChain's model object and state make the "
            "next call, so a changed model, provider, thinking or transcript raises"
        ),
        "on_run_resumed": (
            "a resumed LangGraph run re-enters each paused tool call on its own; there is no "
            "single point that knows every decision"
        ),
        "on_tool_call_result.terminate": (
            "create_agent ends a run after a tool only for a tool declared return_direct"
        ),
        "on_tool_call_error.terminate": (
            "create_agent ends a run after a tool only for a tool declared return_direct"
        ),
        "pre_handoff": "create_agent has no handoffs",
        "on_stream_chunk": (
            "a middleware sees the model's whole answer; LangChain streams tokens to "
            "astream(stream_mode='messages') through its callbacks, around the middleware"
        ),
    },
)
"""The LangChain bridge's declaration (entry point ``agenthooks.bridges: langchain``)."""

__all__ = ["CAPABILITIES"]
