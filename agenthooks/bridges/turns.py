"""Between two turns of a bridged run: ``prepare_next_turn`` then ``should_stop``, with the
context fields of our runtime's turn loop, fired once here for every bridge."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..events.catalog import GROUPS
from ..events.contexts import PrepareNextTurnContext, ShouldStopContext
from ..messages import ChatMessage
from .capabilities import VERDICT

if TYPE_CHECKING:
    from .run import BridgeRun

BETWEEN_TURNS = GROUPS["between_turns"]
_RETURNS = ("provider", "model", "thinking", "messages")


@dataclass
class NextTurn:
    """What the handlers between two turns decided.

    Attributes:
        stop: ``should_stop`` said True: the run ends gracefully (``finish_reason="stopped"``)
            with the last assistant text as its answer.
        changed: The ``prepare_next_turn`` returns the next request takes (each one the
            bridge's declaration honours; any other is an ``UnsupportedReturnError``).
        provider: The provider for the rest of the run (as given when unchanged).
        model: The model for the rest of the run.
        thinking: The reasoning effort for the rest of the run.
        messages: The working messages the next request starts from.
    """

    stop: bool = False
    changed: frozenset[str] = frozenset()
    provider: Any = None
    model: str = ""
    thinking: str | None = None
    messages: list[ChatMessage] = field(default_factory=list)


async def between_turns(
    run: BridgeRun,
    *,
    message: ChatMessage | None,
    tool_messages: Sequence[ChatMessage] = (),
    new_messages: Sequence[ChatMessage] = (),
    messages: Sequence[ChatMessage] = (),
    provider: Any = None,
    model: str = "",
    thinking: str | None = None,
) -> NextTurn:
    """Fire ``prepare_next_turn`` then ``should_stop`` for ``run``, as our runtime does after
    a turn's tool results: ``should_stop`` reads the values ``prepare_next_turn`` left."""
    fields: dict[str, Any] = {
        "message": message,
        "tool_messages": list(tool_messages),
        "new_messages": list(new_messages),
        "messages": list(messages),
        "provider": provider,
        "model": model,
        "thinking": thinking,
    }
    turn = NextTurn(provider=provider, model=model, thinking=thinking, messages=fields["messages"])
    listened = run.bus.listened
    if BETWEEN_TURNS.isdisjoint(listened):
        return turn
    got = await run.fire("prepare_next_turn", PrepareNextTurnContext, **fields)
    if isinstance(got, PrepareNextTurnContext):
        changed = set()
        for key in _RETURNS:
            value = getattr(got, key)
            if value is not fields[key] and value != fields[key]:
                run.capabilities.require("prepare_next_turn", key)
                changed.add(key)
                fields[key] = value
        turn.changed = frozenset(changed)
        turn.provider, turn.model = fields["provider"], fields["model"]
        turn.thinking, turn.messages = fields["thinking"], list(fields["messages"])
    if "should_stop" in listened:
        # a predicate: the chain's verdict comes back in place of the context
        verdict: object = await run.fire("should_stop", ShouldStopContext, **fields)
        if verdict is True:
            # a True is a return like any other: a bridge whose loop cannot end here says so
            run.capabilities.require("should_stop", VERDICT)
            turn.stop = True
    return turn


__all__ = ["BETWEEN_TURNS", "NextTurn", "between_turns"]
