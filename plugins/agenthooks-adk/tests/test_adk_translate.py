"""ADK's requests and responses read as agenthooks' types and written back: a round trip with
no handler is the identity, and what our types cannot express (images, files, thoughts and
their signatures) passes through a rewrite untouched."""

from __future__ import annotations

from typing import Any

import adk_scripted as s
import pytest
from agenthooks_adk.capabilities import CAPABILITIES
from agenthooks_adk.translate import read_request, read_response, write_request, write_response
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types

from agenthooks import HookBus
from agenthooks.events import CATALOG

IMAGE = types.Part.from_bytes(data=b"\x89PNG\r\n fake image bytes", mime_type="image/png")
FILE = types.Part(
    file_data=types.FileData(file_uri="gs://bucket/report.pdf", mime_type="application/pdf")
)
SIGNATURE = b"opaque-signature"


@pytest.fixture(autouse=True)
def _clean() -> None:
    s.RAN.clear()


def rich_conversation() -> list[Any]:
    """A first turn with a thought, a signed call and code the model wrote; then an answer."""
    thought = types.Part(text="I should read it.", thought=True, thought_signature=SIGNATURE)
    signed_call = s.call("read_file", "call_1", path="/tmp/b.txt").model_copy(
        update={"thought_signature": SIGNATURE}
    )
    code = types.Part(
        executable_code=types.ExecutableCode(code="print(1)", language=types.Language.PYTHON)
    )
    return [s.model_turn(thought, code, signed_call, tokens=(5, 5)), s.model_turn("done")]


def rich_message() -> types.Content:
    return types.Content(role="user", parts=[types.Part(text="What is in this?"), IMAGE, FILE])


def dump(request: LlmRequest) -> dict[str, Any]:
    return request.model_dump(mode="json", exclude={"tools_dict"})


async def test_with_every_event_heard_the_model_gets_exactly_what_it_gets_without_the_bridge() -> (
    None
):
    plain = s.ScriptedLlm(script=rich_conversation())
    await s.run(s.runner(None, plain), rich_message())

    bus = HookBus()
    for event in CATALOG:
        if event in CAPABILITIES.fires:  # an interceptor of any other event is refused
            bus.on(event, lambda ctx: None)
    bridged = s.ScriptedLlm(script=rich_conversation())
    events = await s.run(s.runner(bus, bridged), rich_message())

    assert [dump(r) for r in bridged.requests] == [dump(r) for r in plain.requests]
    assert s.final_text(events) == "done"
    turn = bridged.requests[1].contents[1]
    assert turn.parts is not None and turn.parts[0].thought_signature == SIGNATURE


def test_reading_and_writing_back_an_unchanged_request_is_the_identity() -> None:
    contents = [
        rich_message(),
        rich_conversation()[0].content,
        types.Content(
            role="user",
            parts=[types.Part.from_function_response(name="read_file", response={"result": "x"})],
        ),
    ]
    request = LlmRequest(
        contents=contents, config=types.GenerateContentConfig(system_instruction="sys")
    )
    before = dump(request)
    view = read_request(request)
    write_request(view, view.request, request)
    write_request(view, view.request.model_copy(deep=True), request)  # equal, not identical
    assert dump(request) == before
    assert all(a is b for a, b in zip(request.contents, contents))
    assert [m.role for m in view.request.messages] == ["user", "assistant", "tool"]
    assert view.request.messages[1].thinking_blocks[0].thinking == "I should read it."


def test_reading_and_writing_back_an_unchanged_response_is_the_identity() -> None:
    response = rich_conversation()[0]
    read = read_response(response)
    assert (read.content, [c.id for c in read.tool_calls], read.finish_reason) == (
        None,
        ["call_1"],
        "tool_calls",
    )
    assert write_response(read, response) is response
    assert write_response(read.model_copy(deep=True), response) is response


