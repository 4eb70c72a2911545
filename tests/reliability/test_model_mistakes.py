"""The model's own mistakes go back to the model (item 5 as a class, hypothesis).

Whatever arguments the model sends (wrong types, missing or extra keys, text that is not JSON,
JSON that is not an object) and whatever a tool raises or returns, the run goes on: that call
gets exactly one tool message, an error the model reads in its next request
(``on_tool_call_error`` fires, source ``validation`` for arguments), and the model's next answer
ends the run. A tool's exception reaches the model as ``TypeName: message``.

Argument text that is not JSON travels on ``ToolCall.raw_arguments`` (the provider keeps the
text it could not decode). Calls here are built with ``ToolCall.model_validate`` so they carry
that field once ``ToolCall`` has it; until then pydantic drops it and the check that the call
kept its text fails.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rel_drive import PHASES, drive, invariant_problems, scale
from rel_probe import Probe

from agenthooks import (
    Agent,
    ChatMessage,
    HookBus,
    OpenAIChatProvider,
    ProviderRequest,
    ProviderResponse,
    ScriptedProvider,
    Session,
    ToolCall,
    tool,
)

_PROVIDERS = str(Path(__file__).resolve().parent.parent / "providers")
if _PROVIDERS not in sys.path:
    sys.path.insert(0, _PROVIDERS)

from wire_server import (  # noqa: E402
    WireServer,
    chunk,
    completion,
    json_reply,
    sse_reply,
    tool_call,
    usage_chunk,
)

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")

RECEIVED: list[dict[str, Any]] = []


@tool
async def setv(name: str, count: int, flag: bool = False) -> str:
    """Set a value."""
    RECEIVED.append({"name": name, "count": count, "flag": flag})
    return f"{name}={count}"


def _script(call: ToolCall, seen: list[list[ChatMessage]]) -> Any:
    def script(request: ProviderRequest) -> ProviderResponse:
        if request.messages[-1].role == "user":
            return ProviderResponse(finish_reason="tool_calls", tool_calls=[call])
        seen.append(list(request.messages))
        return ProviderResponse(content="done")

    return script


async def _run(call: ToolCall) -> dict[str, Any]:
    """One run in which the model makes ``call``, then answers once it saw the tool message."""
    RECEIVED.clear()
    return await _run_with(setv, call, hooks=True)


def _answered_once(result: dict[str, Any], call_id: str) -> None:
    """The run ended with the model's answer, after it read the call's one tool message."""
    outcome = result["outcome"]
    assert outcome.kind == "response", outcome.describe()
    assert outcome.response.content == "done"
    assert [m.tool_call_id for m in result["tool_messages"]] == [call_id]
    message = result["tool_messages"][0]
    assert len(result["seen"]) == 1
    assert result["seen"][0][-1] == message  # the model read it in its next request
    assert result["problems"] == []


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)
arguments = st.dictionaries(
    st.sampled_from(["name", "count", "flag", "extra"]) | st.text(max_size=6),
    json_values,
    max_size=4,
)


@settings(max_examples=scale(100, 2000), deadline=None, database=None, phases=PHASES)
@given(arguments=arguments)
def test_any_arguments_either_run_the_tool_with_valid_values_or_go_back_as_an_error(
    arguments: dict[str, Any],
) -> None:
    call = ToolCall(id="x1", name="setv", arguments=arguments)
    result = asyncio.run(_run(call))
    _answered_once(result, "x1")
    message = result["tool_messages"][0]
    if RECEIVED:  # the tool ran: only with values of its declared types
        (got,) = RECEIVED
        assert type(got["name"]) is str and type(got["count"]) is int
        assert type(got["flag"]) is bool
        assert not message.is_error and result["errors"] == []
    else:
        assert message.is_error
        assert [(source, c.id) for source, c, _ in result["errors"]] == [("validation", "x1")]
        assert "setv" in (message.content or "")


def _not_a_json_object(text: str) -> bool:
    try:
        return not isinstance(json.loads(text), dict)
    except ValueError:
        return True


raw_texts = (
    st.text(min_size=1, max_size=40)
    | st.builds(lambda v: json.dumps(v)[:-1], json_values)  # cut short
    | st.builds(json.dumps, json_values)  # JSON, but maybe not an object
).filter(lambda t: t != "" and _not_a_json_object(t))


@settings(max_examples=scale(60, 1000), deadline=None, database=None, phases=PHASES)
@given(text=raw_texts)
def test_argument_text_that_is_not_a_json_object_goes_back_to_the_model(text: str) -> None:
    call = ToolCall.model_validate(
        {"id": "x1", "name": "setv", "arguments": {}, "raw_arguments": text}
    )
    result = asyncio.run(_run(call))
    _answered_once(result, "x1")
    assert RECEIVED == []  # the tool never ran
    message = result["tool_messages"][0]
    assert message.is_error
    assert "json" in (message.content or "").lower(), message.content
    assert [source for source, _, _ in result["errors"]] == ["validation"]
    (_, seen_call, _) = result["errors"][0]
    assert getattr(seen_call, "raw_arguments", None) == text  # the call kept the model's text


@pytest.fixture(scope="module")
def server() -> Iterator[WireServer]:
    """One loopback server for every example: its replies read the example in progress."""
    with WireServer() as wire:
        yield wire


EXAMPLE: dict[str, Any] = {}


def _reply(body: dict[str, Any]) -> Any:
    """The example's tool call first, "done" once the model sent the tool message back."""
    text, stream = EXAMPLE["text"], body.get("stream", False)
    answered = body["messages"][-1]["role"] == "tool"
    if stream:
        if answered:
            return sse_reply([chunk("done"), chunk(finish_reason="stop"), usage_chunk()])
        return sse_reply(
            [
                chunk(role="assistant"),
                chunk(tool_calls=[{"index": 0, **tool_call("x1", "setv", text)}]),
                chunk(finish_reason="tool_calls"),
                usage_chunk(),
            ]
        )
    if answered:
        return json_reply(completion("done"))
    return json_reply(
        completion(tool_calls=[tool_call("x1", "setv", text)], finish_reason="tool_calls")
    )


