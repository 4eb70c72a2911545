"""What a bridge raises: a run refused where the framework can only refuse by raising, and a
handler's return the bridged framework cannot carry out."""

from __future__ import annotations

from .base import AgentHooksError


class RunDenied(AgentHooksError):
    """A hook denied a bridged run where its framework cannot end a run with an answer: the
    caller gets this error, carrying the reason, and ``on_chat_error`` fired with it."""

    def __init__(self, reason: str, *, event: str = "on_chat_start") -> None:
        self.reason = reason
        self.event = event
        super().__init__(f"{event} denied the run: {reason}")


class UnsupportedReturnError(AgentHooksError):
    """A handler returned something the bridged framework cannot do (a ``Deny`` of a handoff on
    the OpenAI Agents SDK, say). Raised at that moment, never ignored in silence."""

    def __init__(self, event: str, key: str, framework: str, why: str = "") -> None:
        self.event = event
        self.key = key
        self.framework = framework
        self.why = why
        what = {"deny": "Deny(...)", "ask": "Ask(...)"}.get(key, f"{{{key!r}: ...}}")
        detail = f": {why}" if why else ""
        super().__init__(
            f"a handler of {event!r} returned {what}, which {framework} cannot carry out{detail}"
        )


__all__ = ["RunDenied", "UnsupportedReturnError"]
