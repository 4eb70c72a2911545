"""An ``Ask`` from ``pre_tool_call`` as a LangGraph interrupt, and the answer a resume brings.

The interrupt's value describes the call (``{"type": "tool_approval", "tool_call_id", "name",
"args", "description"}``, as ``HumanInTheLoopMiddleware``'s per-call requests do); the run is
resumed with ``Command(resume=...)`` whose value, per interrupt, is ``Approve()`` or
``Deny(reason)`` (or the same decisions as ``HumanInTheLoopMiddleware`` writes them:
``{"type": "approve"}``, ``{"type": "reject", "message": reason}``). ``resume_command`` builds
that command from decisions keyed by tool call id.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langgraph.types import Command, Interrupt

from agenthooks import Approve, Deny
from agenthooks.errors import ResumeError
from agenthooks.messages import ToolCall
from agenthooks.plugins import Decision

REQUEST_TYPE = "tool_approval"
"""The ``type`` of the interrupt value a paused call raises."""


def approval_request(call: ToolCall, reason: str) -> dict[str, Any]:
    """The interrupt value for ``call``, which a hook asked about with ``reason``."""
    return {
        "type": REQUEST_TYPE,
        "tool_call_id": call.id,
        "name": call.name,
        "args": dict(call.arguments),
        "description": reason,
    }


def decision_of(value: Any, call: ToolCall) -> Decision:
    """The human's answer for ``call``, as ``Approve()`` or ``Deny(reason)``.

    Raises:
        ResumeError: ``value`` is neither a decision nor one written as a dict.
    """
    if isinstance(value, (Approve, Deny)):
        return value
    if isinstance(value, Mapping):
        kind = value.get("type")
        if kind == "approve":
            return Approve()
        if kind == "reject":
            message = value.get("message")
            return Deny(str(message) if message is not None else None)
    raise ResumeError(
        f"the answer for tool call {call.id!r} ({call.name}) must be Approve(), Deny(reason), "
        f'{{"type": "approve"}} or {{"type": "reject", "message": reason}}; got {value!r}'
    )


def as_plain(decision: Decision) -> dict[str, Any]:
    """A decision as plain data, which every LangGraph checkpointer stores."""
    if isinstance(decision, Approve):
        return {"type": "approve"}
    if isinstance(decision, Deny):
        return {"type": "reject", "message": decision.reason}
    raise ResumeError(f"a decision is Approve() or Deny(reason), not {decision!r}")


def resume_command(
    interrupts: Sequence[Interrupt], decisions: Mapping[str, Decision]
) -> Command[Any]:
    """The ``Command(resume=...)`` that answers the paused calls of ``interrupts`` (the
    ``result.interrupts`` or ``result["__interrupt__"]`` of the paused run) with
    ``decisions``, keyed by tool call id.

    Raises:
        ResumeError: A paused call has no decision, or a decision names no paused call.
    """
    ours = {
        i.value["tool_call_id"]: i.id
        for i in interrupts
        if isinstance(i.value, Mapping) and i.value.get("type") == REQUEST_TYPE
    }
    missing = sorted(set(ours) - set(decisions))
    unknown = sorted(set(decisions) - set(ours))
    if missing or unknown:
        raise ResumeError(
            f"decisions must answer exactly the paused calls {sorted(ours)}; "
            f"missing {missing}, not paused {unknown}"
        )
    return Command(resume={ours[cid]: as_plain(d) for cid, d in decisions.items()})


__all__ = ["REQUEST_TYPE", "approval_request", "as_plain", "decision_of", "resume_command"]
