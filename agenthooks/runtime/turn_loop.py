"""The turn loop: one turn is one readable function.

on_loop_start → transform_context → pre_request → (stream) → on_response → assistant appended
→ tool calls → on_loop_end → prepare_next_turn → should_stop → next turn. A response without
tool calls ends the loop; its message is held back until ``post_agent`` allowed it. With an
``output_type``, that answer is checked first (``on_output``); a rejected one and its
correction are committed and the loop goes on (``output.check_output``). The finish reason is the
provider's, never rewritten. The calls of an answer the token limit cut off (``CUT_OFF``) do
not run: each gets a tool error (``tool_call.resolve``) and the loop goes on.
A batch with a call a hook asked about (``Ask``) ends the loop after ``on_loop_end``: the
run pauses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..decisions import Deny
from ..errors import BudgetExceeded, MaxTurnsExceeded
from ..events.catalog import GROUPS
from ..events.contexts import (
    LoopEndContext,
    LoopStartContext,
    PrepareNextTurnContext,
    ShouldStopContext,
    StopContext,
    TransformContextContext,
)
from ..messages import ChatMessage, ProviderRequest
from .model_call import model_call
from .output import check_output
from .run_state import Run, new_message
from .tool_batch import run_tool_batch

if TYPE_CHECKING:
    from .agent import Agent

CUT_OFF = frozenset({"length", "max_tokens"})
"""Finish reasons that say the token limit cut the answer (``max_tokens``: Anthropic's own,
from a provider that passes it through)."""
_BETWEEN_TURNS = GROUPS["between_turns"]


class Ended:
    """How the turns ended: the answer's content and finish reason with the final message
    held back (or None), or a deny."""

    __slots__ = ("content", "finish_reason", "held", "deny", "output")

    def __init__(
        self,
        content: str | None = None,
        finish_reason: str = "stop",
        held: ChatMessage | None = None,
        deny: Deny | None = None,
        output: Any = None,
    ) -> None:
        self.content = content
        self.finish_reason = finish_reason
        self.held = held
        self.deny = deny
        self.output = output


async def run_turns(run: Run) -> Ended:
    """Turns until the model answers without tools, a hook stops or denies, or a limit hits."""
    corrections = 0  # of answers that failed the output type (bounded by output_retries)
    while True:
        agent = run.agent
        spec = agent.output_spec
        run.iteration = run.turns
        await run.fire("on_loop_start", LoopStartContext)
        if run.capped:
            over = over_budget(run)
            if over is not None:
                await stop(run, "max_budget")
                raise BudgetExceeded(over, run.new_messages)
        messages = run.messages
        if "transform_context" in run.bus.listened:  # the copy is made only for a listener
            got = await run.fire(
                "transform_context", TransformContextContext, messages=list(messages)
            )
            if isinstance(got, TransformContextContext):
                messages = got.messages
        run.turns += 1
        # the request is built in the call: no frame of the run keeps it while tools run
        response = await model_call(
            run,
            ProviderRequest(
                model=run.model or "",
                system=agent.instructions
                if spec is None
                else spec.system(agent.instructions, run.provider),
                messages=messages,
                tools=agent.scopes.schemas(),
                tool_choice=agent.tool_choice,
                temperature=agent.temperature,
                reasoning_effort=run.thinking,
                response_format=None if spec is None else spec.format,
            ),
        )
        if isinstance(response, Deny):
            await run.fire("on_loop_end", LoopEndContext)
            return Ended(deny=response)
        usage = response.usage
        if usage.total_tokens or usage.input_tokens or usage.output_tokens or usage.cost:
            run.spend(usage)
        finish = response.finish_reason  # never rewritten: a reason not acted on is reported
        if not response.tool_calls:
            held = new_message(
                "assistant", response.content, thinking_blocks=response.thinking_blocks
            )
            output = None
            if spec is not None:
                verdict = await check_output(run, spec, held, corrections)
                if verdict is None:  # rejected: the answer and its correction are committed
                    corrections += 1
                    await run.fire("on_loop_end", LoopEndContext)
                    continue
                if isinstance(verdict, Deny):
                    await run.fire("on_loop_end", LoopEndContext)
                    return Ended(deny=verdict)
                output = verdict.value
            await run.fire("on_loop_end", LoopEndContext)
            return Ended(response.content, finish, held, output=output)
        assistant = new_message(
            "assistant",
            response.content,
            response.tool_calls,
            thinking_blocks=response.thinking_blocks,
        )
        await run.commit(assistant)
        terminated = await run_tool_batch(run, assistant.tool_calls, finish in CUT_OFF)
        await run.fire("on_loop_end", LoopEndContext)
        ended = await after_tools(run, agent, assistant, terminated)
        if ended is not None:
            return ended


async def after_tools(
    run: Run, agent: Agent, assistant: ChatMessage, terminated: bool
) -> Ended | None:
    """What follows a turn's tool calls (``agent`` made them): a pause (a hook asked), the
    end by ``terminate``, a ``should_stop``, the ``max_turns`` limit; None: the next turn."""
    if run.pending:
        return Ended(assistant.content, "paused")
    if terminated:
        return Ended(assistant.content, "terminated")
    if not _BETWEEN_TURNS.isdisjoint(run.bus.listened) and await _between_turns(run, assistant):
        return Ended(assistant.content, "stopped")
    if run.turns >= agent.max_turns:
        await stop(run, "max_turns")
        raise MaxTurnsExceeded(
            f"agent {agent.name!r} reached max_turns={agent.max_turns} with the model "
            "still asking for tools",
            run.new_messages,
        )
    return None


async def _between_turns(run: Run, assistant: ChatMessage) -> bool:
    """``prepare_next_turn`` then ``should_stop``; True when the run should stop."""
    count = len(assistant.tool_calls)
    fields = {
        "message": assistant,
        "tool_messages": run.new_messages[-count:],
        "new_messages": list(run.new_messages),
        "messages": list(run.messages),
        "provider": run.provider,
        "model": run.model or "",
        "thinking": run.thinking,
    }
    got = await run.fire("prepare_next_turn", PrepareNextTurnContext, **fields)
    if isinstance(got, PrepareNextTurnContext):
        if got.provider is not fields["provider"]:
            run.provider = got.provider
        if got.model != fields["model"]:
            run.model = got.model
        if got.thinking != fields["thinking"]:
            run.thinking = got.thinking
        if got.messages is not fields["messages"]:
            run.messages = list(got.messages)
        fields.update(
            provider=got.provider, model=got.model, thinking=got.thinking, messages=got.messages
        )
    bus = run.bus
    if "should_stop" not in bus.listened:
        return False
    verdict: bool = await bus.dispatch(
        "should_stop", ShouldStopContext(**run.context_fields, **fields)
    )
    return verdict


def over_budget(run: Run) -> str | None:
    """What the run (or a run above it, whose usage includes this one's) spent over a cap of
    an agent it reached, or None. A handoff target's cap bounds what was spent since it took
    over; the first agent's, the whole run."""
    current: Run | None = run
    while current is not None:
        usage = current.usage
        for agent, before in current.caps:
            tokens, cost = usage.total_tokens - before.total_tokens, usage.cost - before.cost
            if agent.max_total_tokens is not None and tokens >= agent.max_total_tokens:
                return (
                    f"agent {agent.name!r} used {tokens} tokens of "
                    f"max_total_tokens={agent.max_total_tokens}"
                )
            if agent.max_cost is not None and cost >= agent.max_cost - 1e-9:  # float sums
                return f"agent {agent.name!r} spent {cost} of max_cost={agent.max_cost}"
        current = current.parent
    return None


async def stop(run: Run, reason: str) -> None:
    """``on_stop`` before a limit error is raised."""
    await run.fire("on_stop", StopContext, reason=reason)


__all__ = [
    "CUT_OFF",
    "Ended",
    "after_tools",
    "over_budget",
    "run_turns",
    "stop",
]
