"""ScriptedProvider: replay order, item kinds, exhaustion, streaming, request recording."""

from __future__ import annotations

import pytest

from agenthooks.errors import ProviderError, ProviderTimeout, ScriptExhausted
from agenthooks.messages import ChatMessage, ProviderRequest, ProviderResponse, ToolCall
from agenthooks.providers.base import Provider, StreamDelta, StreamItem
from agenthooks.providers.scripted import ScriptedProvider


def ask(text: str = "hi") -> ProviderRequest:
    return ProviderRequest(messages=[ChatMessage(role="user", content=text)])


async def collect(provider: ScriptedProvider, request: ProviderRequest) -> list[StreamItem]:
    return [item async for item in provider.stream(request)]


def test_is_a_provider() -> None:
    provider = ScriptedProvider(["x"], name="demo")
    assert isinstance(provider, Provider)
    assert provider.name == "demo"


async def test_replays_in_order_and_strings_are_content() -> None:
    answer = ProviderResponse(content="second", finish_reason="length")
    provider = ScriptedProvider(["first", answer, "third"])

    first = await provider.complete(ask())
    second = await provider.complete(ask())
    third = await provider.complete(ask())

    assert (first.content, first.finish_reason, first.tool_calls) == ("first", "stop", [])
    assert second is answer  # returned as given: no copy, no re-validation
    assert third.content == "third"
    assert provider.remaining == 0


async def test_exhaustion_names_how_many_were_given() -> None:
    provider = ScriptedProvider(["a", "b"], name="demo")
    await provider.complete(ask())
    await provider.complete(ask())

    with pytest.raises(ScriptExhausted, match=r"'demo' ran out .* given 2 and this is call 3"):
        await provider.complete(ask())
    assert isinstance(ScriptExhausted("x"), ProviderError)


async def test_empty_script_is_exhausted_at_once() -> None:
    with pytest.raises(ScriptExhausted, match="given 0"):
        await ScriptedProvider([]).complete(ask())


async def test_exception_items_are_raised_by_their_call() -> None:
    boom = ProviderTimeout("slow")
    provider = ScriptedProvider([boom, ValueError, "recovered"])

    with pytest.raises(ProviderTimeout) as caught:
        await provider.complete(ask())
    assert caught.value is boom
    with pytest.raises(ValueError):
        await provider.complete(ask())
    assert (await provider.complete(ask())).content == "recovered"


async def test_callable_items_sync_and_async_get_the_request() -> None:
    def echo(request: ProviderRequest) -> str:
        return f"echo: {request.messages[-1].content}"

    async def answer(request: ProviderRequest) -> ProviderResponse:
        return ProviderResponse(content=request.model, finish_reason="length")

    provider = ScriptedProvider([echo, answer])

    assert (await provider.complete(ask("ping"))).content == "echo: ping"
    second = await provider.complete(ProviderRequest(model="m-1"))
    assert (second.content, second.finish_reason) == ("m-1", "length")


async def test_single_callable_answers_every_call() -> None:
    provider = ScriptedProvider(lambda request: f"n={len(request.messages)}")
    for n in range(1, 5):
        request = ProviderRequest(messages=[ChatMessage(role="user", content="x")] * n)
        assert (await provider.complete(request)).content == f"n={n}"
    assert provider.remaining is None


async def test_callable_returning_something_else_is_a_clear_error() -> None:
    provider = ScriptedProvider([lambda request: 42])  # type: ignore[list-item,return-value]
    with pytest.raises(TypeError, match="returned int; return a ProviderResponse or a str"):
        await provider.complete(ask())


def test_bad_scripts_are_refused_at_construction() -> None:
    with pytest.raises(TypeError, match=r"response #1 is int"):
        ScriptedProvider(["ok", 3])  # type: ignore[list-item]
    with pytest.raises(TypeError, match=r"wrap a single response in a list"):
        ScriptedProvider("hello")
    with pytest.raises(ValueError, match="chunk_size"):
        ScriptedProvider(["x"], chunk_size=0)


async def test_requests_records_copies_of_every_request() -> None:
    provider = ScriptedProvider(["a", RuntimeError("down")])
    request = ProviderRequest(
        system="be brief", messages=[ChatMessage(role="user", content="one")], tools=[{"a": 1}]
    )
    await provider.complete(request)
    request.messages.append(ChatMessage(role="user", content="two"))
    request.tools.clear()
    with pytest.raises(RuntimeError):
        await provider.complete(request)
    with pytest.raises(ScriptExhausted):
        await provider.complete(ask("three"))

    recorded = provider.requests
    assert [len(r.messages) for r in recorded] == [1, 2, 1]  # failing calls recorded too
    assert recorded[0].tools == [{"a": 1}]
    assert recorded[0].system == "be brief"
    assert recorded[0] is not request


async def test_empty_tool_call_ids_get_deterministic_ids() -> None:
    calls = [ToolCall(id="", name="a"), ToolCall(id="mine", name="b"), ToolCall(id="", name="c")]
    script = ProviderResponse(tool_calls=calls, finish_reason="tool_calls")
    provider = ScriptedProvider([script, script])

    first = await provider.complete(ask())
    second = await provider.complete(ask())

    assert [c.id for c in first.tool_calls] == ["call_1", "mine", "call_2"]
    assert [c.id for c in second.tool_calls] == ["call_3", "mine", "call_4"]
    assert [c.id for c in script.tool_calls] == ["", "mine", ""]  # the script is untouched
    assert first.finish_reason == "tool_calls"


async def test_stream_yields_words_then_the_response() -> None:
    provider = ScriptedProvider(["Hello brave  new\nworld "])
    items = await collect(provider, ask())

    *deltas, last = items
    assert deltas == [StreamDelta("Hello "), StreamDelta("brave  "), StreamDelta("new\n"),
                      StreamDelta("world ")]  # fmt: skip
    assert isinstance(last, ProviderResponse)
    assert last.content == "Hello brave  new\nworld "
    assert len(provider.requests) == 1


async def test_stream_with_chunk_size() -> None:
    provider = ScriptedProvider(["abcdefg"], chunk_size=3)
    items = await collect(provider, ask())
    assert items[:-1] == [StreamDelta("abc"), StreamDelta("def"), StreamDelta("g")]


@pytest.mark.parametrize("content", [None, ""])
async def test_stream_without_content_yields_only_the_response(content: str | None) -> None:
    response = ProviderResponse(
        content=content, tool_calls=[ToolCall(id="", name="t")], finish_reason="tool_calls"
    )
    items = await collect(ScriptedProvider([response]), ask())
    assert len(items) == 1
    assert isinstance(items[0], ProviderResponse)
    assert items[0].tool_calls[0].id == "call_1"


async def test_stream_raises_exception_items() -> None:
    provider = ScriptedProvider([ConnectionError("gone")])
    with pytest.raises(ConnectionError, match="gone"):
        await collect(provider, ask())


async def test_whitespace_only_content_streams_as_one_piece() -> None:
    items = await collect(ScriptedProvider(["  \n"]), ask())
    assert items[0] == StreamDelta("  \n")


async def test_recording_can_be_turned_off() -> None:
    provider = ScriptedProvider(["a"], record=False)
    await provider.complete(ask())
    with pytest.raises(ScriptExhausted, match="this is call 2"):
        await provider.complete(ask())
    assert provider.requests == []
