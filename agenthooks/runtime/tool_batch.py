"""The tool calls of one assistant message: in which order and how concurrently they go
through the one tool path, and the handoff they may ask for.

Sequential: one call after the other. Parallel (``Agent(parallel_tool_calls=True)``): every
call's ``pre_tool_call`` in source order, then the tools concurrently, then each call's
after-event and tool message in source order; the run's handler chains take turns meanwhile.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Iterable
from typing import TYPE_CHECKING

from ..messages import ToolCall
from .handoffs import claimed_handoff, hand_over, refuse_handoff
from .run_state import HookTurn, Run
from .tool_call import Flight, ToolOutcome, tool_call

if TYPE_CHECKING:
    from .agent import Agent


class BatchOrder:
    """The order of a parallel batch: ``enter_before(i)`` waits for the calls before ``i`` to
    finish their before-phase; ``enter_call(i)`` for every call's, and for the calls before
    ``i`` to have started; ``enter_after(i)`` for every call to have finished and for the
    calls before ``i`` to have their tool message. Leaving twice is harmless."""

    __slots__ = ("_before", "_started", "_finished", "_after")

    def __init__(self, size: int) -> None:
        self._before = [asyncio.Event() for _ in range(size)]
        self._started = [asyncio.Event() for _ in range(size)]
        self._finished = [asyncio.Event() for _ in range(size)]
        self._after = [asyncio.Event() for _ in range(size)]

    async def enter_before(self, index: int) -> None:
        """Wait for the calls before ``index`` to finish their before-phase."""
        if index:
            await self._before[index - 1].wait()

    def leave_before(self, index: int) -> None:
        """Call ``index`` finished its before-phase."""
        self._before[index].set()

    async def enter_call(self, index: int) -> None:
        """Wait for every before-phase and for the calls before ``index`` to start."""
        await self._before[-1].wait()
        if index:
            await self._started[index - 1].wait()
        self._started[index].set()

    async def enter_after(self, index: int) -> None:
        """Call ``index`` finished; wait for every call, and for the tool messages before it."""
        self._finished[index].set()
        for finished in self._finished:
            await finished.wait()
        if index:
            await self._after[index - 1].wait()

    def leave_after(self, index: int) -> None:
        """Call ``index`` is done with: the calls after it go on, whatever happened."""
        for events in (self._before, self._started, self._finished, self._after):
            events[index].set()


class Batch:
    """One assistant message's calls: their flights so far, the order when parallel, and
    whether the answer that made them was cut off by the token limit (``cut_off``: none of
    them runs, see ``tool_call.resolve``)."""

    __slots__ = ("run", "flights", "order", "app", "cut_off")

    def __init__(self, run: Run, order: BatchOrder | None, cut_off: bool = False) -> None:
        self.run = run
        self.flights: list[Flight] = []
        self.order = order
        self.cut_off = cut_off
        self.app = run.stacks.tool
        """The tool call as built when the batch started (a registration during the batch
        applies from the next one)."""

    async def gate(self, flight: Flight) -> ToolOutcome | None:
        """What must refuse a call after its hooks allowed it: a handoff while an earlier call
        of the batch already hands over, or one its gates refuse."""
        tool = flight.tool
        if tool is None or tool.handoff is None:
            return None
        earlier = claimed_handoff(f for f in self.flights if f is not flight) or self.run.handoff
        return await refuse_handoff(self.run, flight.call, tool.handoff, earlier)


async def run_tool_batch(run: Run, calls: list[ToolCall], cut_off: bool = False) -> bool:
    """Run ``calls`` and write their tool messages; True when every call (at least one) asked
    to end the run (``terminate``). Calls a hook asked about get no message: they are added
    to ``run.pending`` (the run then pauses), and a handoff the batch claimed waits in
    ``run.handoff`` until the run is resumed. ``cut_off``: the answer stopped on the token
    limit, so every call gets a ``TruncatedCallError`` instead of running."""
    if run.agent.parallel_tool_calls and len(calls) > 1:
        batch = Batch(run, BatchOrder(len(calls)), cut_off)
        run.serial = HookTurn()
        try:
            outcomes = await _gather(tool_call(run, c, batch, i) for i, c in enumerate(calls))
        finally:
            run.serial = None
    else:
        batch = Batch(run, None, cut_off)
        outcomes = []
        for i, call in enumerate(calls):
            outcomes.append(await tool_call(run, call, batch, i))
    terminate, target = end_batch(run, batch, outcomes)
    if target is not None:
        await hand_over(run, target)
    return terminate


def end_batch(run: Run, batch: Batch, outcomes: list[ToolOutcome]) -> tuple[bool, Agent | None]:
    """The end of a batch: True when every call (at least one) asked to end the run, and the
    agent the batch hands over to now (None: none, or the run pauses and keeps it)."""
    # the batch's first allowed handoff, once every call has its tool message: the calls of
    # one assistant message belong to the agent that made them
    target: Agent | None = claimed_handoff(batch.flights) or run.handoff
    batch.flights.clear()  # a flight points at its batch: no cycle is left for the collector
    terminate = bool(outcomes)
    for outcome in outcomes:
        if outcome.asked is None and not outcome.terminate:
            terminate = False
            break
    if run.pending:  # the asked calls belong to the agent that made them: no handoff yet
        run.handoff, run.terminating = target, terminate
        return False, None
    run.handoff = None
    return terminate, target


async def _gather(calls: Iterable[Awaitable[ToolOutcome]]) -> list[ToolOutcome]:
    """Run ``calls`` concurrently; when one ends the run, cancel the others first."""
    tasks = [asyncio.ensure_future(c) for c in calls]
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


__all__ = ["Batch", "BatchOrder", "end_batch", "run_tool_batch"]
