"""Decision values a hook returns instead of raising."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Deny:
    """Refuse the step an interceptor guards.

    On tool events the reason becomes the error text the model reads; on run-level events the
    run ends with ``finish_reason="denied"`` and the reason as its content. ``Deny()`` without
    a reason reads ``Tool call "NAME" was denied`` for tools and ``denied`` elsewhere.
    """

    reason: str | None = None

    def text(self, tool_name: str | None = None) -> str:
        """The reason as the model or caller reads it."""
        if self.reason:
            return self.reason
        return f'Tool call "{tool_name}" was denied' if tool_name else "denied"


__all__ = ["Deny"]
