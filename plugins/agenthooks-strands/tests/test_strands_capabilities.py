"""``CAPABILITIES`` pinned to behaviour: every event it says the bridge fires fires in scripted
runs (and no other), every return it says the bridge honours is carried out, and every return
of a fired event it does not honour raises ``UnsupportedReturnError`` naming the event, the
return and the framework."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from agenthooks_strands import CAPABILITIES
from agenthooks_strands.testing import ScriptedModel, tool_calls
from strands import Agent, tool
from strands_helpers import RAN, USER, build, explode, read_file, tool_results

from agenthooks import AgentResponse, Ask, Deny, HookBus, ProviderResponse, StopRun
from agenthooks.bridges import UnsupportedReturnError, installed_bridges
from agenthooks.testing import HookRecorder


def test_the_declaration_is_the_installed_entry_point() -> None:
    assert installed_bridges()["strands"] is CAPABILITIES


@tool
async def nap() -> str:
    """Sleep a long time."""
    await asyncio.sleep(30)
    return "woke"


async def test_every_declared_event_fires_and_no_other() -> None:
    bus = HookBus()
    recorder = HookRecorder()
    recorder.attach(bus)
    records: list[str] = []
    bus.on("on_event", lambda record: records.append(record.type))

    agent, _ = build(bus)  # the conversation
    await agent.invoke_async(USER)

    bus.on("pre_tool_call", lambda ctx: Ask("check"), match="delete_file")
    agent, _ = build(bus)  # a pause and its resume
    paused = await agent.invoke_async(USER)
    await agent.invoke_async(
        [{"interruptResponse": {"interruptId": paused.interrupts[0].id, "response": True}}]
    )

    agent, _ = build(bus, [ConnectionError("down")])  # a model error
    with pytest.raises(ConnectionError):
        await agent.invoke_async("hi")

    agent, _ = build(bus, [tool_calls(("n", "nap", {})), "never"], tools=[nap])  # a cancellation
    task = asyncio.create_task(agent.invoke_async("nap"))
    while not recorder.of("pre_tool_call:nap"):
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    agent, _ = build(bus, [tool_calls(("e", "explode", {"path": "/x"})), "ok"], tools=[explode])
    await agent.invoke_async("fail a tool")

    researcher = Agent(name="researcher", model=ScriptedModel(["found"]), callback_handler=None)
    agent, _ = build(  # a sub-agent run as a tool
        bus,
        [tool_calls(("r", "research", {"input": "x"})), "ok"],
        tools=[researcher.as_tool(name="research")],
    )
    await agent.invoke_async("research")

    def stop(ctx: Any) -> None:
        raise StopRun("enough")

    stopping = bus.on("pre_request", stop)
    agent, _ = build(bus, ["never"])  # a hook stops the run
    with pytest.raises(StopRun):
        await agent.invoke_async("stop")
    stopping()

    assert set(records) == set(recorder.names())  # one on_event record per emission
    fired = set(recorder.names()) | ({"on_event"} if records else set())
    assert fired == set(CAPABILITIES.fires)


# --- every honoured return, carried out -------------------------------------------------------

Scenario = Callable[[HookBus], Awaitable[None]]


async def _chat_start_deny(bus: HookBus) -> None:
    bus.on("on_chat_start", lambda ctx: Deny("no"))
    agent, model = build(bus, [])
    assert str(await agent.invoke_async("hi")).strip() == "no" and model.requests == []


async def _user_message(bus: HookBus) -> None:
    bus.on("on_user_message", lambda ctx: {"message": "rewritten"})
    agent, model = build(bus, ["ok"])
    await agent.invoke_async("hi")
    assert model.requests[0]["messages"][0]["content"] == [{"text": "rewritten"}]


async def _user_message_deny(bus: HookBus) -> None:
    bus.on("on_user_message", lambda ctx: Deny("bad input"))
    agent, model = build(bus, [])
    assert str(await agent.invoke_async("hi")).strip() == "bad input" and model.requests == []


async def _request(bus: HookBus) -> None:
    bus.on("pre_request", lambda ctx: {"request": ctx.request.model_copy(update={"system": "S"})})
    agent, model = build(bus, ["ok"])
    await agent.invoke_async("hi")
    assert model.requests[0]["system_prompt"] == "S"


async def _request_response(bus: HookBus) -> None:
    bus.on("pre_request", lambda ctx: {"response": ProviderResponse(content="cached")})
    agent, model = build(bus, [])
    assert str(await agent.invoke_async("hi")).strip() == "cached" and model.requests == []


async def _request_deny(bus: HookBus) -> None:
    bus.on("pre_request", lambda ctx: Deny("budget"))
    agent, model = build(bus, [])
    assert str(await agent.invoke_async("hi")).strip() == "budget" and model.requests == []


async def _response(bus: HookBus) -> None:
    bus.on("on_response", lambda ctx: {"response": ProviderResponse(content="changed")})
    agent, _ = build(bus, ["original"])
    assert str(await agent.invoke_async("hi")).strip() == "changed"


async def _response_deny(bus: HookBus) -> None:
    bus.on("on_response", lambda ctx: Deny("unsafe answer"))
    agent, _ = build(bus, ["original"])
    assert str(await agent.invoke_async("hi")).strip() == "unsafe answer"
    assert all(b.get("text") != "original" for m in agent.messages for b in m["content"])


async def _model_error_response(bus: HookBus) -> None:
    bus.on("on_model_error", lambda ctx: {"response": ProviderResponse(content="fallback")})
    agent, _ = build(bus, [ConnectionError("down")])
    assert str(await agent.invoke_async("hi")).strip() == "fallback"


async def _model_error_error(bus: HookBus) -> None:
    bus.on("on_model_error", lambda ctx: {"error": TimeoutError("model slow")})
    agent, _ = build(bus, [ConnectionError("down")])
    with pytest.raises(TimeoutError, match="model slow"):
        await agent.invoke_async("hi")


def _one_read(bus: HookBus) -> Any:
    return build(bus, [tool_calls(("c", "read_file", {"path": "/x"})), "ok"], tools=[read_file])


async def _tool_call(bus: HookBus) -> None:
    bus.on(
        "pre_tool_call",
        lambda ctx: {"call": ctx.call.model_copy(update={"arguments": {"path": "/y"}})},
    )
    agent, _ = _one_read(bus)
    await agent.invoke_async("read")
    assert RAN == [("read_file", "/y")]


async def _tool_result(bus: HookBus) -> None:
    bus.on("pre_tool_call", lambda ctx: {"result": "short"})
    agent, model = _one_read(bus)
    await agent.invoke_async("read")
    assert RAN == [] and tool_results(model) == {"c": ("success", "short")}


async def _tool_error(bus: HookBus) -> None:
    bus.on("pre_tool_call", lambda ctx: {"error": "not now"})
    agent, model = _one_read(bus)
    await agent.invoke_async("read")
    assert RAN == [] and tool_results(model) == {"c": ("error", "not now")}


async def _tool_deny(bus: HookBus) -> None:
    bus.on("pre_tool_call", lambda ctx: Deny("nope"))
    agent, model = _one_read(bus)
    await agent.invoke_async("read")
    assert RAN == [] and tool_results(model) == {"c": ("error", "nope")}


async def _tool_ask(bus: HookBus) -> None:
    bus.on("pre_tool_call", lambda ctx: Ask("sure?"))
    agent, _ = _one_read(bus)
    paused = await agent.invoke_async("read")
    assert paused.stop_reason == "interrupt" and RAN == []


async def _result_result(bus: HookBus) -> None:
    bus.on("on_tool_call_result", lambda ctx: {"result": "rewritten"})
    agent, model = _one_read(bus)
    await agent.invoke_async("read")
    assert tool_results(model) == {"c": ("success", "rewritten")}


async def _result_deny(bus: HookBus) -> None:
    bus.on("on_tool_call_result", lambda ctx: Deny("withheld"))
    agent, model = _one_read(bus)
    await agent.invoke_async("read")
    assert tool_results(model) == {"c": ("error", "withheld")}


async def _result_terminate(bus: HookBus) -> None:
    bus.on("on_tool_call_result", lambda ctx: {"terminate": True})
    agent, model = _one_read(bus)
    await agent.invoke_async("read")
    assert len(model.requests) == 1


def _one_explode(bus: HookBus) -> Any:
    return build(bus, [tool_calls(("e", "explode", {"path": "/x"})), "ok"], tools=[explode])


async def _error_result(bus: HookBus) -> None:
    bus.on("on_tool_call_error", lambda ctx: {"result": "recovered"})
    agent, model = _one_explode(bus)
    await agent.invoke_async("go")
    assert tool_results(model) == {"e": ("success", "recovered")}


async def _error_error(bus: HookBus) -> None:
    bus.on("on_tool_call_error", lambda ctx: {"error": "the file is gone"})
    agent, model = _one_explode(bus)
    await agent.invoke_async("go")
    assert tool_results(model) == {"e": ("error", "the file is gone")}


async def _error_terminate(bus: HookBus) -> None:
    bus.on("on_tool_call_error", lambda ctx: {"terminate": True})
    agent, model = _one_explode(bus)
    await agent.invoke_async("go")
    assert len(model.requests) == 1


async def _post_agent_response(bus: HookBus) -> None:
    bus.on("post_agent", lambda ctx: {"response": ctx.response.model_copy(update={"content": "B"})})
    agent, _ = build(bus, ["A"])
    assert str(await agent.invoke_async("hi")).strip() == "B"


async def _post_agent_deny(bus: HookBus) -> None:
    bus.on("post_agent", lambda ctx: Deny("withheld"))
    agent, _ = build(bus, ["A"])
    assert str(await agent.invoke_async("hi")).strip() == "withheld"


async def _should_stop_true(bus: HookBus) -> None:
    bus.on("should_stop", lambda ctx: True)
    agent, model = build(bus)
    await agent.invoke_async("hi")
    assert len(model.requests) == 1


async def _pre_agent_response(bus: HookBus) -> None:
    bus.on("pre_agent", lambda ctx: {"response": AgentResponse(content="from memory")})
    agent, model = build(bus, [])
    assert str(await agent.invoke_async("hi")).strip() == "from memory" and model.requests == []
    assert agent.messages[-1]["content"] == [{"text": "from memory"}]


async def _pre_agent_deny(bus: HookBus) -> None:
    bus.on("pre_agent", lambda ctx: Deny("not for this agent"))
    agent, model = build(bus, [])
    assert str(await agent.invoke_async("hi")).strip() == "not for this agent"
    assert model.requests == []


async def _transform_context(bus: HookBus) -> None:
    def last_only(ctx: Any) -> dict[str, Any]:
        return {"messages": ctx.messages[-1:]}

    bus.on("transform_context", last_only)
    agent, model = _one_read(bus)
    await agent.invoke_async("read")
    assert len(model.requests[1]["messages"]) == 1  # the model got the tool result only
    assert len(agent.messages) == 4  # the stored conversation is whole


HONOURED: dict[tuple[str, str], Scenario] = {
    ("pre_agent", "response"): _pre_agent_response,
    ("pre_agent", "deny"): _pre_agent_deny,
    ("transform_context", "messages"): _transform_context,
    ("on_chat_start", "deny"): _chat_start_deny,
    ("on_user_message", "message"): _user_message,
    ("on_user_message", "deny"): _user_message_deny,
    ("pre_request", "request"): _request,
    ("pre_request", "response"): _request_response,
    ("pre_request", "deny"): _request_deny,
    ("on_response", "response"): _response,
    ("on_response", "deny"): _response_deny,
    ("on_model_error", "response"): _model_error_response,
    ("on_model_error", "error"): _model_error_error,
    ("pre_tool_call", "call"): _tool_call,
    ("pre_tool_call", "result"): _tool_result,
    ("pre_tool_call", "error"): _tool_error,
    ("pre_tool_call", "deny"): _tool_deny,
    ("pre_tool_call", "ask"): _tool_ask,
    ("on_tool_call_result", "result"): _result_result,
    ("on_tool_call_result", "deny"): _result_deny,
    ("on_tool_call_result", "terminate"): _result_terminate,
    ("on_tool_call_error", "result"): _error_result,
    ("on_tool_call_error", "error"): _error_error,
    ("on_tool_call_error", "terminate"): _error_terminate,
    ("should_stop", "true"): _should_stop_true,
    ("post_agent", "response"): _post_agent_response,
    ("post_agent", "deny"): _post_agent_deny,
}


def test_every_honoured_return_has_a_scenario() -> None:
    declared = {(event, key) for event, keys in CAPABILITIES.honours.items() for key in keys}
    assert declared == set(HONOURED)


@pytest.mark.parametrize(("event", "key"), sorted(HONOURED))
async def test_an_honoured_return_is_carried_out(event: str, key: str) -> None:
    await HONOURED[(event, key)](HookBus())


# --- every other return of a fired event raises -----------------------------------------------


def test_the_returns_strands_cannot_carry_out() -> None:
    assert CAPABILITIES.unhonoured() == [
        ("prepare_next_turn", "messages"),
        ("prepare_next_turn", "model"),
        ("prepare_next_turn", "provider"),
        ("prepare_next_turn", "thinking"),
    ]


@pytest.mark.parametrize(("event", "key"), CAPABILITIES.unhonoured())
async def test_an_unhonoured_return_raises_a_typed_error(event: str, key: str) -> None:
    bus = HookBus()
    value: Any = {"messages": [], "model": "other", "provider": object(), "thinking": "high"}[key]
    bus.on(event, lambda ctx: {key: value})
    agent, _ = build(bus)

    with pytest.raises(UnsupportedReturnError) as caught:
        await agent.invoke_async(USER)

    assert (caught.value.event, caught.value.key, caught.value.framework) == (event, key, "Strands")
    assert event in str(caught.value) and "Strands" in str(caught.value)
