"""The bridge run an Agents SDK run belongs to, found from inside the SDK's own calls.

The hooked model and tools of a cloned agent look their run up here when the SDK calls them,
not when they are made: a clone that a ``RunState`` carries into a resumed run reports to that
run. The SDK copies the context into the tasks it starts (tool calls, a streamed run's loop),
so the lookup works wherever the SDK calls back.
"""

from __future__ import annotations

import asyncio
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from agents.models.interface import ModelProvider

from agenthooks import AgentResponse, Approve, Deny
from agenthooks.bridges import BridgeRun, ToolOutcome
from agenthooks.events import RunResumedContext
from agenthooks.messages import FinishReason, PendingCall, ToolCall


@dataclass(eq=False)
class Approval:
    """A tool call whose hooks ran ahead of its body, so that an ``Ask`` can become the SDK's
    own approval request: ``task`` runs the hook layer and waits at ``body`` until the SDK
    invokes the tool."""

    call: ToolCall
    """The call as the hooks got it (its validated arguments)."""
    task: asyncio.Task[ToolOutcome]
    body: asyncio.Future[Any]
    """Resolved with the tool body (``async (arguments) -> result``) once the SDK runs it."""


@dataclass(eq=False)
class RunScope:
    """What one bridged run carries between the SDK's callbacks."""

    run: BridgeRun
    input: str = ""
    """The user message the run started with (``post_agent``'s ``input``)."""
    ready: asyncio.Event | None = None
    """Set once the run's start events ran (a streamed run's model waits for it)."""
    refused: BaseException | None = None
    """Why the run may not go on (a streamed run's start denied or failed)."""
    preset: AgentResponse | None = None
    """The answer a ``pre_agent`` handler gave: the agent's first turn says it, no model is
    called."""
    finish: FinishReason = "stop"
    """How the run ended: ``stopped`` by ``should_stop``, ``terminated`` by a batch whose
    calls all returned ``{"terminate": True}``."""
    terminating: set[str] = field(default_factory=set)
    """The calls whose outcome asked to end the run after their batch."""
    denied: Deny | None = None
    """The ``Deny`` that ended the run inside the SDK (its reason is the answer)."""
    answered: bool = False
    """``post_agent`` ran on the agent's answer."""
    ours: BaseException | None = None
    """An exception of a hook raised inside an SDK callback: the caller gets it as raised,
    also where the SDK wraps it (a tool's ``UserError``)."""
    approvals: dict[str, Approval] = field(default_factory=dict)
    asked: dict[str, PendingCall] = field(default_factory=dict)
    """The calls an ``Ask`` paused, by call id."""
    approved: frozenset[str] = frozenset()
    """The call ids a human answered before this (resumed) run."""
    model: str | None = None
    """The model name ``prepare_next_turn`` switched the rest of the run to."""
    thinking: str | None = None
    """The reasoning effort ``prepare_next_turn`` set for the rest of the run."""
    provider: ModelProvider | None = None
    """The run's model provider (what a model name is looked up in)."""
    resuming: list[PendingCall] | None = None
    """The calls a resumed run waited on, until ``on_run_resumed`` reported them with the
    decisions (``announce_resumed``)."""
    rewritten: tuple[str, str] | None = None
    """``(original, rewritten)`` user message of a streamed run, whose input the SDK already
    holds when ``on_user_message`` rewrites it: each request carries the rewritten one."""

    def raised(self, exc: BaseException) -> BaseException:
        """Note ``exc`` as ours (a hook's, not the framework's) and hand it back to raise."""
        if self.ours is None:
            self.ours = exc
        return exc

    def unwrap(self, exc: BaseException) -> BaseException:
        """The exception the caller gets for ``exc``: a hook's own where the SDK wrapped it."""
        ours = self.ours
        if ours is None or ours is exc:
            return exc
        seen: BaseException | None = exc
        while seen is not None:
            if seen is ours:
                return ours
            seen = seen.__cause__ or seen.__context__
        return exc

    def close(self) -> None:
        """Drop the hook layers still waiting for a body the SDK never ran."""
        for pending in self.approvals.values():
            if not pending.task.done():
                pending.task.cancel()
        self.approvals.clear()


async def announce_resumed(scope: RunScope, ctx: Any = None) -> None:
    """``on_run_resumed`` for a resumed run, with each waiting call's decision as the SDK's
    run context holds it (``ctx.is_tool_approved``, public on the context an SDK tool
    callback gets); without one (no approved call ran before the next model call), every
    call was rejected."""
    pending, scope.resuming = scope.resuming, None
    if pending is None:
        return
    decisions: dict[str, Approve | Deny] = {}
    for call in pending:
        approved = ctx.is_tool_approved(call.tool, call.call_id) if ctx is not None else False
        if approved is True:
            decisions[call.call_id] = Approve()
        elif approved is False:
            decisions[call.call_id] = Deny()
    await scope.run.fire("on_run_resumed", RunResumedContext, pending=pending, decisions=decisions)


ACTIVE: ContextVar[RunScope | None] = ContextVar("agenthooks_openai_agents_run", default=None)
"""The bridged run the current SDK call belongs to (``None`` outside ``AgentHooksRunner``)."""


def current() -> RunScope | None:
    """The bridged run the SDK is calling back for, if any."""
    return ACTIVE.get()


__all__ = ["ACTIVE", "Approval", "RunScope", "announce_resumed", "current"]
