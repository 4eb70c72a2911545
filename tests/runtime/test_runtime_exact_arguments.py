"""Arguments the model gives with exactly the plain types a tool declares skip the validator:
the tool, its hooks and its tool message see what validation would have given, and anything
else (a coercion, a missing or an extra argument, a constraint) still goes through it."""

from __future__ import annotations

from typing import Annotated, Any

import pytest
from pydantic import BaseModel, Field

from agenthooks import Agent, ProviderResponse, ScriptedProvider, ToolCall, ToolContext, tool
from agenthooks.errors import ToolValidationError


@tool(inline=True)
def describe(a: int, b: str, c: float, d: bool) -> str:
    """Say what arrived, with the types."""
    return repr([(type(v).__name__, v) for v in (a, b, c, d)])


def test_exact_types_are_known_only_for_plain_parameters() -> None:
    @tool
    def with_context(a: int, ctx: ToolContext) -> int:
        """A tool with its context."""
        return a

    @tool
    def constrained(a: Annotated[int, Field(ge=0)]) -> int:
        """A constrained parameter."""
        return a

    @tool
    def listed(a: list[int]) -> int:
        """A list parameter."""
        return len(a)

    @tool
    def optional(a: int | None = None) -> int:
        """An optional parameter."""
        return a or 0

    assert describe.exact_types == {"a": int, "b": str, "c": float, "d": bool}
    assert with_context.exact_types == {"a": int}
    assert (constrained.exact_types, listed.exact_types, optional.exact_types) == (None,) * 3


@pytest.mark.parametrize(
    "arguments",
    [
        {"a": 2, "b": "x", "c": 1.5, "d": True},  # exact: no validation
        {"a": "2", "b": "x", "c": 1.5, "d": True},  # "2" is coerced to 2
        {"a": 2, "b": "x", "c": 1, "d": True},  # 1 becomes 1.0
        {"a": 2, "b": "x", "c": 1.5, "d": "yes"},  # "yes" becomes True
        {"a": True, "b": "x", "c": 1.5, "d": True},  # a bool for an int: the validator decides
        {"a": 2, "b": "x", "c": 1.5},  # missing
        {"a": 2, "b": "x", "c": 1.5, "d": True, "e": 0},  # extra
        {"a": None, "b": "x", "c": 1.5, "d": True},  # None for an int
    ],
)
async def test_the_tool_and_its_hooks_see_what_validation_gives(arguments: dict[str, Any]) -> None:
    try:
        expected: Any = describe.validate(arguments)
    except ToolValidationError as exc:
        expected = exc
    call = ToolCall(id="c1", name="describe", arguments=arguments)
    agent = Agent(
        "calc",
        provider=ScriptedProvider([ProviderResponse(tool_calls=[call]), "done"]),
        tools=[describe],
    )
    seen: list[dict[str, Any]] = []
    agent.on("pre_tool_call", lambda ctx: seen.append(dict(ctx.call.arguments)))

    response = await agent.chat("go")

    message = response.messages[2]
    if isinstance(expected, ToolValidationError):
        assert (message.is_error, message.content, seen) == (True, str(expected), [])
    else:
        assert message.is_error is False
        assert message.content == repr([(type(v).__name__, v) for v in expected.values()])
        assert [{k: (type(v), v) for k, v in s.items()} for s in seen] == [
            {k: (type(v), v) for k, v in expected.items()}
        ]


class Point(BaseModel):
    x: int
    y: int


@tool
def place(point: Point, tags: list[str], label: str = "here") -> str:
    """Put a labelled point somewhere."""
    return f"{label}: {point.x},{point.y} {tags}"


def test_validated_arguments_are_the_fields_in_order_as_validated() -> None:
    arguments = place.validate({"tags": ["a"], "point": {"x": "1", "y": 2}})

    assert list(arguments) == ["point", "tags", "label"]  # declared order, defaults filled
    assert type(arguments["point"]) is Point  # a model argument stays a model
    assert arguments == {"point": Point(x=1, y=2), "tags": ["a"], "label": "here"}


def test_invalid_arguments_name_every_problem() -> None:
    with pytest.raises(ToolValidationError) as caught:
        place.validate({"point": {"x": 1}, "tags": "a", "extra": 1})

    assert str(caught.value) == (
        "invalid arguments for tool 'place': point.y: Field required; "
        "tags: Input should be a valid list; extra: Extra inputs are not permitted"
    )