async def test_a_text_rewrite_keeps_the_image_and_the_file_of_the_message() -> None:
    bus = HookBus()

    def rewrite(ctx: Any) -> dict[str, Any]:
        messages = [
            m.model_copy(update={"content": "Describe it."}) if m.role == "user" else m
            for m in ctx.request.messages
        ]
        return {"request": ctx.request.model_copy(update={"messages": messages})}

    bus.on("pre_request", rewrite)
    model = s.ScriptedLlm(script=[s.model_turn("a chart")])
    await s.run(s.runner(bus, model), rich_message())
    parts = model.requests[0].contents[0].parts or []
    assert [p.text for p in parts] == ["Describe it.", None, None]
    assert parts[1].inline_data == IMAGE.inline_data
    assert parts[2].file_data == FILE.file_data


async def test_a_response_rewrite_keeps_the_thought_the_code_and_the_calls_signature() -> None:
    bus = HookBus()

    def retarget(ctx: Any) -> dict[str, Any] | None:
        if not ctx.response.tool_calls:
            return None
        calls = [
            c.model_copy(update={"arguments": {"path": "/tmp/c.txt"}})
            for c in ctx.response.tool_calls
        ]
        return {
            "response": ctx.response.model_copy(update={"tool_calls": calls, "content": "Reading."})
        }

    bus.on("on_response", retarget)
    model = s.ScriptedLlm(script=rich_conversation())
    await s.run(s.runner(bus, model), "read it")
    parts = model.requests[1].contents[1].parts or []
    assert parts[0].thought and parts[0].thought_signature == SIGNATURE
    assert parts[1].executable_code is not None and parts[1].executable_code.code == "print(1)"
    assert parts[2].text == "Reading."
    call = parts[3]
    assert call.function_call is not None and call.function_call.args == {"path": "/tmp/c.txt"}
    assert call.thought_signature == SIGNATURE
    assert ("read_file", {"path": "/tmp/c.txt", "verbose": False}) in s.RAN


def test_usage_is_read_both_ways() -> None:
    response = LlmResponse(
        content=types.Content(role="model", parts=[types.Part(text="hi")]),
        usage_metadata=types.GenerateContentResponseUsageMetadata(
            prompt_token_count=7,
            candidates_token_count=3,
            thoughts_token_count=2,
            total_token_count=12,
            cached_content_token_count=4,
        ),
        finish_reason=types.FinishReason.MAX_TOKENS,
    )
    read = read_response(response)
    usage = read.usage
    assert (
        usage.input_tokens,
        usage.output_tokens,
        usage.total_tokens,
        usage.cache_read_tokens,
    ) == (7, 5, 12, 4)
    assert read.finish_reason == "length"
    written = write_response(read.model_copy(update={"content": "HI", "raw": None}))
    assert written.usage_metadata is not None and written.usage_metadata.total_token_count == 12


def test_a_rewrite_of_the_model_the_temperature_and_the_tools_is_written_back() -> None:
    declaration = types.FunctionDeclaration(
        name="read_file", description="Read a file.", parameters_json_schema={"type": "object"}
    )
    config = types.GenerateContentConfig(
        tools=[types.Tool(function_declarations=[declaration])], temperature=0.2
    )
    request = LlmRequest(model="gemini-x", contents=[s.user("hi")], config=config)
    view = read_request(request)
    assert view.request.tools == [
        {
            "type": "function",
            "function": {
                "name": "read_file",
                "description": "Read a file.",
                "parameters": {"type": "object"},
            },
        }
    ]
    extra = {
        "type": "function",
        "function": {"name": "lookup", "description": "Look up.", "parameters": {}},
    }
    rewritten = view.request.model_copy(
        update={"model": "gemini-y", "temperature": 0.0, "tools": [*view.request.tools, extra]}
    )
    write_request(view, rewritten, request)
    assert (request.model, request.config.temperature) == ("gemini-y", 0.0)
    (tool,) = request.config.tools or []
    assert isinstance(tool, types.Tool) and tool.function_declarations is not None
    assert tool.function_declarations[0] is declaration
    assert [fd.name for fd in tool.function_declarations] == ["read_file", "lookup"]
