"""A paused run: what it needs to go on in any process, and how it goes on.

``capture`` turns a run that just paused into a ``PausedRun`` (plain JSON data); ``check``
validates the decisions for it before anything runs; ``restore`` rebuilds the run; and
``resume_body`` continues it: ``on_run_resumed`` → one tool message per decision (an approved
call through the normal tool path, a denied one with exactly the reason) → the rest of the
paused turn (``prepare_next_turn`` → ``should_stop``, limits) → the next turns → ``post_agent``
→ the final answer, as in any run.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ...decisions import Approve, Decision, Deny
from ...errors import (
    MissingDecisionError,
    NotPendingError,
    ResumeError,
    ToolsChangedError,
    ToolValidationError,
)
from ...events.contexts import RunResumedContext
from ...messages import AgentResponse, ChatMessage, PendingCall, ToolCall
from ..chat_run import conclude
from ..handoffs import hand_over
from ..run_state import NO_USAGE, Run
from ..streaming import ToolCallEnd, ToolCallStart
from ..tool_batch import Batch, end_batch, run_tool_batch
from ..tool_call import tool_call, tool_message
from ..turn_loop import after_tools, run_turns
from .paused import Answer, PausedRun

if TYPE_CHECKING:
    from ..agent import Agent


def capture(run: Run, start: int) -> PausedRun:
    """The state of ``run``, which just paused; its messages begin at ``history[start]``."""
    history = run.history
    working = None if _same(run.messages, history) else list(run.messages)
    return PausedRun(
        run_id=run.run_id,
        agent=run.agent.name,
        iteration=run.iteration or 0,
        turns=run.turns,
        tool_calls=tool_calls_in(history[start:]),
        usage=run.usage,
        input=run.input,
        model=run.model,
        thinking=run.thinking,
        start=start,
        working=working,
        caps=[a.name for a, _ in run.caps],
        pending=list(run.pending),
        handoff=run.handoff.name if run.handoff is not None else None,
        terminating=run.terminating,
        records=run.records,
        paused_at=time.time(),
        state=run.carried,
    )


def tool_calls_in(messages: list[ChatMessage]) -> int:
    """The tool calls the model asked for in ``messages`` (a run's, before its pause)."""
    return sum(len(m.tool_calls) for m in messages if m.role == "assistant")


def _same(a: list[ChatMessage], b: list[ChatMessage]) -> bool:
    return len(a) == len(b) and all(x is y or x == y for x, y in zip(a, b))


def agents_by_name(root: Agent) -> dict[str, Agent]:
    """Every agent a run of ``root`` may be running when it pauses: ``root`` and its handoff
    targets, theirs, and so on, by name."""
    found: dict[str, Agent] = {}
    todo = [root]
    while todo:
        agent = todo.pop()
        if agent.name not in found:
            found[agent.name] = agent
            todo.extend(agent.handoffs)
    return found


def check(
    root: Agent,
    state: PausedRun,
    decisions: Mapping[str, Any],
    session: str | None,
) -> dict[str, Decision]:
    """The decision per pending call (the given ones over those recorded ahead), or the
    ``ResumeError`` that names what is wrong: a call id that is not pending, a pending call
    without a decision, a decision that is neither ``Approve`` nor ``Deny``, or an agent whose
    tools no longer match the stored calls."""
    where = f"session {session!r}" if session is not None else f"agent {root.name!r}"
    ids = [p.call_id for p in state.pending]
    for call_id, decision in decisions.items():
        if call_id not in ids:
            raise NotPendingError(
                f"{where}: call {call_id!r} is not pending; the paused run {state.run_id!r} "
                f"waits on: {', '.join(map(repr, ids))}",
                session_id=session,
                call_id=call_id,
            )
        if not isinstance(decision, (Approve, Deny)):
            raise ResumeError(
                f"{where}: the decision for call {call_id!r} is {type(decision).__name__}; "
                "give Approve() or Deny(reason)",
                session_id=session,
            )
    merged: dict[str, Decision] = {k: a.decision() for k, a in state.answers.items()}
    merged.update(decisions)
    missing = [i for i in ids if i not in merged]
    if missing:
        names = {p.call_id: p.tool for p in state.pending}
        listed = ", ".join(f"{i!r} ({names[i]})" for i in missing)
        raise MissingDecisionError(
            f"{where}: no decision for pending call{'s' * (len(missing) > 1)} {listed}; give "
            "Approve() or Deny(reason) for every pending call",
            session_id=session,
            call_ids=missing,
        )
    agents = agents_by_name(root)
    agent = agents.get(state.agent)
    if agent is None:
        raise ToolsChangedError(
            f"{where}: the paused run {state.run_id!r} was running agent {state.agent!r}, which "
            f"agent {root.name!r} no longer reaches (it reaches: {', '.join(sorted(agents))})",
            session_id=session,
        )
    for name in [*state.caps, *([state.handoff] if state.handoff else [])]:
        if name not in agents:
            raise ToolsChangedError(
                f"{where}: the paused run {state.run_id!r} reached agent {name!r}, which agent "
                f"{root.name!r} no longer reaches",
                session_id=session,
            )
    for pending in state.pending:
        found = agent.scopes.lookup(pending.tool)
        if found is None:
            offered = ", ".join(agent.scopes.names()) or "none"
            raise ToolsChangedError(
                f"{where}: pending call {pending.call_id!r} asks for tool {pending.tool!r}, "
                f"which agent {agent.name!r} no longer has (its tools: {offered})",
                session_id=session,
            )
        if isinstance(merged[pending.call_id], Approve):
            try:
                found[0].validate(pending.arguments)
            except ToolValidationError as exc:
                raise ToolsChangedError(
                    f"{where}: the stored arguments of pending call {pending.call_id!r} no "
                    f"longer validate: {exc}",
                    session_id=session,
                ) from None
    return {i: merged[i] for i in ids}


def restore(run: Run, state: PausedRun, root: Agent) -> None:
    """Make ``run`` (new, on ``root``'s history) the paused run again (after ``check``).

    Raises:
        ResumeError: The history no longer holds the message that made the pending calls
            (it names the session); nothing ran.
    """
    if state.pending:
        _assistant(run, state)  # before the run starts: a history that lost it resumes nothing
    agents = agents_by_name(root)
    agent = agents[state.agent]
    if agent is not run.agent:
        run.switch_to(agent)  # its own guards join the run's bus, as at the handoff
    run.run_id = state.run_id
    # (what a handoff target had spent before it took over is not stored: after a resume its
    # cap bounds the whole run, as the first agent's does)
    run.caps = tuple((agents[n], NO_USAGE) for n in state.caps if n in agents) or (
        (agent, NO_USAGE),
    )
    run.turns = state.turns
    run.iteration = state.iteration
    run.usage = state.usage
    run.input = state.input
    run.model = state.model
    run.thinking = state.thinking
    history = run.history
    run.messages = list(state.working) if state.working is not None else list(history)
    run.new_messages = list(history[state.start :])
    run.handoff = agents[state.handoff] if state.handoff else None
    run.terminating = state.terminating
    run.carried = dict(state.state)
    calls = _calls_of(history, state)
    run.open_calls = {c.id: c for c in calls}
    run.refresh_fields()  # its ids and agent changed


def _calls_of(history: list[ChatMessage], state: PausedRun) -> list[ToolCall]:
    """The pending calls as the model made them (from the assistant message that holds them)."""
    wanted = {p.call_id for p in state.pending}
    for message in reversed(history):
        if message.role == "assistant" and message.tool_calls:
            found = [c for c in message.tool_calls if c.id in wanted]
            if found:
                return found
    return []


def _assistant(run: Run, state: PausedRun) -> ChatMessage:
    """The assistant message that made the pending calls, or the ``ResumeError`` naming the
    session (the agent, for an agent's own paused run) when the history lost it."""
    wanted = {p.call_id for p in state.pending}
    for message in reversed(run.history):
        if message.role == "assistant" and any(c.id in wanted for c in message.tool_calls):
            return message
    session = run.session.id if run.session is not None else None
    where = f"session {session!r}" if session is not None else f"agent {run.agent.name!r}"
    raise ResumeError(
        f"{where}: the paused run {state.run_id!r} cannot resume: its history no longer holds "
        f"the assistant message that made its pending calls "
        f"({', '.join(repr(p.call_id) for p in state.pending)})",
        session_id=session,
    )


async def resume_body(run: Run, state: PausedRun, decisions: dict[str, Decision]) -> AgentResponse:
    """Continue the restored ``run``: ``on_run_resumed``, one tool message per decision, then
    the rest of the run."""
    await run.fire(
        "on_run_resumed",
        RunResumedContext,
        pending=list(state.pending),
        decisions=dict(decisions),
        records=state.records,
        state=dict(run.carried),
    )
    if not state.pending:  # recovered after a crash between turns: the next turn
        return await conclude(run, state.input, await run_turns(run))
    assistant = _assistant(run, state)
    agent = run.agent  # the agent that made the calls (a claimed handoff happens after them)
    terminated = await _answer(run, state, assistant, decisions) and state.terminating
    ended = await after_tools(run, agent, assistant, terminated)
    if ended is None:
        ended = await run_turns(run)
    return await conclude(run, state.input, ended)


async def _answer(
    run: Run, state: PausedRun, assistant: ChatMessage, decisions: dict[str, Decision]
) -> bool:
    """One tool message per decision, in the calls' order (a parallel agent: the denied
    ones first, then the approved ones as one parallel batch); True when every call asked to
    end the run (``terminate``)."""
    calls = {c.id: c for c in assistant.tool_calls}
    answered = [
        (calls[p.call_id], p, decisions[p.call_id]) for p in state.pending if p.call_id in calls
    ]
    approved = [_with_arguments(c, p) for c, p, d in answered if isinstance(d, Approve)]
    denied = len(approved) < len(answered)
    run.answered = frozenset(c.id for c in approved)
    try:
        if run.agent.parallel_tool_calls and len(approved) > 1:
            for call, _, decision in answered:
                if isinstance(decision, Deny):
                    await _deny(run, call, decision.text(call.name))
            return await run_tool_batch(run, approved) and not denied
        batch = Batch(run, None)
        outcomes = []
        for index, (call, pending, decision) in enumerate(answered):
            if isinstance(decision, Deny):
                await _deny(run, call, decision.text(call.name))
            else:
                call = _with_arguments(call, pending)
                outcomes.append(await tool_call(run, call, batch, index))
        terminate, target = end_batch(run, batch, outcomes)
        if target is not None:
            await hand_over(run, target)
        return terminate and not denied
    finally:
        run.answered = frozenset()


def _with_arguments(call: ToolCall, pending: PendingCall) -> ToolCall:
    """The call as it was asked about: the arguments the hooks had validated (and, maybe,
    rewritten) when the ``Ask`` came."""
    if call.arguments == pending.arguments and call.raw_arguments is None:
        return call
    return ToolCall(id=call.id, name=call.name, arguments=dict(pending.arguments))


async def _deny(run: Run, call: ToolCall, reason: str) -> None:
    """A human's ``Deny``: exactly ``reason`` as the call's tool message."""
    if run.sink is not None:
        await run.sink(ToolCallStart(call))
    await run.commit(tool_message(call, reason, is_error=True))
    if run.sink is not None:
        await run.sink(ToolCallEnd(call, error=reason))


__all__ = [
    "Answer",
    "PausedRun",
    "agents_by_name",
    "capture",
    "check",
    "restore",
    "resume_body",
    "tool_calls_in",
]
