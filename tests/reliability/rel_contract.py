"""What the contract says a faulty handler does to a run (``spec/events.md``: "Errors raised
inside handlers", "Decisions" rounds 1-3), written out here on its own so the tests do not
take the answer from the code under test.

The effects:

- ``ignored``: the run goes on as if the handler returned ``None`` (same events, same outcome);
- ``deny``: the step is refused as if the handler returned ``Deny(<the exception's text>)``;
- ``ends``: the run ends: ``on_chat_error`` with that very exception, which the caller gets;
- ``stop``: ``StopRun``: ``on_stop(reason)``, then ``on_chat_error``, the caller gets it;
- ``done_raise``: the run completed (``on_chat_done`` fired); the exception reaches the caller
  after ``on_chat_end`` (and ``on_session_end``) ran, without ``on_chat_error``;
- ``cancel``: the caller gets ``CancelledError`` once teardown is done; the run's terminal event
  is ``on_chat_abort``, unless the run had already ended (then it keeps its terminal event).
"""

from __future__ import annotations

GATES = frozenset({"on_user_message", "pre_agent", "pre_request", "pre_tool_call", "pre_handoff"})
CAN_DENY = GATES | {
    "on_chat_start",
    "on_session_start",
    "post_agent",
    "on_response",
    "on_tool_call_result",
}
TEARDOWN = frozenset({"on_chat_error", "on_chat_abort", "on_chat_end", "on_session_end"})
OBSERVERS = TEARDOWN | {
    "on_session_close",
    "on_loop_start",
    "on_loop_end",
    "on_stream_start",
    "on_stream_chunk",
    "on_stream_end",
    "on_stream_error",
    "on_message",
    "on_stop",
    "on_memory_read",
    "on_memory_write",
    "on_memory_error",
    "on_subagent_start",
    "on_subagent_stop",
    "on_handoff",
    "on_chat_done",
    "on_scope_register",
    "on_scope_unregister",
    "on_event",
}

POLICIES = ("raise", "isolate", "guard")
FAULTS = ("value", "keep", "cancel", "bad", "stop")


def effect(target: str, *, via_record: bool, policy: str, fault: str, top_done: bool) -> str:
    """The effect of a handler that faults on an emission of ``target``.

    ``via_record``: the handler is an ``on_event`` handler faulting on ``target``'s record.
    ``top_done``: the emission is ``on_chat_done`` of the top-level run (it is done already).
    """
    if fault == "cancel":
        return "cancel"
    if target in TEARDOWN:
        return "ignored"
    kind_observer = via_record or target in OBSERVERS
    if fault == "bad":
        if kind_observer:
            return "ignored"  # an observer's return value is ignored
        if policy == "raise":
            return "ends"
        if policy == "isolate":
            return "deny" if target in GATES else "ignored"
        return "deny" if target in CAN_DENY else "ends"
    if fault == "stop":
        return "stop"  # never isolated, whatever the policy
    # fault == "value" or "keep" (raising at that emission and every later one)
    if policy == "isolate":
        return "deny" if target in GATES and not via_record else "ignored"
    if policy == "guard" and target in CAN_DENY and not via_record:
        return "deny"
    if target == "on_chat_done" and top_done:
        return "done_raise"
    return "ends"
