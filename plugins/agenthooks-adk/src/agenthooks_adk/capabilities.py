"""What the ADK bridge fires and carries out, declared once (``agenthooks bridges`` and the
docs' capability table are generated from it; the tests pin it to behaviour)."""

from __future__ import annotations

from agenthooks.bridges import Capabilities

CAPABILITIES = Capabilities(
    framework="Google ADK",
    distribution="agenthooks-adk",
    setup=("Runner(agent=..., app_name=..., session_service=..., plugins=[AgentHooksPlugin(bus)])"),
    fires=frozenset(
        {
            "on_chat_start",
            "on_user_message",
            "on_message",
            "on_loop_start",
            "on_loop_end",
            "pre_request",
            "on_response",
            "on_model_error",
            "pre_tool_call",
            "on_tool_call_result",
            "on_tool_call_error",
            "post_agent",
            "on_chat_done",
            "on_chat_error",
            "on_chat_abort",
            "on_chat_paused",
            "on_run_resumed",
            "on_chat_end",
            "pre_handoff",
            "on_handoff",
            "on_subagent_start",
            "on_subagent_stop",
            "on_stream_start",
            "on_stream_chunk",
            "on_stream_end",
            "on_stream_error",
        }
    ),
    honours={
        "on_chat_start": frozenset({"deny"}),
        "on_user_message": frozenset({"message", "deny"}),
        "pre_request": frozenset({"request", "response", "deny"}),
        "on_response": frozenset({"response", "deny"}),
        "on_model_error": frozenset({"response"}),
        "pre_tool_call": frozenset({"call", "result", "error", "deny", "ask"}),
        "on_tool_call_result": frozenset({"result", "terminate", "deny"}),
        "on_tool_call_error": frozenset({"result", "error", "terminate"}),
        "post_agent": frozenset({"response", "deny"}),
        "pre_handoff": frozenset({"deny"}),
    },
    gaps={
        "pre_handoff.ask": (
            "ADK's tool confirmation pauses tool calls; the bridge does not pause a "
            "transfer_to_agent call with it (deny it, or ask before the run)"
        ),
        "on_model_error.error": (
            "ADK re-raises the model's own exception once its error callbacks return; a "
            "plugin can recover with a response but cannot put another error in its place"
        ),
        "on_chat_error": (
            "ADK re-raises an exception a plugin callback raised (a handler's, a typed "
            "denial) as RuntimeError('Error in plugin ...') chained from it (__cause__); "
            "on_chat_error gets the original"
        ),
        "on_chat_abort": (
            "ADK calls no plugin callback when a run is cancelled: the bridge sees the run's "
            "root task end cancelled (a root LlmAgent or workflow; an agent ADK runs in the "
            "caller's task is seen when that task ends)"
        ),
    },
)

__all__ = ["CAPABILITIES"]
