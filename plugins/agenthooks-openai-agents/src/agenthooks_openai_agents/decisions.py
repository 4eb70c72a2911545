"""What a human answered for the calls a paused run waits on, read from the ``RunState`` the
run resumes from.

The SDK keeps the answers of ``state.approve(item)`` / ``state.reject(item,
rejection_message=...)`` in the state's context, which it exposes only through the state's
serialized form (``RunState.to_json()``, the format it documents for resuming a run in another
process). A decision there is a record per tool: the call ids approved and rejected (or
``True`` for every call of the tool) and the rejection messages given.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from agents import RunState
from agents.exceptions import UserError
from agents.tool import DEFAULT_APPROVAL_REJECTION_MESSAGE

from agenthooks import Approve, Deny
from agenthooks.messages import PendingCall


def _records(context: Mapping[str, Any], tool: str) -> Iterable[Mapping[str, Any]]:
    """The decision records of ``tool``: per agent and tool, or per tool name alone."""
    for entry in context.get("function_tool_approvals") or ():
        if isinstance(entry, Mapping) and entry.get("tool_key") == tool:
            decision = entry.get("decision")
            if isinstance(decision, Mapping):
                yield decision
    legacy = (context.get("approvals") or {}).get(tool)
    if isinstance(legacy, Mapping):
        yield legacy


def _covers(value: Any, call_id: str) -> bool:
    return value is True or (isinstance(value, list) and call_id in value)


def _decision(context: Mapping[str, Any], call: PendingCall) -> Approve | Deny | None:
    for record in _records(context, call.tool):
        if _covers(record.get("rejected"), call.call_id):
            messages = record.get("rejection_messages") or {}
            text = messages.get(call.call_id) or record.get("sticky_rejection_message")
            return Deny(text if isinstance(text, str) else DEFAULT_APPROVAL_REJECTION_MESSAGE)
        if _covers(record.get("approved"), call.call_id):
            return Approve()
    return None


def _no_context(context: Any) -> dict[str, Any]:
    return {}


def decisions(state: RunState[Any], pending: Iterable[PendingCall]) -> dict[str, Approve | Deny]:
    """The answer given for each of ``pending`` (by call id): ``Approve()``, or ``Deny`` with
    the rejection message the model reads. A call nobody answered is left out (the SDK asks
    again); so is every call of a state the SDK cannot serialize (its ``UserError``: agents of
    one name it cannot tell apart)."""
    try:
        # the user's context is not what is read here: it is left out, so that serializing
        # neither warns about nor fails on a context the SDK cannot write as JSON
        data = state.to_json(context_serializer=_no_context)
    except UserError:
        return {}
    context = data.get("context")
    if not isinstance(context, Mapping):
        return {}
    found: dict[str, Approve | Deny] = {}
    for call in pending:
        decision = _decision(context, call)
        if decision is not None:
            found[call.call_id] = decision
    return found


__all__ = ["decisions"]
