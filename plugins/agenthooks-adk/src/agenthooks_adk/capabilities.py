"""What the ADK bridge fires and carries out beyond what every bridge does, declared once:
``agenthooks bridges`` and the docs' capability table read it, and the tests pin it to
behaviour."""

from __future__ import annotations

from agenthooks.bridges import bridge_capabilities

CAPABILITIES = bridge_capabilities(
    "Google ADK",
    "agenthooks-adk",
    "Runner(app=App(name=..., root_agent=agent, plugins=[AgentHooksPlugin(bus)]), ...)",
    fires=[
        "on_stream_start",
        "on_stream_chunk",
        "on_stream_end",
        "on_stream_error",
        "on_subagent_start",
        "on_subagent_stop",
        "pre_handoff",
        "on_handoff",
        "on_run_resumed",
    ],
    honours={
        "on_tool_call_result": {"terminate"},
        "on_tool_call_error": {"terminate"},
        "pre_handoff": {"deny"},
    },
    gaps={
        "pre_handoff.ask": (
            "ADK's tool confirmation pauses tool calls; the bridge does not pause a "
            "transfer_to_agent call with it (deny it, or ask before the run)"
        ),
        "on_model_error.error": (
            "ADK re-raises the model's own exception once its error callbacks return; a plugin "
            "can recover with a response but cannot put another error in its place"
        ),
        "on_chat_error": (
            "ADK re-raises an exception a plugin callback raised (a handler's, a typed denial) as "
            "RuntimeError('Error in plugin ...') chained from it (__cause__); on_chat_error gets "
            "the original"
        ),
        "on_chat_abort": (
            "ADK calls no plugin callback when a run is cancelled: the bridge sees the run's root "
            "task end cancelled (a root LlmAgent or workflow; an agent ADK runs in the caller's "
            "task is seen when that task ends)"
        ),
    },
)
"""The Google ADK bridge's declaration (entry point ``agenthooks.bridges: adk``)."""

__all__ = ["CAPABILITIES"]
