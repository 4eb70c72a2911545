"""The journal of a run whose conversation lives in a store: what the runtime tells it, and
when, so a paused run is stored before anyone hears of the pause and a crash loses as little
as possible.

``starting`` comes right before a tool runs (the store then knows the call may have run),
``committed`` right after a call's tool message is in history (its result is then stored),
``pausing`` before ``on_chat_paused`` (the paused state is stored first). A run without a
journal (an in-memory conversation) pays nothing for it.

A write that fails raises ``StoreError``: our own failure, never the tool's outcome
(``errors.ends_run``), so the run ends with it: ``starting`` fails before the tool runs,
``pausing`` before anyone hears of the pause (the run then ends with the error, not paused).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ...messages import AgentResponse, ToolCall
    from ..run_state import Run


class Journal(Protocol):
    """What a run reports to the store that keeps its conversation."""

    async def starting(self, run: Run, call: ToolCall) -> None:
        """``call``'s tool is about to run: store what the run committed so far and mark the
        call started."""
        ...

    async def committed(self, run: Run, call: ToolCall) -> None:
        """``call`` has its tool message in history: store it."""
        ...

    async def pausing(self, run: Run, response: AgentResponse) -> None:
        """The run pauses with ``response``: store the paused state."""
        ...


__all__ = ["Journal"]
