"""CAPABILITIES pinned to behaviour: every event the ADK bridge declares fires in scripted
runs, every return it declares is carried out by ADK, one it cannot carry out is a typed
error naming the event, the return and the framework."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import adk_scripted as s
import pytest
from agenthooks_adk import CAPABILITIES
from google.adk.agents import LlmAgent
from google.adk.events.event import Event
from google.adk.models.llm_request import LlmRequest
from google.adk.tools.agent_tool import AgentTool
from google.genai import types

from agenthooks import Ask, Deny, HookBus, ProviderResponse
from agenthooks.bridges import installed_bridges
from agenthooks.errors import StopRun, UnsupportedReturnError

MESSAGE = "Delete /tmp/a.txt and read /tmp/b.txt"


@pytest.fixture(autouse=True)
def _clean() -> None:
    s.RAN.clear()


def test_the_entry_point_names_the_declaration() -> None:
    assert installed_bridges()["adk"] is CAPABILITIES
    assert CAPABILITIES.framework == "Google ADK"


async def _fired(
    bus: HookBus, fired: set[str], script: list[Any], message: str = MESSAGE, **kw: Any
) -> list[Event]:
    bus.on("on_event", lambda r: fired.add(r.type))
    runner = s.runner(
        bus, s.ScriptedLlm(script=script), kw.pop("tools", (s.delete_file, s.read_file))
    )
    try:
        return await s.run(runner, message)
    except Exception:
        return []


@pytest.mark.filterwarnings("ignore:The `plugins` argument is deprecated:DeprecationWarning")
async def test_every_event_the_bridge_declares_fires() -> None:
    fired: set[str] = set()
    await _fired(HookBus(), fired, s.conversation())
    # a model error and a tool error, each recovered, then an error nobody recovers
    bus = HookBus()
    bus.on("on_model_error", lambda ctx: {"response": ProviderResponse(content="recovered")})
    await _fired(bus, fired, [KeyError("x")])
    bus = HookBus()
    bus.on("on_tool_call_error", lambda ctx: {"result": "recovered"})
    await _fired(bus, fired, _missing())
    await _fired(HookBus(), fired, [ConnectionError("down")])
    # a run a hook stops
    bus = HookBus()
    bus.on("pre_request", _stop)
    await _fired(bus, fired, [s.model_turn("never")])
    # a pause, then its resume
    bus = HookBus()
    bus.on("pre_tool_call", lambda ctx: Ask("a human decides"), match="delete_file")
    bus.on("on_event", lambda r: fired.add(r.type))
    model = s.ScriptedLlm(script=s.conversation())
    runner = s.runner(bus, model)
    events = await s.run(runner, MESSAGE)
    (request,) = [
        fc for e in events for fc in e.get_function_calls() if fc.name == "adk_request_confirmation"
    ]
    fr = types.FunctionResponse(
        name="adk_request_confirmation", id=request.id, response={"confirmed": True}
    )
    await s.run(runner, types.Content(role="user", parts=[types.Part(function_response=fr)]))
    # a streamed response, and a stream that fails
    bus = HookBus()
    bus.on("on_event", lambda r: fired.add(r.type))
    await s.run(s.runner(bus, s.Streaming(script=[["a", "b"]])), "hi", run_config=s.SSE)
    failing = s.Streaming(script=[["a", ConnectionError("dropped")]])
    with pytest.raises(ConnectionError):
        await s.run(s.runner(bus, failing), "hi", run_config=s.SSE)
    # a handoff and a sub-agent
    from test_adk_agents import transfer_app

    bus = HookBus()
    bus.on("on_event", lambda r: fired.add(r.type))
    await s.run(transfer_app(bus)[0], "help me")
    helper = LlmAgent(name="helper", model=s.ScriptedLlm(script=[s.model_turn("helped")]))
    tool = AgentTool(helper)
    await _fired(
        HookBus(),
        fired,
        [s.model_turn(s.call("helper", "a1", request="do it")), s.model_turn("ok")],
        tools=[tool],
    )
    # a cancellation
    bus = HookBus()
    bus.on("on_event", lambda r: fired.add(r.type))
    stream = s.runner(bus, s.ScriptedLlm(script=s.conversation())).run_async(
        user_id="u", session_id="s", new_message=s.user(MESSAGE)
    )
    await anext(stream)
    await stream.aclose()
    await s.settle()
    assert fired | {"on_event"} == set(CAPABILITIES.fires)  # on_event: the records themselves


def _stop(ctx: Any) -> None:
    raise StopRun("enough")


Check = Callable[[list[Event], list[LlmRequest]], None]


def _reads(call_id: str, response: dict[str, Any]) -> Check:
    def check(events: list[Event], requests: list[LlmRequest]) -> None:
        assert (call_id, response) in s.tool_messages(requests[-1])

    return check


def _answer(text: str) -> Check:
    def check(events: list[Event], requests: list[LlmRequest]) -> None:
        assert s.final_text(events) == text

    return check


def _first_text(text: str) -> Check:
    def check(events: list[Event], requests: list[LlmRequest]) -> None:
        assert [p.text for p in requests[0].contents[0].parts or ()] == [text]

    return check


def _no_model(events: list[Event], requests: list[LlmRequest]) -> None:
    assert requests == []


def _paused(events: list[Event], requests: list[LlmRequest]) -> None:
    assert any(
        fc.name == "adk_request_confirmation" for e in events for fc in e.get_function_calls()
    )


def _ended_after_tools(events: list[Event], requests: list[LlmRequest]) -> None:
    assert len(requests) == 1  # the model is not asked again


def _system(text: str) -> Check:
    def check(events: list[Event], requests: list[LlmRequest]) -> None:
        assert requests[0].config.system_instruction == text

    return check


def _tool_calls(ids: list[str]) -> Check:
    def check(events: list[Event], requests: list[LlmRequest]) -> None:
        assert [fc.id for e in events for fc in e.get_function_calls()] == ids

    return check


def _stayed(events: list[Event], requests: list[LlmRequest]) -> None:
    assert ("t1", {"error": "no"}) in s.tool_messages(requests[-1])


def _missing() -> list[Any]:
    return [s.model_turn(s.call("read_file", "c", path="/missing")), s.model_turn("ok")]


CASES: dict[tuple[str, str], tuple[Callable[[Any], Any], Callable[[], list[Any]], Check]] = {
    ("on_chat_start", "deny"): (lambda ctx: Deny("no"), s.conversation, _answer("no")),
    ("on_user_message", "message"): (
        lambda ctx: {"message": "hello"},
        s.conversation,
        _first_text("hello"),
    ),
    ("on_user_message", "deny"): (lambda ctx: Deny("no"), s.conversation, _answer("no")),
    ("pre_request", "request"): (
        lambda ctx: {"request": ctx.request.model_copy(update={"system": "terse"})},
        s.conversation,
        _system("terse"),
    ),
    ("pre_request", "response"): (
        lambda ctx: {"response": ProviderResponse(content="cached")},
        s.conversation,
        _answer("cached"),
    ),
    ("pre_request", "deny"): (lambda ctx: Deny("no"), s.conversation, _answer("no")),
    ("on_response", "response"): (
        lambda ctx: {
            "response": ctx.response.model_copy(update={"tool_calls": ctx.response.tool_calls[1:]})
        },
        s.conversation,
        _tool_calls(["call_2"]),
    ),
    ("on_response", "deny"): (lambda ctx: Deny("no"), s.conversation, _answer("no")),
    ("on_model_error", "response"): (
        lambda ctx: {"response": ProviderResponse(content="recovered")},
        lambda: [ConnectionError("down")],
        _answer("recovered"),
    ),
    ("pre_tool_call", "call"): (
        lambda ctx: {"call": ctx.call.model_copy(update={"arguments": {"path": "/c"}})},
        s.conversation,
        _reads("call_1", {"result": "deleted /c"}),
    ),
    ("pre_tool_call", "result"): (
        lambda ctx: {"result": "short"},
        s.conversation,
        _reads("call_1", {"result": "short"}),
    ),
    ("pre_tool_call", "error"): (
        lambda ctx: {"error": "refused"},
        s.conversation,
        _reads("call_1", {"error": "refused"}),
    ),
    ("pre_tool_call", "deny"): (
        lambda ctx: Deny("no"),
        s.conversation,
        _reads("call_1", {"error": "no"}),
    ),
    ("pre_tool_call", "ask"): (lambda ctx: Ask("human"), s.conversation, _paused),
    ("on_tool_call_result", "result"): (
        lambda ctx: {"result": "rewritten"},
        s.conversation,
        _reads("call_1", {"result": "rewritten"}),
    ),
    ("on_tool_call_result", "terminate"): (
        lambda ctx: {"terminate": True},
        s.conversation,
        _ended_after_tools,
    ),
    ("on_tool_call_result", "deny"): (
        lambda ctx: Deny("withheld"),
        s.conversation,
        _reads("call_1", {"error": "withheld"}),
    ),
    ("on_tool_call_error", "result"): (
        lambda ctx: {"result": "recovered"},
        _missing,
        _reads("c", {"result": "recovered"}),
    ),
    ("on_tool_call_error", "error"): (
        lambda ctx: {"error": "no such file"},
        _missing,
        _reads("c", {"error": "no such file"}),
    ),
    ("on_tool_call_error", "terminate"): (
        lambda ctx: {"result": "stop here", "terminate": True},
        _missing,
        _ended_after_tools,
    ),
    ("post_agent", "response"): (
        lambda ctx: {"response": ctx.response.model_copy(update={"content": "redacted"})},
        s.conversation,
        _answer("redacted"),
    ),
    ("post_agent", "deny"): (lambda ctx: Deny("withheld"), s.conversation, _answer("withheld")),
    ("pre_handoff", "deny"): (
        lambda ctx: Deny("no"),
        lambda: [
            s.model_turn(s.call("transfer_to_agent", "t1", agent_name="helper")),
            s.model_turn("stayed"),
        ],
        _stayed,
    ),
}


def test_the_cases_cover_every_declared_return() -> None:
    declared = {(event, key) for event, keys in CAPABILITIES.honours.items() for key in keys}
    assert set(CASES) == declared


@pytest.mark.parametrize(("event", "key"), sorted(CASES))
async def test_each_declared_return_is_carried_out(event: str, key: str) -> None:
    handler, script, check = CASES[(event, key)]
    bus = HookBus()
    match = (
        {"match": "delete_file"}
        if event == "pre_tool_call" or (event == "on_tool_call_result")
        else {}
    )
    bus.on(event, handler, **match)
    model = s.ScriptedLlm(script=script())
    options: dict[str, Any] = {}
    if event == "pre_handoff":
        helper = LlmAgent(name="helper", model=s.ScriptedLlm(script=[s.model_turn("helped")]))
        options["sub_agents"] = [helper]
    events = await s.run(s.runner(bus, model, **options), MESSAGE)
    check(events, model.requests)


async def test_a_return_adk_cannot_carry_out_is_a_typed_error() -> None:
    assert not CAPABILITIES.honoured("on_model_error", "error")
    bus = HookBus()
    errors: list[BaseException] = []
    bus.on("on_chat_error", lambda ctx: errors.append(ctx.error))
    bus.on("on_model_error", lambda ctx: {"error": TimeoutError("replaced")})
    with pytest.raises(RuntimeError):
        await s.run(s.runner(bus, s.ScriptedLlm(script=[ConnectionError("down")])), MESSAGE)
    (error,) = errors
    assert isinstance(error, UnsupportedReturnError)
    assert (error.event, error.key, error.framework) == ("on_model_error", "error", "Google ADK")
    assert "ADK re-raises the model's own exception" in str(error)
