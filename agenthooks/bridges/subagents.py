"""A sub-agent that a bridged framework runs as a tool, reported as our runtime reports one:
``on_subagent_start`` inside the delegating tool call, before the sub-agent runs, and
``on_subagent_stop`` once it returned (its result) or failed (its error), with its duration.

A bridge calls ``delegate`` from the tool body where its framework runs the sub-agent, so the
events sit between the call's ``pre_tool_call`` and its result events, as on our runtime.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

import structlog

from ..events.contexts import SubagentStartContext, SubagentStopContext
from .run import BridgeRun

T = TypeVar("T")

SUBAGENT_EVENTS = frozenset({"on_subagent_start", "on_subagent_stop"})
"""The events a delegation fires."""

log = structlog.get_logger("agenthooks")


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
    started = time.perf_counter()

    async def stopped(**outcome: object) -> None:
        await run.fire(
            "on_subagent_stop",
            SubagentStopContext,
            subagent=subagent,
            task=task,
            tool_call_id=tool_call_id,
            duration=time.perf_counter() - started,
            **outcome,
        )

    await run.fire(
        "on_subagent_start",
        SubagentStartContext,
        subagent=subagent,
        task=task,
        tool_call_id=tool_call_id,
    )
    try:
        result = await body()
    except asyncio.CancelledError as exc:
        # a sub-agent its parent's cancellation stopped still reports how it ended; the
        # cancellation goes on whatever that report raises
        try:
            await stopped(error=exc)
        except BaseException as error:
            log.warning("teardown_handler_failed", hook_event="on_subagent_stop", error=repr(error))
        raise
    except Exception as exc:
        await stopped(error=exc)
        raise
    await stopped(result=result)
    return result


__all__ = ["SUBAGENT_EVENTS", "delegate"]
