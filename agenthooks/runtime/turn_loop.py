"""The turn loop: one turn is one readable function.

on_loop_start → transform_context → pre_request → (stream) → on_response → assistant appended
→ tool calls → on_loop_end → prepare_next_turn → should_stop → next turn. A response without
tool calls ends the loop; its message is held back until ``post_agent`` allowed it. With an
``output_type``, that answer is checked first (``on_output``); a rejected one and its
correction are committed and the loop goes on (``check_output`` below). The finish reason is the
provider's, never rewritten. The calls of an answer the token limit cut off (``CUT_OFF``) do
not run: each gets a tool error (``tool_call.resolve``) and the loop goes on.
A batch with a call a hook asked about (``Ask``) ends the loop after ``on_loop_end``: the
run pauses.

Structured output: an agent's final answer checked against its ``output_type``.

A final answer (a response without tool calls) is parsed as JSON and validated; ``on_output``
sees the outcome and may replace the value, reject the answer or deny it. A rejected answer
stays in the transcript and goes back to the model with a correction (a user message naming
each problem) for another turn, at most ``Agent(output_retries=...)`` times; once they ran out,
``OutputValidationError`` ends the run.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pydantic import TypeAdapter, ValidationError
from pydantic.errors import PydanticUserError

from ..decisions import Deny
from ..errors import (
    BadReturnError,
    BudgetExceeded,
    MaxTurnsExceeded,
    OutputValidationError,
    RegistrationError,
)
from ..events.catalog import GROUPS
from ..events.contexts import (
    LoopEndContext,
    LoopStartContext,
    OutputContext,
    PrepareNextTurnContext,
    ShouldStopContext,
    StopContext,
    TransformContextContext,
)
from ..messages import ChatMessage, ProviderRequest, ResponseFormat
from .model_call import model_call
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


# --- structured output: the final answer checked against the agent's output_type -------

INSTRUCTIONS = (
    "Give your final answer as one JSON object, and nothing else, that matches this JSON "
    "schema:\n{schema}"
)
"""What the instructions say for a provider without a native structured-output mode."""

CORRECTION = "Your answer is not a valid {name}:\n{problems}\nAnswer again with only the corrected JSON object."
"""The user message that sends a rejected answer back (one ``- problem`` line each)."""

_FENCE = re.compile(r"```[\w-]*[ \t]*\n(.*?)\n?```", re.S)
_NAME = re.compile(r"[^A-Za-z0-9_-]")


class OutputSpec:
    """What an ``output_type`` asks of an agent's answers: the validator, the response format
    sent with every request, and the instructions for providers without a native mode."""

    __slots__ = ("type", "adapter", "format", "instructions", "retries")

    def __init__(self, output_type: Any, retries: int, *, strict: bool = False) -> None:
        if retries < 0:
            raise RegistrationError(f"output_retries must be 0 or more, got {retries}")
        try:
            adapter: TypeAdapter[Any] = TypeAdapter(output_type)
            schema = adapter.json_schema()
        except (PydanticUserError, TypeError) as exc:
            raise RegistrationError(
                f"output_type {output_type!r} has no JSON schema: {exc}"
            ) from None
        if schema.get("type") != "object":
            raise RegistrationError(
                f"output_type {output_type!r} must describe a JSON object (a pydantic model, "
                f"a dataclass or a TypedDict); its schema is {json.dumps(schema)}"
            )
        self.type = output_type
        self.adapter = adapter
        self.format = ResponseFormat(
            name=format_name(output_type), json_schema=schema, strict=strict
        )
        self.instructions = INSTRUCTIONS.format(schema=json.dumps(schema))
        self.retries = retries

    @property
    def name(self) -> str:
        """The name of the expected type (what a correction says)."""
        return self.format.name

    def system(self, instructions: str | None, provider: Any) -> str | None:
        """The request's ``system``: ``instructions`` alone when ``provider`` reads the
        response format, else followed by the schema."""
        if getattr(provider, "supports_response_format", False):
            return instructions
        return f"{instructions}\n\n{self.instructions}" if instructions else self.instructions

    def validate(self, text: str | None) -> tuple[Any, ValidationError | None]:
        """``(value, None)`` when ``text`` (a fenced code block allowed) is a valid answer,
        else ``(None, the ValidationError)``."""
        try:
            return self.adapter.validate_json(unfenced(text or "")), None
        except ValidationError as exc:
            return None, exc

    def accept(self, value: Any) -> Any:
        """A value an ``on_output`` handler gave, validated against the type."""
        try:
            return self.adapter.validate_python(value)
        except ValidationError as exc:
            raise BadReturnError(
                f"an on_output handler returned an output that is not a valid {self.name}: "
                + "; ".join(problems(exc))
            ) from None


class Accepted:
    """An answer that passed: its value."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


