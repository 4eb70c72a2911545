"""A pause for a human through Pydantic AI's deferred tools, and the answers that resume it."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic_ai import DeferredToolResults, ToolDenied

from agenthooks import Approve, Deny

ASK_REASON = "agenthooks_ask"
"""The key of a deferred call's metadata that holds the ``Ask``'s reason."""


def resume_results(decisions: Mapping[str, Approve | Deny]) -> DeferredToolResults:
    """The ``DeferredToolResults`` that resume a paused run with agenthooks' answers.

    ``Approve()`` runs the call through the normal tool path (hooks and guards apply; an
    ``Ask`` for it counts as ``None``); ``Deny(reason)``: the tool never runs and the model
    reads ``reason`` as the call's result.

    Args:
        decisions: Per pending call id (``AgentResponse.pending[i].call_id``, the same as
            ``DeferredToolRequests.approvals[i].tool_call_id``), the answer.

    Raises:
        TypeError: An answer is neither ``Approve()`` nor ``Deny(...)``.
    """
    approvals: dict[str, bool | ToolDenied] = {}
    for call_id, decision in decisions.items():
        if isinstance(decision, Approve):
            approvals[call_id] = True
        elif isinstance(decision, Deny):
            approvals[call_id] = ToolDenied(decision.text())
        else:
            raise TypeError(
                f"the answer for call {call_id!r} is {decision!r}: answer with Approve() or "
                "Deny(reason)"
            )
    return DeferredToolResults(approvals=dict(approvals))


__all__ = ["ASK_REASON", "resume_results"]
