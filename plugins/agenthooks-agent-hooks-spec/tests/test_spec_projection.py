"""Projections to the standard's JSON and back: each round-trips exactly without a transform,
writes a transformed value back where the run uses it, and refuses what it cannot represent."""

from __future__ import annotations

import json
from typing import Any

import pytest
from agenthooks_agent_hooks_spec import projection as p
from agenthooks_agent_hooks_spec.projection import ProjectionError
from pydantic import BaseModel

from agenthooks import ChatMessage, ProviderRequest, ProviderResponse, ToolCall, Usage


def _transcript() -> list[ChatMessage]:
    return [
        ChatMessage(role="user", content="book a flight"),
        ChatMessage(
            role="assistant",
            content=None,
            tool_calls=[ToolCall(id="c1", name="search", arguments={"to": "OSL", "n": 2})],
        ),
        ChatMessage(role="tool", content='{"flights": 3}', tool_call_id="c1", name="search"),
        ChatMessage(role="tool", content="timeout", tool_call_id="c2", name="price", is_error=True),
        ChatMessage(role="assistant", content="3 flights"),
    ]


def test_request_round_trips_with_instructions_as_a_leading_system_message() -> None:
    request = ProviderRequest(
        model="m",
        system="be brief",
        messages=_transcript(),
        tools=[{"type": "function", "function": {"name": "search"}}],
        temperature=0.2,
    )
    wire = p.request_to_wire(request)
    assert wire == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "book a flight"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c1", "name": "search", "args": {"to": "OSL", "n": 2}}],
        },
        {"role": "tool", "content": '{"flights": 3}', "tool_call_id": "c1", "name": "search"},
        {
            "role": "tool",
            "content": "timeout",
            "tool_call_id": "c2",
            "name": "price",
            "is_error": True,
        },
        {"role": "assistant", "content": "3 flights"},
    ]
    assert p.request_from_wire(request, json.loads(json.dumps(wire))) == request


def test_request_without_instructions_round_trips() -> None:
    request = ProviderRequest(messages=_transcript()[:1])
    wire = p.request_to_wire(request)
    assert wire == [{"role": "user", "content": "book a flight"}]
    assert p.request_from_wire(request, wire) == request


def test_transformed_messages_are_written_back_system_prompt_included() -> None:
    request = ProviderRequest(model="m", system="old rules", messages=_transcript()[:1])
    written = p.request_from_wire(
        request,
        [
            {"role": "system", "content": "new rules"},
            {"role": "user", "content": "book a [redacted]"},
            {"role": "system", "content": "reminder"},
        ],
    )
    assert written.system == "new rules"
    assert written.messages == [
        ChatMessage(role="user", content="book a [redacted]"),
        ChatMessage(role="system", content="reminder"),
    ]
    assert written.model == "m"
    dropped = p.request_from_wire(request, [{"role": "user", "content": "hi"}])
    assert dropped.system is None
    assert dropped.messages == [ChatMessage(role="user", content="hi")]


@pytest.mark.parametrize(
    ("messages", "error"),
    [
        ({"role": "user"}, "$target: expected an array, got dict"),
        ([{"role": "robot", "content": "x"}], "$target[0].role: expected one of"),
        (
            [{"role": "user", "content": {"text": "x"}}],
            "$target[0].content: expected a string or null, got dict",
        ),
        ([{"role": "user", "content": "x", "meta": 1}], "$target[0]: unknown members ['meta']"),
        ([{"role": "system", "content": 7}], "$target[0].content: expected a string, got int"),
        (
            [{"role": "assistant", "content": None, "tool_calls": [{"name": "f", "args": {}}]}],
            "$target[0].tool_calls[0].id: expected a non-empty string",
        ),
        (
            [{"role": "tool", "content": "x", "is_error": "yes"}],
            "$target[0].is_error: expected a boolean",
        ),
    ],
)
def test_messages_that_cannot_be_written_back_are_refused(messages: Any, error: str) -> None:
    with pytest.raises(ProjectionError) as info:
        p.request_from_wire(ProviderRequest(), messages)
    assert str(info.value).startswith(error)


def test_tools_project_name_description_and_schema() -> None:
    schema = {"type": "object", "properties": {"q": {"type": "string"}}}
    request = ProviderRequest(
        tools=[
            {
                "type": "function",
                "function": {"name": "find", "description": "Find.", "parameters": schema},
            },
            {"type": "function", "function": {"name": "bare"}},
        ]
    )
    assert p.tools_to_wire(request) == [
        {"name": "find", "description": "Find.", "schema": schema},
        {"name": "bare"},
    ]