async def check_output(
    run: Run, spec: OutputSpec, answer: ChatMessage, corrections: int
) -> Accepted | Deny | None:
    """Check ``answer`` (held back, not yet committed) after ``corrections`` corrections.

    ``Accepted``: the answer stands. ``Deny``: an ``on_output`` handler discarded it. ``None``:
    it was rejected, and the answer and its correction are committed (each with
    ``on_message``) for the next turn. Raises ``OutputValidationError`` once the answer is
    rejected with no retry left (the answer committed first)."""
    text = answer.content
    value, error = spec.validate(text)
    failure: BaseException | str | None = error
    if "on_output" in run.bus.listened:
        got = await run.fire(
            "on_output",
            OutputContext,
            text=text or "",
            output_type=spec.type,
            output=value,
            error=error,
            attempt=corrections + 1,
            retries_left=spec.retries - corrections,
        )
        if isinstance(got, Deny):
            return got
        if got is not None:
            if got.error is not error:  # a handler rejected: that wins over any output
                value, failure = None, got.error
            elif got.output is not value:
                value, failure = spec.accept(got.output), None
    if failure is None:
        return Accepted(value)
    lines = problems(failure)
    await run.commit(answer)
    if corrections >= spec.retries:
        raise OutputValidationError(
            f"agent {run.agent.name!r}: the answer is not a valid {spec.name} after "
            f"{corrections + 1} attempts (output_retries={spec.retries}): " + "; ".join(lines),
            text=text,
            problems=lines,
            error=failure,
            attempts=corrections + 1,
            messages=run.new_messages,
        )
    await run.commit(new_message("user", correction(spec.name, lines)))
    return None


def correction(name: str, lines: Sequence[str]) -> str:
    """The text of the user message that sends a rejected answer back."""
    return CORRECTION.format(name=name, problems="\n".join(f"- {line}" for line in lines))


def problems(error: BaseException | str) -> list[str]:
    """What is wrong, one line per problem: ``field.path: message`` for each error of a
    ``ValidationError`` (the message alone for the whole answer), else the error's text."""
    if isinstance(error, ValidationError):
        return [_line(e["loc"], e["msg"]) for e in error.errors(include_url=False)]
    if isinstance(error, BaseException):
        return [str(error) or type(error).__name__]
    return [error]


def _line(loc: tuple[int | str, ...], message: str) -> str:
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return f"{path}: {message}" if path else message


def unfenced(text: str) -> str:
    """``text`` without the Markdown code fence a model may wrap its JSON in."""
    stripped = text.strip()
    if stripped.startswith("```"):
        match = _FENCE.fullmatch(stripped)
        if match is not None:
            return match.group(1)
    return stripped


def format_name(output_type: Any) -> str:
    """The response format's name for ``output_type``: its name in the characters providers
    accept, at most 64."""
    name = _NAME.sub("_", getattr(output_type, "__name__", "") or "output")
    return name[:64] or "output"


__all__ = [
    "CORRECTION",
    "CUT_OFF",
    "INSTRUCTIONS",
    "Accepted",
    "Ended",
    "OutputSpec",
    "after_tools",
    "check_output",
    "correction",
    "format_name",
    "over_budget",
    "problems",
    "run_turns",
    "stop",
    "unfenced",
]
