"""The run entry points of an agent's own conversation: ``chat``, ``chat_stream``, ``resume``,
``resume_stream`` and ``chat_sync``. Each is a method of ``Agent``, bound in its class body
(a call costs what any method call costs), and uses the conversation's state that
``Agent.__init__`` sets: ``_lock``, ``_history`` and ``_paused``."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from contextlib import aclosing
from functools import partial
from typing import TYPE_CHECKING

from ..decisions import Decision
from ..messages import AgentResponse
from ..paused import PausedRun
from .pausing import chat_in_memory, counting, keep, refuse_chat, require_paused
from .resume import check, restore, resume_body
from .run import Run
from .runner import execute, stream, stream_run
from .streaming import StreamEvent

if TYPE_CHECKING:
    from .agent import Agent


async def chat(self: Agent, message: str, signal: asyncio.Event | None = None) -> AgentResponse:
    """Run the agent on ``message`` in its own conversation; returns the final response.

    Setting ``signal`` aborts the run with ``RunAborted``; cancelling the task aborts it
    with ``CancelledError``. Either way ``on_chat_abort`` fires first.
    """
    async with self._lock:
        if self._paused is not None:
            refuse_chat(f"agent {self.name!r}", self._paused)
        return await chat_in_memory(
            self, Run(self, self.bus, self._history, signal=signal), message
        )


async def chat_stream(
    self: Agent, message: str, *, gated: bool = False, signal: asyncio.Event | None = None
) -> AsyncIterator[StreamEvent]:
    """Run the agent and yield ``TextDelta``, ``ToolCallStart``, ``ToolCallEnd`` and, last,
    ``FinalResponse``. ``gated=True`` (automatic when ``post_agent`` has a guard) withholds
    text until ``post_agent`` allowed the final answer. Closing the iterator aborts the run.
    """
    async with self._lock:
        refuse_chat(f"agent {self.name!r}", self._paused)
        run = Run(self, self.bus, self._history, signal=signal, gated=self._gated(gated))
        start = len(self._history)
        with counting(run):
            try:
                # closing this iterator must close the run's stream at once (abort), not
                # whenever the inner generator is garbage-collected
                async with aclosing(stream_run(run, message)) as items:
                    async for item in items:
                        yield item
            finally:
                self._paused = keep(run, start)


async def resume(
    self: Agent,
    decisions: Mapping[str, Decision] | None = None,
    signal: asyncio.Event | None = None,
) -> AgentResponse:
    """Continue the agent's own paused run (in this process; a ``Session`` with a store
    resumes in any): ``{call_id: Approve() or Deny(reason)}`` for each pending call."""
    async with self._lock:
        run, state, decided = _resumed(self, decisions, signal, False)
        with counting(run, state.records):
            try:
                return await execute(run, partial(resume_body, run, state, decided))
            finally:
                self._paused = keep(run, state.start)


async def resume_stream(
    self: Agent,
    decisions: Mapping[str, Decision] | None = None,
    *,
    gated: bool = False,
    signal: asyncio.Event | None = None,
) -> AsyncIterator[StreamEvent]:
    """``resume()`` yielding what ``chat_stream()`` yields."""
    async with self._lock:
        run, state, decided = _resumed(self, decisions, signal, self._gated(gated))
        body = partial(execute, run, partial(resume_body, run, state, decided))
        with counting(run, state.records):
            try:
                async with aclosing(stream(run, body)) as items:
                    async for item in items:
                        yield item
            finally:
                self._paused = keep(run, state.start)


def _resumed(
    agent: Agent,
    decisions: Mapping[str, Decision] | None,
    signal: asyncio.Event | None,
    gated: bool,
) -> tuple[Run, PausedRun, dict[str, Decision]]:
    state = require_paused(f"agent {agent.name!r}", agent._paused, None)
    decided = check(agent, state, dict(decisions or {}), None)
    run = Run(agent, agent.bus, agent._history, signal=signal, gated=gated)
    restore(run, state, agent)
    return run, state, decided


def chat_sync(self: Agent, message: str) -> AgentResponse:
    """``chat`` for scripts: runs its own event loop. Inside a running loop (async code,
    a notebook) ``await agent.chat(message)`` instead."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(self.chat(message))
    raise RuntimeError(
        f"agent {self.name!r}: chat_sync() cannot run inside a running event loop; "
        "use `await agent.chat(message)` there"
    )


__all__ = ["chat", "chat_stream", "chat_sync", "resume", "resume_stream"]
