"""A sub-agent that a bridged framework runs as a tool, reported as our runtime reports one:
``on_subagent_start`` inside the delegating tool call, before the sub-agent runs, and
``on_subagent_stop`` once it returned (its result) or failed (its error), with its duration.

A bridge whose framework marks an agent tool calls ``delegate`` from that tool's body. A bridge
that learns of a sub-agent only once it starts inside a tool call (a nested run of the same
framework) opens a ``Delegation`` for the call and reports each sub-agent as it starts and the
call as it ends. Either way the events sit between the call's ``pre_tool_call`` and its result
events, as on our runtime.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import structlog

from ..events.contexts import SubagentStartContext, SubagentStopContext
from .run import BridgeRun

T = TypeVar("T")

SUBAGENT_EVENTS = frozenset({"on_subagent_start", "on_subagent_stop"})
"""The events a delegation fires."""

log = structlog.get_logger("agenthooks")


class Delegation:
    """One tool call of ``run`` that may run sub-agents: ``start`` when one begins,
    ``stop`` once the call ended (each sub-agent that began gets its ``on_subagent_stop``).

    Args:
        run: The delegating run.
        tool_call_id: The delegating tool call's id.
    """

    __slots__ = ("run", "started", "tool_call_id")

    def __init__(self, run: BridgeRun, tool_call_id: str | None) -> None:
        self.run = run
        self.tool_call_id = tool_call_id
        self.started: list[tuple[str, str, float]] = []
        """Each sub-agent that began: its name, its task and when it began."""

    async def start(self, subagent: str, task: str) -> None:
        """``subagent`` begins on ``task``: ``on_subagent_start``."""
        # noted first: once on_subagent_start has begun, on_subagent_stop is owed
        self.started.append((subagent, task, time.perf_counter()))
        if "on_subagent_start" in self.run.bus.listened:
            await self.run.fire(
                "on_subagent_start",
                SubagentStartContext,
                subagent=subagent,
                task=task,
                tool_call_id=self.tool_call_id,
            )

    async def stop(self, result: Any = None, error: BaseException | None = None) -> None:
        """The call ended with ``result`` or ``error``: ``on_subagent_stop`` for each
        sub-agent that began. A cancellation is reported too, and goes on whatever that
        report raises."""
        started, self.started = self.started, []
        for subagent, task, began in started:
            try:
                await self.run.fire(
                    "on_subagent_stop",
                    SubagentStopContext,
                    subagent=subagent,
                    task=task,
                    tool_call_id=self.tool_call_id,
                    result=result,
                    error=error,
                    duration=time.perf_counter() - began,
                )
            except BaseException as failed:
                if not isinstance(error, asyncio.CancelledError):
                    raise
                log.warning(
                    "teardown_handler_failed", hook_event="on_subagent_stop", error=repr(failed)
                )


async def delegate(
    run: BridgeRun,
    subagent: str,
    task: str,
    tool_call_id: str | None,
    body: Callable[[], Awaitable[T]],
) -> T:
    """Run ``body`` (the framework running ``subagent`` on ``task``) as a delegation of
    ``run``'s tool call ``tool_call_id``: ``on_subagent_start``, the body, then
    ``on_subagent_stop`` with the body's result, or with its error (which goes on unchanged).

    Args:
        run: The delegating run.
        subagent: The sub-agent's name (what ``match=`` on sub-agent events matches).
        task: What the sub-agent is asked to do.
        tool_call_id: The delegating tool call's id.
        body: Runs the sub-agent and returns what the tool returns.
    """
    if SUBAGENT_EVENTS.isdisjoint(run.bus.listened):
        return await body()
    delegation = Delegation(run, tool_call_id)
    await delegation.start(subagent, task)
    try:
        result = await body()
    except BaseException as exc:
        await delegation.stop(error=exc)
        raise
    await delegation.stop(result=result)
    return result


__all__ = ["SUBAGENT_EVENTS", "Delegation", "delegate"]
