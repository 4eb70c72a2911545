"""Sub-agents as tools: the model calls an agent by name with a ``task``; that agent runs a run
of its own (starting from the task alone) and only its answer enters the parent's history.

The sub-agent runs on its own bus when it has one (with the guards of every bus above it),
else on its parent's, so delegation never bypasses a policy; its usage counts toward every run
above it.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

import structlog

from ..events.contexts import SubagentStartContext, SubagentStopContext
from ..tools import Tool, ToolContext
from .chat_run import execute_run
from .run_state import Run

if TYPE_CHECKING:
    from .agent import Agent

log = structlog.get_logger("agenthooks")


def subagent_tool(agent: Agent) -> Tool[Any]:
    """``agent`` as a tool of its parent: one argument, ``task``."""

    async def delegate_task(task: str, context: ToolContext) -> str:
        return await delegate(context.run, agent, task, context.call.id)

    description = agent.description or agent.instructions or f"Delegate a task to {agent.name}."
    tool = Tool(delegate_task, name=agent.name, description=description)
    tool.subagent = agent
    return tool


async def delegate(run: Run, sub: Agent, task: str, tool_call_id: str | None = None) -> str:
    """Run ``sub`` as a tool of ``run``: a run of its own that starts from ``task`` alone;
    ``tool_call_id`` (the delegating call) is carried by the sub-agent events."""
    child_bus = sub.bus.with_guards_of(run.bus) if sub.has_own_bus else run.bus
    child = Run(sub, child_bus, [], parent=run, session=run.session, signal=run.signal)
    started = time.perf_counter()

    async def stopped(**outcome: Any) -> None:
        await run.fire(
            "on_subagent_stop",
            SubagentStopContext,
            subagent=sub.name,
            task=task,
            tool_call_id=tool_call_id,
            duration=time.perf_counter() - started,
            **outcome,
        )

    began = False

    async def start() -> None:
        nonlocal began
        began = True  # from here on, on_subagent_stop is owed
        await run.fire(
            "on_subagent_start",
            SubagentStartContext,
            subagent=sub.name,
            task=task,
            tool_call_id=tool_call_id,
        )

    try:  # once on_subagent_start has begun, on_subagent_stop fires too, whatever happens
        if run.serial is None:
            await start()
        else:
            async with run.serial:  # re-entrant: waiting for the turn is not beginning
                await start()
        response = await execute_run(child, task)
    except asyncio.CancelledError as exc:
        if not began:
            raise
        # a sub-agent that its parent's abort cancelled still reports how it ended
        try:
            await stopped(error=exc)
        except BaseException as error:
            log.warning("teardown_handler_failed", hook_event="on_subagent_stop", error=repr(error))
        raise
    except Exception as exc:
        if began:
            await stopped(error=exc)
        raise
    await stopped(result=response.content)
    return response.content or ""


__all__ = ["delegate", "subagent_tool"]
