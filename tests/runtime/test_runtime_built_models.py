"""The models a run builds itself (messages, requests, responses, tool-call contexts,
``on_event`` records) report every field as set, as the models a provider sends do, and
changing or copying one never shows in another."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from agenthooks import Agent, ProviderResponse, ScriptedProvider, ToolCall, tool


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


async def built_by_a_run() -> dict[str, list[BaseModel]]:
    """Every kind of model one run (user → add(2, 3) → "5") builds itself, by kind."""
    provider = ScriptedProvider(
        [
            ProviderResponse(
                tool_calls=[ToolCall(id="c1", name="add", arguments={"a": 2, "b": 3})]
            ),
            "5",
        ]
    )
    agent = Agent("calc", provider=provider, tools=[add])
    seen: dict[str, list[Any]] = {"context": [], "record": []}
    agent.on("pre_tool_call", seen["context"].append)
    agent.on("on_tool_call_result", seen["context"].append)
    agent.on("on_event", seen["record"].append)
    response = await agent.chat("2+3?")
    assert response.content == "5"
    return {
        "message": list(response.messages),
        "request": list(provider.requests),
        "response": [response],
        **seen,
    }


async def test_every_field_is_reported_set() -> None:
    for kind, models in (await built_by_a_run()).items():
        assert models, kind
        for model in models:
            every = set(type(model).model_fields)
            assert model.model_fields_set == every, (kind, type(model).__name__)
            assert set(model.model_dump(exclude_unset=True)) == every


async def test_changing_or_copying_one_model_leaves_the_others_as_they_were() -> None:
    built = await built_by_a_run()
    first, second, *_ = built["message"]  # messages are frozen: only copies differ
    before = second.model_dump()
    copy = first.model_copy(update={"content": "copied"})
    assert (copy.content, second.model_dump()) == ("copied", before)
    assert copy.model_fields_set == set(type(first).model_fields)
    assert copy.model_fields_set is not first.model_fields_set
    one, *others = built["record"]  # records are not: a hook may rewrite one
    one.input = "redacted"
    one.tool_name = "renamed"
    assert [(r.input, r.tool_name) for r in others].count(("redacted", "renamed")) == 0
    for kind, models in built.items():
        assert all(m.model_fields_set == set(type(m).model_fields) for m in models), kind