def test_response_round_trips_and_keeps_usage_and_raw() -> None:
    response = ProviderResponse(
        content="checking",
        finish_reason="tool_calls",
        raw={"id": "x"},
        tool_calls=[ToolCall(id="c1", name="search", arguments={"q": "a"})],
        usage=Usage(input_tokens=10, output_tokens=5, total_tokens=15),
    )
    wire = p.response_to_wire(response)
    assert wire == {
        "content": "checking",
        "finish_reason": "tool_calls",
        "tool_calls": [{"id": "c1", "name": "search", "args": {"q": "a"}}],
    }
    assert p.response_from_wire(response, json.loads(json.dumps(wire))) == response
    written = p.response_from_wire(
        response, {"content": "[redacted]", "tool_calls": [], "finish_reason": "stop"}
    )
    assert (written.content, written.tool_calls, written.finish_reason) == (
        "[redacted]",
        [],
        "stop",
    )
    assert written.usage == response.usage and written.raw == {"id": "x"}


def test_response_without_tool_calls_projects_an_empty_list() -> None:
    assert p.response_to_wire(ProviderResponse(content=None)) == {
        "content": None,
        "tool_calls": [],
        "finish_reason": "stop",
    }


@pytest.mark.parametrize(
    ("value", "error"),
    [
        ("text", "$target: expected an object, got str"),
        (
            {"content": "x", "tool_calls": [], "finish_reason": "stop", "extra": 1},
            "$target: unknown members ['extra']",
        ),
        ({"content": 3, "tool_calls": []}, "$target.content: expected a string or null, got int"),
        (
            {"content": None, "tool_calls": [{"id": "c", "name": "f", "args": []}]},
            "$target.tool_calls[0].args: expected an object, got list",
        ),
        (
            {"content": None, "tool_calls": [], "finish_reason": None},
            "$target.finish_reason: expected a string",
        ),
    ],
)
def test_responses_that_cannot_be_written_back_are_refused(value: Any, error: str) -> None:
    with pytest.raises(ProjectionError) as info:
        p.response_from_wire(ProviderResponse(), value)
    assert str(info.value) == error


def test_usage_is_projected_only_when_reported() -> None:
    assert p.usage_to_wire(Usage()) is None
    assert p.usage_to_wire(Usage(input_tokens=7, output_tokens=3, total_tokens=10)) == {
        "prompt_tokens": 7,
        "completion_tokens": 3,
    }


def test_tool_arguments_round_trip_and_only_arguments_change() -> None:
    call = ToolCall(id="c1", name="pay", arguments={"amount": 100, "to": {"iban": "NO93"}})
    wire = p.call_to_wire(call)
    assert wire == {"id": "c1", "name": "pay", "args": {"amount": 100, "to": {"iban": "NO93"}}}
    assert p.args_from_wire(call, wire["args"]) == call
    assert p.args_from_wire(call, {"amount": 5}) == ToolCall(
        id="c1", name="pay", arguments={"amount": 5}
    )
    with pytest.raises(ProjectionError) as info:
        p.args_from_wire(call, [5])
    assert str(info.value) == "$target: expected an object, got list"


class _Receipt(BaseModel):
    id: str
    total: float


def test_tool_results_project_as_json_or_as_the_text_the_model_reads() -> None:
    for result in ("ok", 4, None, True, [1, {"a": None}], {"k": [1.5]}):
        value = p.result_to_wire(result)
        assert value == result
        assert json.loads(json.dumps(value)) == result  # written back as {"result": value}
    assert p.result_to_wire(_Receipt(id="r1", total=9.5)) == {"id": "r1", "total": 9.5}
    assert p.result_to_wire((1, 2)) == [1, 2]
    assert p.result_to_wire({1, 2}) == "[1, 2]"  # not JSON: the serialized text the model reads


def test_tool_errors_project_as_their_text_and_write_back_as_text() -> None:
    assert p.error_to_wire(TimeoutError("took too long")) == "took too long"
    assert p.error_to_wire(KeyError()) == "KeyError"
    assert p.error_to_wire("denied") == "denied"
    assert p.error_from_wire(p.error_to_wire("denied")) == "denied"
    assert p.error_from_wire({"code": 403}) == '{"code": 403}'


def test_text_fields_take_only_text() -> None:
    assert p.text_from_wire("hi", "$target.content") == "hi"
    assert p.text_from_wire(None, "$target.content", nullable=True) is None
    with pytest.raises(ProjectionError) as info:
        p.text_from_wire(None, "$target.content")
    assert str(info.value) == "$target.content: expected a string, got NoneType"


def test_non_json_values_are_refused_with_their_path() -> None:
    with pytest.raises(ProjectionError) as info:
        p.to_json({"a": [1, object()]}, "$target")
    assert str(info.value) == "$target.a[1]: object is not JSON"
    with pytest.raises(ProjectionError) as info:
        p.to_json({1: "x"})
    assert str(info.value) == "$: object key of type int"


def test_fingerprint_tells_true_from_one() -> None:
    assert p.fingerprint({"a": 1, "b": [True]}) == p.fingerprint({"b": [True], "a": 1})
    assert p.fingerprint(1) != p.fingerprint(True)
    assert p.fingerprint(1) != p.fingerprint(1.0)
