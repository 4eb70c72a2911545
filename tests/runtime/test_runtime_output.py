"""Structured output on the scripted provider: ``Agent(output_type=...)`` validates the final
answer, sends a failing one back with a correction naming each problem (bounded by
``output_retries``, not ``max_turns``), ends in ``OutputValidationError`` once the retries ran
out, and lets ``on_output`` handlers replace, reject or deny the answer."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from agenthooks import (
    Agent,
    AgentHooksError,
    BadReturnError,
    Deny,
    FinalResponse,
    OutputValidationError,
    ProviderError,
    RegistrationError,
    ScriptedProvider,
    TextDelta,
    tool,
)
from agenthooks.messages import (
    AgentResponse,
    ChatMessage,
    ProviderResponse,
    ResponseFormat,
    ToolCall,
)
from agenthooks.runtime.output import CORRECTION, INSTRUCTIONS

QUESTION = "What is the biggest city of France?"
VALID = '{"name": "Paris", "population": 2100000}'
WRONG_TYPE = '{"name": "Paris", "population": "many"}'
MISSING = '{"population": 2100000}'


class City(BaseModel):
    """A city and how many people live there."""

    name: str
    population: int


SCHEMA = City.model_json_schema()
SYSTEM = "You know geography.\n\n" + INSTRUCTIONS.format(schema=json.dumps(SCHEMA))
CORRECT_TYPE = (
    "Your answer is not a valid City:\n"
    "- population: Input should be a valid integer, unable to parse string as an integer\n"
    "Answer again with only the corrected JSON object."
)
CORRECT_MISSING = (
    "Your answer is not a valid City:\n"
    "- name: Field required\n"
    "Answer again with only the corrected JSON object."
)

ONE_TURN = ["on_loop_start", "transform_context", "pre_request", "on_response"]
START = ["on_chat_start", "on_user_message", "on_message", "pre_agent"]


def agent_on(script: list[Any], **options: Any) -> Agent:
    return Agent(
        "geo",
        "You know geography.",
        provider=ScriptedProvider(script),
        output_type=options.pop("output_type", City),
        **options,
    )


def contents(messages: list[ChatMessage]) -> list[tuple[str, str | None]]:
    return [(m.role, m.content) for m in messages]


async def test_a_valid_answer_becomes_the_output(recorder: Any) -> None:
    agent = agent_on([VALID])
    recorder.attach(agent)
    response = await agent.chat(QUESTION)

    assert response.output == City(name="Paris", population=2100000)
    assert (response.content, response.finish_reason, response.iterations) == (VALID, "stop", 1)
    assert recorder.names == [
        *START,
        *ONE_TURN,
        "on_output",
        "on_loop_end",
        "post_agent",
        "on_message",
        "on_chat_done",
        "on_chat_end",
    ]
    checked = recorder.of("on_output")[0]
    assert (checked.text, checked.output, checked.error) == (VALID, response.output, None)
    assert (checked.output_type, checked.attempt, checked.retries_left) == (City, 1, 2)
    assert recorder.of("post_agent")[0].response.output == response.output
    assert recorder.of("on_chat_done")[0].response.output == response.output
    request = agent.provider.requests[0]  # type: ignore[union-attr]
    # the scripted provider has no native mode: the schema travels in the instructions
    assert request.system == SYSTEM
    assert request.response_format == ResponseFormat(name="City", json_schema=SCHEMA)


async def test_a_failing_answer_goes_back_with_a_correction_in_the_same_run(
    recorder: Any,
) -> None:
    agent = agent_on([WRONG_TYPE, MISSING, VALID])
    recorder.attach(agent)
    response = await agent.chat(QUESTION)

    assert response.output == City(name="Paris", population=2100000)
    assert response.iterations == 3
    correction_round = [
        "on_output",
        "on_message",  # the failing answer
        "on_message",  # the correction
        "on_loop_end",
    ]
    assert recorder.names == [
        *START,
        *ONE_TURN,
        *correction_round,
        *ONE_TURN,
        *correction_round,
        *ONE_TURN,
        "on_output",
        "on_loop_end",
        "post_agent",
        "on_message",
        "on_chat_done",
        "on_chat_end",
    ]
    assert [c.iteration for c in recorder.of("on_loop_start")] == [0, 1, 2]
    expected = [
        ("user", QUESTION),
        ("assistant", WRONG_TYPE),
        ("user", CORRECT_TYPE),
        ("assistant", MISSING),
        ("user", CORRECT_MISSING),
        ("assistant", VALID),
    ]
    assert contents(response.messages) == expected
    assert contents(agent.history) == expected
    assert contents([c.message for c in recorder.of("on_message")]) == expected
    # the model sees its answer and the correction on the next request
    requests = agent.provider.requests  # type: ignore[union-attr]
    assert contents(requests[1].messages) == expected[:3]
    assert contents(requests[2].messages) == expected[:5]
    checks = recorder.of("on_output")
    assert [(c.attempt, c.retries_left) for c in checks] == [(1, 2), (2, 1), (3, 0)]
    assert [type(c.error).__name__ for c in checks] == [
        "ValidationError",
        "ValidationError",
        "NoneType",
    ]


async def test_the_retries_are_bounded_by_output_retries_not_max_turns(recorder: Any) -> None:
    agent = agent_on([WRONG_TYPE, WRONG_TYPE, WRONG_TYPE, VALID], max_turns=1, output_retries=2)
    recorder.attach(agent)
    with pytest.raises(OutputValidationError) as caught:
        await agent.chat(QUESTION)

    error = caught.value
    assert isinstance(error, AgentHooksError) and not isinstance(error, ProviderError)
    assert str(error) == (
        "agent 'geo': the answer is not a valid City after 3 attempts (output_retries=2): "
        "population: Input should be a valid integer, unable to parse string as an integer"
    )
    assert (error.text, error.attempts) == (WRONG_TYPE, 3)
    assert error.problems == [
        "population: Input should be a valid integer, unable to parse string as an integer"
    ]
    assert isinstance(error.error, ValidationError)
    assert contents(error.messages) == [
        ("user", QUESTION),
        ("assistant", WRONG_TYPE),
        ("user", CORRECT_TYPE),
        ("assistant", WRONG_TYPE),
        ("user", CORRECT_TYPE),
        ("assistant", WRONG_TYPE),
    ]
    assert contents(agent.history) == contents(error.messages)
    names = recorder.names
    assert names.count("pre_request") == 3
    assert names[-4:] == ["on_output", "on_message", "on_chat_error", "on_chat_end"]
    assert [n for n in names if n.startswith("on_chat_")] == [
        "on_chat_start",
        "on_chat_error",
        "on_chat_end",
    ]
    assert "post_agent" not in names and "on_stop" not in names
    assert recorder.of("on_chat_error")[0].error is error
    assert recorder.of("on_chat_end")[0].error is error
    assert agent.provider.remaining == 1  # type: ignore[union-attr]


async def test_no_retries_ends_at_the_first_failing_answer(recorder: Any) -> None:
    agent = agent_on(["Paris, about two million people."], output_retries=0)
    recorder.attach(agent)
    with pytest.raises(OutputValidationError) as caught:
        await agent.chat(QUESTION)
    assert caught.value.problems == ["Invalid JSON: expected value at line 1 column 1"]
    assert caught.value.attempts == 1
    assert contents(caught.value.messages) == [
        ("user", QUESTION),
        ("assistant", "Paris, about two million people."),
    ]
    assert recorder.names.count("pre_request") == 1


async def test_nested_paths_and_whole_answer_problems_are_named() -> None:
    class Line(BaseModel):
        item: str
        price: float

    class Order(BaseModel):
        lines: list[Line]
        note: str | None = None

    agent = agent_on(
        ['{"lines": [{"item": "tea", "price": "cheap"}, {"price": 2}]}', "[1, 2]", '{"lines": []}'],
        output_type=Order,
    )
    response = await agent.chat("Order tea")
    assert response.output == Order(lines=[])
    corrections = [m.content for m in response.messages if m.role == "user"][1:]
    assert corrections == [
        "Your answer is not a valid Order:\n"
        "- lines[0].price: Input should be a valid number, unable to parse string as a number\n"
        "- lines[1].item: Field required\n"
        "Answer again with only the corrected JSON object.",
        "Your answer is not a valid Order:\n"
        "- Input should be an object\n"
        "Answer again with only the corrected JSON object.",
    ]


async def test_a_fenced_answer_is_read_and_kept_as_given() -> None:
    fenced = f"```json\n{VALID}\n```"
    response = await agent_on([fenced]).chat(QUESTION)
    assert response.output == City(name="Paris", population=2100000)
    assert response.content == fenced


async def test_dataclass_output_types_work_too() -> None:
    @dataclass
    class Point:
        x: int
        y: int

    response = await agent_on(['{"x": 1, "y": "2"}'], output_type=Point).chat("A point")
    assert response.output == Point(1, 2)


async def test_tools_run_before_the_typed_answer(recorder: Any) -> None:
    @tool
    def population(city: str) -> int:
        """How many people live in a city."""
        return 2100000

    agent = agent_on(
        [
            ProviderResponse(
                tool_calls=[ToolCall(id="c1", name="population", arguments={"city": "Paris"})]
            ),
            VALID,
        ],
        tools=[population],
    )
    recorder.attach(agent)
    response = await agent.chat(QUESTION)
    assert response.output == City(name="Paris", population=2100000)
    assert recorder.names.count("on_output") == 1
    assert [m.role for m in response.messages] == ["user", "assistant", "tool", "assistant"]


# hooks ----------------------------------------------------------------------------------


async def test_a_hook_rejects_a_valid_answer_with_its_own_reason(recorder: Any) -> None:
    agent = agent_on(['{"name": "Lyon", "population": 500000}', VALID])
    recorder.attach(agent)

    @agent.on("on_output")
    def biggest_only(ctx: Any) -> Any:
        if ctx.output is not None and ctx.output.population < 1000000:
            return {"error": f"{ctx.output.name} is not the biggest city"}
        return None

    response = await agent.chat(QUESTION)
    assert response.output == City(name="Paris", population=2100000)
    assert response.messages[2].content == CORRECTION.format(
        name="City", problems="- Lyon is not the biggest city"
    )
    first = recorder.of("on_output")[0]
    assert (first.output.name, first.error) == ("Lyon", "Lyon is not the biggest city")


async def test_a_hook_repairs_a_failing_answer_with_a_validated_output() -> None:
    agent = agent_on(["Paris has 2.1 million people."])

    @agent.on("on_output")
    def parse_prose(ctx: Any) -> Any:
        if ctx.error is not None and "Paris" in ctx.text:
            return {"output": {"name": "Paris", "population": "2100000"}}
        return None

    response = await agent.chat(QUESTION)
    assert response.output == City(name="Paris", population=2100000)
    assert response.content == "Paris has 2.1 million people."
    assert agent.provider.remaining == 0  # type: ignore[union-attr]


async def test_an_invalid_replacement_is_a_hook_error(recorder: Any) -> None:
    agent = agent_on([VALID])
    recorder.attach(agent)
    agent.on("on_output", lambda ctx: {"output": {"name": "Paris"}})
    with pytest.raises(BadReturnError) as caught:
        await agent.chat(QUESTION)
    assert str(caught.value) == (
        "an on_output handler returned an output that is not a valid City: "
        "population: Field required"
    )
    assert recorder.names[-2:] == ["on_chat_error", "on_chat_end"]


@pytest.mark.parametrize("order", ["error first", "output first"])
async def test_a_returned_error_wins_over_a_returned_output(order: str) -> None:
    agent = agent_on([VALID, VALID], output_retries=1)
    reject = lambda ctx: {"error": "not today"}  # noqa: E731
    replace = lambda ctx: {"output": City(name="Lyon", population=1)}  # noqa: E731
    for handler in (reject, replace) if order == "error first" else (replace, reject):
        agent.on("on_output", handler)
    with pytest.raises(OutputValidationError) as caught:
        await agent.chat(QUESTION)
    assert caught.value.problems == ["not today"]
    assert caught.value.error == "not today"


async def test_a_deny_discards_the_answer_and_ends_the_run_denied(recorder: Any) -> None:
    agent = agent_on([VALID])
    recorder.attach(agent)
    agent.on("on_output", lambda ctx: Deny("answers about cities are withheld"))
    response = await agent.chat(QUESTION)
    assert (response.content, response.finish_reason, response.output) == (
        "answers about cities are withheld",
        "denied",
        None,
    )
    assert contents(agent.history) == [("user", QUESTION)]
    assert recorder.names[-5:] == [
        "on_response",
        "on_output",
        "on_loop_end",
        "on_chat_done",
        "on_chat_end",
    ]


async def test_post_agent_sees_the_output_and_may_replace_it() -> None:
    agent = agent_on([VALID])
    seen: list[Any] = []

    @agent.on("post_agent")
    def rename(ctx: Any) -> Any:
        seen.append(ctx.response.output)
        renamed = City(name="Paris (75)", population=ctx.response.output.population)
        return {"response": ctx.response.model_copy(update={"output": renamed})}

    response = await agent.chat(QUESTION)
    assert seen == [City(name="Paris", population=2100000)]
    assert response.output == City(name="Paris (75)", population=2100000)


async def test_a_pre_agent_short_circuit_keeps_its_output() -> None:
    agent = agent_on([])
    given = AgentResponse(content=VALID, output=City(name="Paris", population=1))
    agent.on("pre_agent", lambda ctx: {"response": given})
    response = await agent.chat(QUESTION)
    assert response.output == City(name="Paris", population=1)


async def test_the_on_event_record_marks_a_failing_check() -> None:
    agent = agent_on([WRONG_TYPE, VALID])
    records: list[Any] = []
    agent.on("on_event", lambda r: records.append(r) if r.type == "on_output" else None)
    await agent.chat(QUESTION)
    assert [(r.input, r.is_error) for r in records] == [(WRONG_TYPE, True), (VALID, False)]
    assert records[0].error is not None and records[0].error.startswith(
        "ValidationError: 1 validation error for City"  # the record keeps the error's type
    )
    assert records[1].output == City(name="Paris", population=2100000)


# streaming ------------------------------------------------------------------------------


async def test_chat_stream_carries_the_output_and_fires_what_chat_fires(recorder: Any) -> None:
    streamed = agent_on([WRONG_TYPE, VALID])
    recorder.attach(streamed)
    items = [item async for item in streamed.chat_stream(QUESTION)]
    stream_names = [n for n in recorder.names if not n.startswith("on_stream_")]

    recorder.clear()
    plain = agent_on([WRONG_TYPE, VALID])
    recorder.attach(plain)
    await plain.chat(QUESTION)
    assert stream_names == recorder.names

    final = items[-1]
    assert isinstance(final, FinalResponse)
    assert final.response.output == City(name="Paris", population=2100000)
    text = "".join(i.text for i in items if isinstance(i, TextDelta))
    assert text == WRONG_TYPE + VALID  # both answers streamed, as every turn's text is


async def test_a_gated_stream_releases_only_the_accepted_answer() -> None:
    agent = agent_on([WRONG_TYPE, VALID])
    items = [item async for item in agent.chat_stream(QUESTION, gated=True)]
    assert [i.text for i in items if isinstance(i, TextDelta)] == [VALID]
    assert items[-1].response.output == City(name="Paris", population=2100000)  # type: ignore[union-attr]


# configuration --------------------------------------------------------------------------


def test_an_output_type_must_describe_a_json_object() -> None:
    with pytest.raises(RegistrationError) as caught:
        Agent("a", output_type=int)
    assert str(caught.value) == (
        "output_type <class 'int'> must describe a JSON object (a pydantic model, "
        'a dataclass or a TypedDict); its schema is {"type": "integer"}'
    )


def test_an_output_type_needs_a_json_schema() -> None:
    class Opaque:
        pass

    with pytest.raises(RegistrationError, match="has no JSON schema"):
        Agent("a", output_type=Opaque)


def test_output_retries_must_not_be_negative() -> None:
    with pytest.raises(RegistrationError) as caught:
        Agent("a", output_type=City, output_retries=-1)
    assert str(caught.value) == "output_retries must be 0 or more, got -1"


def test_an_agent_without_output_type_sends_no_response_format() -> None:
    agent = Agent("a", "Hi.", provider=ScriptedProvider(["ok"]))
    assert agent.output_spec is None
    response = agent.chat_sync("hello")
    assert response.output is None
    assert agent.provider.requests[0].response_format is None  # type: ignore[union-attr]
    assert agent.provider.requests[0].system == "Hi."  # type: ignore[union-attr]


# agents of agents -----------------------------------------------------------------------


async def test_a_typed_sub_agent_answers_its_parent_with_the_validated_json() -> None:
    geo = agent_on([WRONG_TYPE, VALID])
    parent = Agent(
        "desk",
        provider=ScriptedProvider(
            [
                ProviderResponse(
                    tool_calls=[ToolCall(id="c1", name="geo", arguments={"task": QUESTION})]
                ),
                "Paris.",
            ]
        ),
        sub_agents=[geo],
    )
    response = await parent.chat(QUESTION)
    assert response.output is None  # the parent has no output_type
    tool_message = response.messages[2]
    assert (tool_message.role, tool_message.content) == ("tool", VALID)


async def test_after_a_handoff_the_answering_agents_output_type_applies(recorder: Any) -> None:
    model = ScriptedProvider(
        [
            ProviderResponse(tool_calls=[ToolCall(id="h1", name="transfer_to_geo", arguments={})]),
            WRONG_TYPE,
            VALID,
        ]
    )
    geo = Agent("geo", "You know geography.", provider=model, output_type=City)
    desk = Agent("desk", provider=model, handoffs=[geo])
    recorder.attach(desk)
    response = await desk.chat(QUESTION)
    assert (response.agent, response.output) == ("geo", City(name="Paris", population=2100000))
    assert [c.agent for c in recorder.of("on_output")] == ["geo", "geo"]
    assert model.requests[0].system is None and model.requests[0].response_format is None
    assert model.requests[1].system == SYSTEM