@settings(
    max_examples=scale(25, 300),
    deadline=None,
    database=None,
    phases=PHASES,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(text=raw_texts, stream=st.booleans())
def test_argument_text_from_a_real_provider_goes_back_to_the_model(
    server: WireServer, text: str, stream: bool
) -> None:
    EXAMPLE["text"] = text
    server.reply(_reply, _reply)  # a reply left over by a failed run serves the next one alike
    before = len(server.received)
    result = asyncio.run(_run_wire(server.url, stream))
    assert result["outcome"] == ("response", "done"), result["outcome"]
    assert RECEIVED == []
    assert [source for source, _, _ in result["errors"]] == ["validation"]
    assert len(server.received) == before + 2
    last = server.received[-1].json["messages"]
    assert [m["tool_call_id"] for m in last if m["role"] == "tool"] == ["x1"]


async def _run_wire(url: str, stream: bool) -> dict[str, Any]:
    RECEIVED.clear()
    errors: list[Any] = []
    bus = HookBus()
    bus.on("on_tool_call_error", lambda ctx: errors.append((ctx.source, ctx.call, ctx.error)))
    async with OpenAIChatProvider("m", base_url=url, timeout=5) as provider:
        agent = Agent("worker", provider=provider, tools=[setv], bus=bus)
        try:
            if stream:
                items = [item async for item in agent.chat_stream("go")]
                response = items[-1].response
            else:
                response = await agent.chat("go")
            outcome: Any = ("response", response.content)
        except Exception as exc:
            outcome = ("error", f"{type(exc).__name__}: {exc}")
    return {"outcome": outcome, "errors": errors}


class QuotaError(Exception):
    """A tool's own exception type."""


exception_types = st.sampled_from(
    [ValueError, FileNotFoundError, PermissionError, RuntimeError, KeyError, QuotaError, OSError]
)


@settings(max_examples=scale(60, 1000), deadline=None, database=None, phases=PHASES)
@given(kind=exception_types, text=st.text(min_size=1, max_size=30), hooks=st.booleans())
def test_a_tools_exception_reaches_the_model_with_its_type(
    kind: type[Exception], text: str, hooks: bool
) -> None:
    error = kind(text)

    @tool(name="setv")
    async def failing(name: str, count: int) -> str:
        raise error

    call = ToolCall(id="x1", name="setv", arguments={"name": "a", "count": 1})
    result = asyncio.run(_run_with(failing, call, hooks))
    _answered_once(result, "x1")
    message = result["tool_messages"][0]
    assert message.is_error
    assert message.content == f"{type(error).__name__}: {error}"


class Unprintable:
    """A result neither JSON nor ``str()`` can render."""

    def __str__(self) -> str:
        raise RuntimeError("no text for this")

    def __repr__(self) -> str:  # for hypothesis' report only
        return "Unprintable()"


results = st.sampled_from(
    [Unprintable(), [Unprintable()], {"key": Unprintable()}, (1, Unprintable()), {Unprintable()}]
)


@settings(max_examples=scale(20, 200), deadline=None, database=None, phases=PHASES)
@given(value=results, hooks=st.booleans())
def test_a_result_that_cannot_be_rendered_is_an_error_for_that_call(
    value: Any, hooks: bool
) -> None:
    @tool(name="setv")
    async def render(name: str, count: int) -> Any:
        return value

    call = ToolCall(id="x1", name="setv", arguments={"name": "a", "count": 1})
    result = asyncio.run(_run_with(render, call, hooks))
    _answered_once(result, "x1")
    assert result["tool_messages"][0].is_error
    if hooks:
        assert [source for source, _, _ in result["errors"]] == ["handler"]


async def _run_with(fn: Any, call: ToolCall, hooks: bool) -> dict[str, Any]:
    """A run of an agent with the tool ``fn`` whose model makes ``call``, then answers;
    ``hooks=False`` runs it with no hook at all (the runtime's hook-free path)."""
    seen: list[list[ChatMessage]] = []
    bus = HookBus()
    probe = Probe()
    errors: list[Any] = []
    if hooks:
        probe.attach(bus)
        bus.on("on_tool_call_error", lambda ctx: errors.append((ctx.source, ctx.call, ctx.error)))
    agent = Agent("worker", provider=ScriptedProvider(_script(call, seen)), tools=[fn], bus=bus)
    session = Session(agent)
    outcome = await drive(session, "go", probe, stream=False)
    problems = await invariant_problems(probe, outcome, session.history) if hooks else []
    return {
        "outcome": outcome,
        "problems": problems,
        "errors": errors,
        "tool_messages": [m for m in session.history if m.role == "tool"],
        "seen": seen,
    }
