"""Structured output over the wire: the OpenAI-compatible provider sends a ``json_schema``
response format, the Anthropic provider a forced output tool whose input is the answer; both
against real loopback servers, for chat and chat_stream, with the exact bodies sent and the
exact correction the model reads. The scripted provider (schema in the instructions) runs the
same conversation with the same hooks in the same order."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from anthropic_server import AnthropicServer, message, message_reply, stream_reply, tool_use
from pydantic import BaseModel
from wire_server import WireServer, completion, json_reply, text_stream

from agenthooks import (
    Agent,
    AnthropicProvider,
    FinalResponse,
    OpenAIChatProvider,
    Provider,
    ProviderError,
    ScriptedProvider,
    TextDelta,
    tool,
)
from agenthooks.messages import ProviderRequest, ProviderResponse, ResponseFormat, ToolCall
from agenthooks.providers.anthropic_output import OUTPUT_TOOL, THINKING_NOTE, answer_of
from agenthooks.providers.anthropic_request import request_body as anthropic_body
from agenthooks.providers.openai_request import request_body as openai_body
from agenthooks.testing import HookRecorder

pytestmark = pytest.mark.server

GUARD = 10.0
QUESTION = "What is the biggest city of France?"
INSTRUCTIONS = "You know geography."
WRONG = {"name": "Paris", "population": "many"}
RIGHT = {"name": "Paris", "population": 2100000}
CORRECTION = (
    "Your answer is not a valid City:\n"
    "- population: Input should be a valid integer, unable to parse string as an integer\n"
    "Answer again with only the corrected JSON object."
)


class City(BaseModel):
    """A city and how many people live there."""

    name: str
    population: int


SCHEMA = City.model_json_schema()
FORMAT = ResponseFormat(name="City", json_schema=SCHEMA)
OUTPUT = City(name="Paris", population=2100000)
OUTPUT_TOOL_WIRE = {
    "name": "City",
    "description": OUTPUT_TOOL.format(name="City"),
    "input_schema": SCHEMA,
}


@tool
def population(city: str) -> int:
    """How many people live in a city."""
    return 2100000


@pytest.fixture
def anthropic_server() -> Iterator[AnthropicServer]:
    with AnthropicServer() as server:
        yield server


@pytest.fixture
def openai_server() -> Iterator[WireServer]:
    with WireServer() as server:
        yield server


def typed(provider: Provider, **options: Any) -> Agent:
    return Agent("geo", INSTRUCTIONS, provider=provider, output_type=City, **options)


async def ask(agent: Agent, streamed: bool) -> tuple[Any, list[Any]]:
    if not streamed:
        return await asyncio.wait_for(agent.chat(QUESTION), GUARD), []

    async def drain() -> list[Any]:
        return [item async for item in agent.chat_stream(QUESTION)]

    items = await asyncio.wait_for(drain(), GUARD)
    final = items[-1]
    assert isinstance(final, FinalResponse)
    return final.response, items


def deltas(items: list[Any]) -> str:
    return "".join(item.text for item in items if isinstance(item, TextDelta))


# OpenAI-compatible ----------------------------------------------------------------------


@pytest.mark.parametrize("streamed", [False, True], ids=["chat", "chat_stream"])
async def test_openai_sends_a_json_schema_response_format_and_the_correction(
    openai_server: WireServer, streamed: bool
) -> None:
    if streamed:
        openai_server.reply(text_stream(json.dumps(WRONG)), text_stream(json.dumps(RIGHT)))
    else:
        openai_server.reply(
            json_reply(completion(json.dumps(WRONG))), json_reply(completion(json.dumps(RIGHT)))
        )
    async with OpenAIChatProvider("gpt-test", base_url=openai_server.url, timeout=5) as gpt:
        response, items = await ask(typed(gpt), streamed)

    assert response.output == OUTPUT
    first, second = openai_server.requests
    expected: dict[str, Any] = {
        "model": "gpt-test",
        "messages": [
            {"role": "system", "content": INSTRUCTIONS},  # no schema text: the API enforces it
            {"role": "user", "content": QUESTION},
        ],
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "City", "schema": SCHEMA, "strict": False},
        },
    }
    if streamed:
        expected.update(stream=True, stream_options={"include_usage": True})
        assert deltas(items) == json.dumps(WRONG) + json.dumps(RIGHT)
    assert first == expected
    assert second["messages"] == [
        *expected["messages"],
        {"role": "assistant", "content": json.dumps(WRONG)},
        {"role": "user", "content": CORRECTION},
    ]
    assert second["response_format"] == expected["response_format"]


def test_openai_strict_response_format_goes_out_as_strict() -> None:
    strict = FORMAT.model_copy(update={"strict": True})
    body = openai_body(ProviderRequest(response_format=strict), "m")
    assert body["response_format"]["json_schema"]["strict"] is True


# Anthropic ------------------------------------------------------------------------------


def anthropic_turns(streamed: bool) -> list[Any]:
    reply = stream_reply if streamed else message_reply
    return [
        reply(message(tool_use("toolu_1", "City", WRONG), stop_reason="tool_use")),
        reply(message(tool_use("toolu_2", "City", RIGHT), stop_reason="tool_use")),
    ]


@pytest.mark.parametrize("streamed", [False, True], ids=["chat", "chat_stream"])
async def test_anthropic_forces_the_output_tool_and_reads_its_input_as_the_answer(
    anthropic_server: AnthropicServer, streamed: bool
) -> None:
    anthropic_server.reply(*anthropic_turns(streamed))
    async with AnthropicProvider("claude-test", base_url=anthropic_server.base_url) as claude:
        agent = typed(claude)
        recorder = HookRecorder()
        recorder.attach(agent)
        response, items = await ask(agent, streamed)

    assert response.output == OUTPUT
    assert (response.content, response.finish_reason) == (json.dumps(RIGHT), "stop")
    first, second = anthropic_server.requests
    expected: dict[str, Any] = {
        "model": "claude-test",
        "max_tokens": 4096,
        "system": INSTRUCTIONS,
        "messages": [{"role": "user", "content": QUESTION}],
        "tools": [OUTPUT_TOOL_WIRE],
        "tool_choice": {"type": "tool", "name": "City"},
    }
    if streamed:
        expected["stream"] = True
        # the tool's input streams as no text: it reaches the consumer as one chunk per answer
        assert [i.text for i in items if isinstance(i, TextDelta)] == [
            json.dumps(WRONG),
            json.dumps(RIGHT),
        ]
        chunks = [c.delta for c in recorder.of("on_stream_chunk")]
        assert chunks == [json.dumps(WRONG), json.dumps(RIGHT)]
    assert first == expected
    assert second["messages"] == [
        {"role": "user", "content": QUESTION},
        {"role": "assistant", "content": json.dumps(WRONG)},
        {"role": "user", "content": CORRECTION},
    ]
    assert second["tool_choice"] == {"type": "tool", "name": "City"}
    assert [r.response.tool_calls for r in recorder.of("on_response")] == [[], []]


async def test_anthropic_with_tools_of_its_own_must_call_some_tool(
    anthropic_server: AnthropicServer,
) -> None:
    anthropic_server.reply(
        message_reply(
            message(tool_use("toolu_1", "population", {"city": "Paris"}), stop_reason="tool_use")
        ),
        message_reply(message(tool_use("toolu_2", "City", RIGHT), stop_reason="tool_use")),
    )
    async with AnthropicProvider("claude-test", base_url=anthropic_server.base_url) as claude:
        response = await asyncio.wait_for(typed(claude, tools=[population]).chat(QUESTION), GUARD)

    assert response.output == OUTPUT
    assert [m.role for m in response.messages] == ["user", "assistant", "tool", "assistant"]
    for body in anthropic_server.requests:
        assert [t["name"] for t in body["tools"]] == ["population", "City"]
        assert body["tool_choice"] == {"type": "any"}


def test_anthropic_with_thinking_asks_for_the_tool_in_the_system_prompt() -> None:
    request = ProviderRequest(system="Be brief.", reasoning_effort="low", response_format=FORMAT)
    body = anthropic_body(request, "claude-test", 4096)
    assert body["system"] == "Be brief.\n\n" + THINKING_NOTE.format(name="City")
    assert body["tools"] == [OUTPUT_TOOL_WIRE]
    assert "tool_choice" not in body  # the API forces no tool while thinking


def test_anthropic_keeps_the_requests_own_tool_choice() -> None:
    body = anthropic_body(ProviderRequest(tool_choice="auto", response_format=FORMAT), "m", 10)
    assert body["tool_choice"] == {"type": "auto"}
    assert body["tools"] == [OUTPUT_TOOL_WIRE]


def test_anthropic_refuses_an_output_named_like_a_tool() -> None:
    request = ProviderRequest(
        tools=[{"name": "City", "parameters": {"type": "object"}}], response_format=FORMAT
    )
    with pytest.raises(ProviderError) as caught:
        anthropic_body(request, "m", 10)
    assert str(caught.value) == (
        "anthropic: the output type 'City' has the name of one of the request's tools; "
        "rename the type or the tool"
    )


def test_an_output_call_beside_other_tools_is_dropped_and_the_tools_run() -> None:
    lookup = ToolCall(id="t1", name="population", arguments={"city": "Paris"})
    answer = ToolCall(id="t2", name="City", arguments=RIGHT)
    both = ProviderResponse(tool_calls=[lookup, answer], finish_reason="tool_calls")
    assert answer_of(both, FORMAT) == (both.model_copy(update={"tool_calls": [lookup]}), False)
    alone = ProviderResponse(content="Here:", tool_calls=[answer], finish_reason="tool_calls")
    assert answer_of(alone, FORMAT) == (
        ProviderResponse(content=json.dumps(RIGHT), finish_reason="stop"),
        True,
    )
    broken = ToolCall(id="t3", name="City", raw_arguments='{"name": "Par')
    assert answer_of(ProviderResponse(tool_calls=[broken]), FORMAT)[0].content == '{"name": "Par'


# the same run on every provider ---------------------------------------------------------


@pytest.mark.parametrize("streamed", [False, True], ids=["chat", "chat_stream"])
async def test_every_provider_runs_the_same_hooks_in_the_same_order(
    anthropic_server: AnthropicServer, openai_server: WireServer, streamed: bool
) -> None:
    anthropic_server.reply(*anthropic_turns(streamed))
    if streamed:
        openai_server.reply(text_stream(json.dumps(WRONG)), text_stream(json.dumps(RIGHT)))
    else:
        openai_server.reply(
            json_reply(completion(json.dumps(WRONG))), json_reply(completion(json.dumps(RIGHT)))
        )
    runs: dict[str, tuple[list[str], Any]] = {}
    async with (
        AnthropicProvider("claude-test", base_url=anthropic_server.base_url) as claude,
        OpenAIChatProvider("gpt-test", base_url=openai_server.url, timeout=5) as gpt,
    ):
        scripted = ScriptedProvider([json.dumps(WRONG), json.dumps(RIGHT)])
        for name, provider in (("anthropic", claude), ("openai", gpt), ("scripted", scripted)):
            agent = typed(provider)
            recorder = HookRecorder()
            recorder.attach(agent)
            response, _ = await ask(agent, streamed)
            names = [n for n in recorder.names() if n != "on_stream_chunk"]  # chunking differs
            runs[name] = (names, response)

    names, answer = runs["scripted"]
    assert names.count("on_output") == 2 and names.count("pre_request") == 2
    for other, response in runs.values():
        assert other == names
        assert response.output == answer.output == OUTPUT
        assert [(m.role, m.content) for m in response.messages] == [
            (m.role, m.content) for m in answer.messages
        ]
