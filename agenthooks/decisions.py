"""Decision values a hook returns instead of raising, and the answers a human gives at resume."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Deny:
    """Refuse the step an interceptor guards.

    On tool events the reason becomes the error text the model reads; on run-level events the
    run ends with ``finish_reason="denied"`` and the reason as its content. ``Deny()`` without
    a reason reads ``Tool call "NAME" was denied`` for tools and ``denied`` elsewhere. At
    ``resume()``, ``Deny(reason)`` answers a paused call: ``reason`` is exactly its tool message.
    """

    reason: str | None = None
    """Why: the tool message the model reads, or the run's content; ``None`` for the default."""

    def text(self, tool_name: str | None = None) -> str:
        """The reason as the model or caller reads it.

        Args:
            tool_name: The denied tool, for the default text; ``None`` on run-level events.
        """
        if self.reason:
            return self.reason
        return f'Tool call "{tool_name}" was denied' if tool_name else "denied"


@dataclass(frozen=True, slots=True)
class Ask:
    """Pause the run until a human decides (where the event accepts it: see the catalog's
    ``ask``; ``pre_tool_call`` and ``pre_handoff``).

    The asked tool call neither runs nor gets a tool message; the other calls of the same
    assistant message run or are denied as usual; then the run ends with
    ``finish_reason="paused"`` and the call in ``response.pending`` with ``reason``. For the
    flow of a chain an ``Ask`` is like a ``Deny``: the handlers after it (guards included) do
    not run. When ``resume()`` approves the call, an ``Ask`` for it counts as ``None``.
    """

    reason: str | None = None
    """What the human is asked, kept with the pending call; ``None`` for the default."""

    def text(self, tool_name: str | None = None) -> str:
        """The reason a human reads.

        Args:
            tool_name: The asked tool, for the default text.
        """
        if self.reason:
            return self.reason
        return f'Tool call "{tool_name}" needs approval' if tool_name else "needs approval"


@dataclass(frozen=True, slots=True)
class Approve:
    """A human's answer to a paused call at ``resume()``: the call runs through the normal
    tool path (hooks, guards and budgets apply; an ``Ask`` for it counts as ``None``)."""


Decision = Approve | Deny
"""What ``resume()`` takes per pending call id."""

__all__ = ["Approve", "Ask", "Decision", "Deny"]
