"""What every bridge fires and honours (the bridges' shared promise), and a declaration built
on it: a bridge's ``Capabilities`` names only what it adds to the baseline.

Gaps are worded one way across the bridges: the key is ``"event"`` (the bridge does not fire
it, or fires it only in part) or ``"event.return"`` (a return it does not carry out, or only
in part); the text is one clause with no final period, beginning lowercase (or with a name),
that says what the framework does that makes the gap and, after a colon, what a handler or
caller gets instead where that is not ``UnsupportedReturnError``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from .capabilities import Capabilities

BASELINE_FIRES = frozenset(
    {
        "on_chat_start",
        "on_user_message",
        "on_loop_start",
        "pre_request",
        "on_response",
        "on_model_error",
        "on_message",
        "pre_tool_call",
        "on_tool_call_result",
        "on_tool_call_error",
        "on_loop_end",
        "on_stop",
        "post_agent",
        "on_chat_done",
        "on_chat_paused",
        "on_chat_error",
        "on_chat_abort",
        "on_chat_end",
        "on_event",
    }
)
"""The events every bridge fires."""

BASELINE_HONOURS: Mapping[str, frozenset[str]] = {
    "on_chat_start": frozenset({"deny"}),
    "on_user_message": frozenset({"message", "deny"}),
    "pre_request": frozenset({"request", "response", "deny"}),
    "on_response": frozenset({"response", "deny"}),
    "on_model_error": frozenset({"response"}),
    "pre_tool_call": frozenset({"call", "result", "error", "deny", "ask"}),
    "on_tool_call_result": frozenset({"result", "deny"}),
    "on_tool_call_error": frozenset({"result", "error"}),
    "post_agent": frozenset({"response", "deny"}),
}
"""The returns every bridge carries out, per event (``"deny"`` / ``"ask"``: ``Deny`` /
``Ask``)."""


def bridge_capabilities(
    framework: str,
    distribution: str,
    setup: str,
    *,
    fires: Iterable[str] = (),
    honours: Mapping[str, Iterable[str]] | None = None,
    gaps: Mapping[str, str] | None = None,
) -> Capabilities:
    """A bridge's declaration: the baseline plus the events it also ``fires`` and the returns
    it also ``honours`` (merged per event), with its ``gaps``.

    Args:
        framework: The framework's display name.
        distribution: The distribution that holds the bridge.
        setup: The one line a user of that framework writes.
        fires: Events fired beyond ``BASELINE_FIRES``.
        honours: Return keys honoured beyond ``BASELINE_HONOURS``, per event.
        gaps: What the framework cannot do, keyed ``"event"`` or ``"event.return"``.

    Raises:
        UnknownEventError: An event name is not in the catalog.
        ConfigError: A return key is not one the event's handlers may return.
    """
    merged = dict(BASELINE_HONOURS)
    for event, keys in (honours or {}).items():
        merged[event] = merged.get(event, frozenset()) | frozenset(keys)
    return Capabilities(
        framework=framework,
        distribution=distribution,
        setup=setup,
        fires=BASELINE_FIRES | frozenset(fires),
        honours=merged,
        gaps=dict(gaps or {}),
    )


__all__ = ["BASELINE_FIRES", "BASELINE_HONOURS", "bridge_capabilities"]
