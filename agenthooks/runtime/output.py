"""Structured output: an agent's final answer checked against its ``output_type``.

A final answer (a response without tool calls) is parsed as JSON and validated; ``on_output``
sees the outcome and may replace the value, reject the answer or deny it. A rejected answer
stays in the transcript and goes back to the model with a correction (a user message naming
each problem) for another turn, at most ``Agent(output_retries=...)`` times; once they ran out,
``OutputValidationError`` ends the run. The turn loop (``turn_loop.py``) calls
``check_output`` on a held-back answer; ``Agent`` builds the ``OutputSpec``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from pydantic import TypeAdapter, ValidationError
from pydantic.errors import PydanticUserError

from ..decisions import Deny
from ..errors import BadReturnError, OutputValidationError, RegistrationError
from ..events.contexts import OutputContext
from ..messages import ChatMessage, ResponseFormat
from .run_state import Run, new_message

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
    "INSTRUCTIONS",
    "Accepted",
    "OutputSpec",
    "check_output",
    "correction",
    "format_name",
    "problems",
    "unfenced",
]
