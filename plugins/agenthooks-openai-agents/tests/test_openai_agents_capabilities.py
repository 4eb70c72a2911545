"""CAPABILITIES pinned to behaviour: every event it says the bridge fires fires, every return it
says the bridge honours works, and every other return raises ``UnsupportedReturnError`` naming
the event, the return and the framework."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from importlib.metadata import entry_points
from typing import Any

import pytest
from agenthooks_openai_agents import CAPABILITIES, AgentHooksRunner
from agents import Agent, RunConfig, function_tool
from agents.models.interface import Model, ModelProvider
from agents.testing import ScriptedModel, assistant_message, function_call
from openai_agents_helpers import USER, Recorder, model_saw, read_file, scripted_agent, tool_outputs

from agenthooks import AgentResponse, Ask, Deny, HookBus, ProviderResponse, StopRun
from agenthooks.bridges import ENTRY_POINT_GROUP, RunDenied, UnsupportedReturnError


class Oops(Exception):
    pass


@function_tool(failure_error_function=lambda ctx, error: f"failed: {error}")
def broken(path: str) -> str:
    """Always fails."""
    raise Oops(f"cannot read {path}")


def test_the_entry_point_names_the_declaration() -> None:
    # only this bridge's entry point: loading the others imports their frameworks
    (point,) = entry_points(group=ENTRY_POINT_GROUP, name="openai_agents")
    assert point.load() is CAPABILITIES


async def test_every_event_the_bridge_says_it_fires_fires() -> None:
    bus = HookBus()
    recorder = Recorder(bus)
    records: set[str] = set()
    bus.on("on_event", lambda record: records.add("on_event"))
    runner = AgentHooksRunner(bus)

    # a streamed run with a tool error and a handoff
    billing = Agent(name="billing", model=ScriptedModel([[assistant_message("paid")]]))
    triage = Agent(
        name="triage",
        model=ScriptedModel(
            [
                [
                    function_call("read_file", {"path": "/a"}, call_id="c1"),
                    function_call("broken", {"path": "/b"}, call_id="c2"),
                ],
                [function_call("transfer_to_billing", {}, call_id="h1")],
            ]
        ),
        tools=[read_file, broken],
        handoffs=[billing],
    )
    streamed = runner.run_streamed(triage, "pay")
    async for _ in streamed.stream_events():
        pass

    # a streamed model error
    with pytest.raises(Oops):
        async for _ in runner.run_streamed(scripted_agent([Oops("down")])[0], USER).stream_events():
            pass

    # a model error, recovered, then one nobody recovers
    recovering = bus.on(
        "on_model_error", lambda ctx: {"response": ProviderResponse(content="recovered")}
    )
    await runner.run(scripted_agent([Oops("down")])[0], USER)
    recovering()
    with pytest.raises(Oops):
        await runner.run(scripted_agent([Oops("down")])[0], USER)

    # a pause and its resume
    asking = bus.on("pre_tool_call", lambda ctx: Ask("human?"), match="delete_file")
    agent, _ = scripted_agent()
    paused = await runner.run(agent, USER)
    asking()
    state = paused.to_state()
    state.approve(paused.interruptions[0])
    await runner.run(agent, state)

    # a sub-agent run as a tool
    researcher = Agent(name="researcher", model=ScriptedModel([[assistant_message("found")]]))
    lead, _ = scripted_agent(
        [[function_call("research", {"input": "x"}, call_id="r1")], [assistant_message("ok")]],
        tools=[researcher.as_tool("research", "Research.")],
    )
    await runner.run(lead, USER)

    # a stop between turns, and a cancellation
    stopping = bus.on("prepare_next_turn", _stop)
    with pytest.raises(StopRun):
        await runner.run(scripted_agent()[0], USER)
    stopping()
    await _cancelled(runner)

    fired = set(recorder.names) | records
    assert fired == set(CAPABILITIES.fires)


def _stop(ctx: Any) -> None:
    raise StopRun("enough")


async def _cancelled(runner: AgentHooksRunner) -> None:
    started = asyncio.Event()

    @function_tool
    async def wait(path: str) -> str:
        """Wait."""
        started.set()
        await asyncio.sleep(60)
        return ""

    agent, _ = scripted_agent(
        [[function_call("wait", {"path": "/"}, call_id="w")], [assistant_message("x")]],
        tools=[wait],
    )
    task = asyncio.ensure_future(runner.run(agent, "wait"))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


class Named(ModelProvider):
    """Models by name, as a run's model provider looks them up."""

    def __init__(self, models: dict[str, Model]) -> None:
        self.models = models

    def get_model(self, model_name: str | None) -> Model:
        return self.models[model_name or ""]


Check = Callable[[HookBus], Awaitable[None]]


async def _conversation(bus: HookBus, **kwargs: Any) -> tuple[Any, ScriptedModel]:
    agent, model = scripted_agent()
    return await AgentHooksRunner(bus).run(agent, USER, **kwargs), model


async def chat_start_deny(bus: HookBus) -> None:
    bus.on("on_chat_start", lambda ctx: Deny("no"))
    with pytest.raises(RunDenied):
        await _conversation(bus)


async def user_message_message(bus: HookBus) -> None:
    bus.on("on_user_message", lambda ctx: {"message": "hi"})
    _, model = await _conversation(bus)
    assert model_saw(model, 0) == [{"role": "user", "content": "hi"}]


async def user_message_deny(bus: HookBus) -> None:
    bus.on("on_user_message", lambda ctx: Deny("no"))
    with pytest.raises(RunDenied):
        await _conversation(bus)


async def pre_agent_response(bus: HookBus) -> None:
    bus.on("pre_agent", lambda ctx: {"response": AgentResponse(content="prepared")})
    result, model = await _conversation(bus)
    assert (result.final_output, model.calls) == ("prepared", ())


async def pre_agent_deny(bus: HookBus) -> None:
    bus.on("pre_agent", lambda ctx: Deny("no"))
    with pytest.raises(RunDenied) as caught:
        await _conversation(bus)
    assert caught.value.event == "pre_agent"


async def transform_context_messages(bus: HookBus) -> None:
    bus.on("transform_context", lambda ctx: {"messages": ctx.messages[-1:]})
    _, model = await _conversation(bus)
    assert [i["type"] for i in model_saw(model, 1)] == ["function_call_output"]


async def pre_request_request(bus: HookBus) -> None:
    bus.on("pre_request", lambda ctx: {"request": ctx.request.model_copy(update={"system": "S"})})
    _, model = await _conversation(bus)
    assert model.calls[0].system_instructions == "S"


async def pre_request_response(bus: HookBus) -> None:
    bus.on("pre_request", lambda ctx: {"response": ProviderResponse(content="short")})
    result, model = await _conversation(bus)
    assert (result.final_output, model.calls) == ("short", ())


async def pre_request_deny(bus: HookBus) -> None:
    bus.on("pre_request", lambda ctx: Deny("no"))
    result, _ = await _conversation(bus)
    assert result.final_output == "no"


async def on_response_response(bus: HookBus) -> None:
    bus.on(
        "on_response",
        lambda ctx: {"response": ProviderResponse(content="else")} if ctx.iteration == 1 else None,
    )
    result, _ = await _conversation(bus)
    assert result.final_output == "else"


async def on_response_deny(bus: HookBus) -> None:
    bus.on("on_response", lambda ctx: Deny("no"))
    result, _ = await _conversation(bus)
    assert result.final_output == "no"


async def model_error_response(bus: HookBus) -> None:
    bus.on("on_model_error", lambda ctx: {"response": ProviderResponse(content="ok")})
    result = await AgentHooksRunner(bus).run(scripted_agent([Oops("x")])[0], USER)
    assert result.final_output == "ok"


async def model_error_error(bus: HookBus) -> None:
    bus.on("on_model_error", lambda ctx: {"error": LookupError("replaced")})
    with pytest.raises(LookupError, match="replaced"):
        await AgentHooksRunner(bus).run(scripted_agent([Oops("x")])[0], USER)


def _call_of(name: str, **update: Any) -> Callable[[Any], Any]:
    def handler(ctx: Any) -> Any:
        return update if ctx.call.name == name else None

    return handler


async def pre_tool_call_call(bus: HookBus) -> None:
    bus.on(
        "pre_tool_call",
        lambda ctx: {"call": ctx.call.model_copy(update={"arguments": {"path": "/z"}})},
        match="read_file",
    )
    _, model = await _conversation(bus)
    assert tool_outputs(model, 1)["call_2"] == "contents of /z"


async def pre_tool_call_result(bus: HookBus) -> None:
    bus.on("pre_tool_call", lambda ctx: {"result": "given"}, match="read_file")
    _, model = await _conversation(bus)
    assert tool_outputs(model, 1)["call_2"] == "given"


async def pre_tool_call_error(bus: HookBus) -> None:
    bus.on("pre_tool_call", lambda ctx: {"error": "refused here"}, match="read_file")
    _, model = await _conversation(bus)
    assert tool_outputs(model, 1)["call_2"] == "refused here"


async def pre_tool_call_deny(bus: HookBus) -> None:
    bus.on("pre_tool_call", lambda ctx: Deny("no"), match="read_file")
    _, model = await _conversation(bus)
    assert tool_outputs(model, 1)["call_2"] == "no"


async def pre_tool_call_ask(bus: HookBus) -> None:
    bus.on("pre_tool_call", lambda ctx: Ask("human?"), match="read_file")
    result, _ = await _conversation(bus)
    assert [i.name for i in result.interruptions] == ["read_file"]


async def tool_result_result(bus: HookBus) -> None:
    bus.on("on_tool_call_result", lambda ctx: {"result": "swapped"}, match="read_file")
    _, model = await _conversation(bus)
    assert tool_outputs(model, 1)["call_2"] == "swapped"


async def tool_result_deny(bus: HookBus) -> None:
    bus.on("on_tool_call_result", lambda ctx: Deny("withheld"), match="read_file")
    _, model = await _conversation(bus)
    assert tool_outputs(model, 1)["call_2"] == "withheld"


async def _terminated(bus: HookBus) -> tuple[Any, ScriptedModel]:
    agent, model = scripted_agent(
        [
            [
                assistant_message("Working on it."),
                function_call("broken", {"path": "/b"}, call_id="c1"),
                function_call("read_file", {"path": "/a"}, call_id="c2"),
            ],
            [assistant_message("never asked")],
        ],
        tools=[broken, read_file],
    )
    result = await AgentHooksRunner(bus).run(agent, "go")
    return result, model


async def tool_result_terminate(bus: HookBus) -> None:
    recorder = Recorder(bus, iter(["on_chat_done", "prepare_next_turn"]))
    bus.on("on_tool_call_result", lambda ctx: {"terminate": True})
    bus.on("on_tool_call_error", lambda ctx: {"terminate": True})
    result, model = await _terminated(bus)
    assert (result.final_output, len(model.calls)) == ("Working on it.", 1)
    assert recorder.of("on_chat_done")[0].response.finish_reason == "terminated"
    assert recorder.names == ["on_chat_done"]


async def tool_error_terminate(bus: HookBus) -> None:
    bus.on("on_tool_call_error", lambda ctx: {"terminate": True})
    result, model = await _terminated(bus)  # the read_file call did not ask to stop
    assert (result.final_output, len(model.calls)) == ("never asked", 2)


async def _broken_run(bus: HookBus) -> ScriptedModel:
    agent, model = scripted_agent(
        [[function_call("broken", {"path": "/b"}, call_id="c1")], [assistant_message("ok")]],
        tools=[broken],
    )
    await AgentHooksRunner(bus).run(agent, "read")
    return model


async def tool_error_result(bus: HookBus) -> None:
    bus.on("on_tool_call_error", lambda ctx: {"result": "recovered"})
    assert tool_outputs(await _broken_run(bus), 1) == {"c1": "recovered"}


async def tool_error_error(bus: HookBus) -> None:
    bus.on("on_tool_call_error", lambda ctx: {"error": Oops("said otherwise")})
    assert tool_outputs(await _broken_run(bus), 1) == {"c1": "failed: said otherwise"}


async def next_turn_model(bus: HookBus) -> None:
    bus.on("prepare_next_turn", lambda ctx: {"model": "small"})
    big, small = ScriptedModel(conversation_first()), ScriptedModel([[assistant_message("s")]])
    agent = Agent(name="a", model="big", tools=[read_file])
    config = RunConfig(model_provider=Named({"big": big, "small": small}))
    result = await AgentHooksRunner(bus).run(agent, USER, run_config=config)
    assert (result.final_output, len(big.calls), len(small.calls)) == ("s", 1, 1)


async def next_turn_thinking(bus: HookBus) -> None:
    bus.on("prepare_next_turn", lambda ctx: {"thinking": "low"})
    _, model = await _conversation(bus)
    reasoning = model.calls[1].model_settings.reasoning
    assert reasoning is not None and reasoning.effort == "low"


async def post_agent_response(bus: HookBus) -> None:
    bus.on("post_agent", lambda ctx: {"response": ctx.response.model_copy(update={"content": "P"})})
    result, _ = await _conversation(bus)
    assert result.final_output == "P"


async def post_agent_deny(bus: HookBus) -> None:
    bus.on("post_agent", lambda ctx: Deny("no"))
    result, _ = await _conversation(bus)
    assert result.final_output == "no"


async def should_stop_true(bus: HookBus) -> None:
    recorder = Recorder(bus, iter(["on_chat_done"]))
    bus.on("should_stop", lambda ctx: True)
    _, model = await _conversation(bus)
    assert len(model.calls) == 1
    assert recorder.of("on_chat_done")[0].response.finish_reason == "stopped"


def conversation_first() -> list[Any]:
    return [[function_call("read_file", {"path": "/a"}, call_id="c1")]]


HONOURED: dict[tuple[str, str], Check] = {
    ("on_chat_start", "deny"): chat_start_deny,
    ("on_user_message", "message"): user_message_message,
    ("on_user_message", "deny"): user_message_deny,
    ("pre_agent", "response"): pre_agent_response,
    ("pre_agent", "deny"): pre_agent_deny,
    ("transform_context", "messages"): transform_context_messages,
    ("pre_request", "request"): pre_request_request,
    ("pre_request", "response"): pre_request_response,
    ("pre_request", "deny"): pre_request_deny,
    ("on_response", "response"): on_response_response,
    ("on_response", "deny"): on_response_deny,
    ("on_model_error", "response"): model_error_response,
    ("on_model_error", "error"): model_error_error,
    ("pre_tool_call", "call"): pre_tool_call_call,
    ("pre_tool_call", "result"): pre_tool_call_result,
    ("pre_tool_call", "error"): pre_tool_call_error,
    ("pre_tool_call", "deny"): pre_tool_call_deny,
    ("pre_tool_call", "ask"): pre_tool_call_ask,
    ("on_tool_call_result", "result"): tool_result_result,
    ("on_tool_call_result", "deny"): tool_result_deny,
    ("on_tool_call_error", "result"): tool_error_result,
    ("on_tool_call_error", "error"): tool_error_error,
    ("on_tool_call_result", "terminate"): tool_result_terminate,
    ("on_tool_call_error", "terminate"): tool_error_terminate,
    ("prepare_next_turn", "model"): next_turn_model,
    ("prepare_next_turn", "thinking"): next_turn_thinking,
    ("should_stop", "true"): should_stop_true,
    ("post_agent", "response"): post_agent_response,
    ("post_agent", "deny"): post_agent_deny,
}


def test_every_honoured_return_has_a_check() -> None:
    declared = {(event, key) for event, keys in CAPABILITIES.honours.items() for key in keys}
    assert set(HONOURED) == declared


@pytest.mark.parametrize("pair", sorted(HONOURED), ids=lambda p: ".".join(p))
async def test_an_honoured_return_works(pair: tuple[str, str]) -> None:
    await HONOURED[pair](HookBus())


UNSUPPORTED: dict[tuple[str, str], tuple[str, Any]] = {
    ("pre_handoff", "deny"): ("pre_handoff", Deny("stay")),
    ("pre_handoff", "ask"): ("pre_handoff", Ask("human?")),
    ("prepare_next_turn", "messages"): ("prepare_next_turn", {"messages": []}),
    ("prepare_next_turn", "provider"): ("prepare_next_turn", {"provider": object()}),
}


def test_every_return_the_bridge_cannot_carry_out_is_listed() -> None:
    assert sorted(UNSUPPORTED) == CAPABILITIES.unhonoured()
    for event, key in UNSUPPORTED:
        assert f"{event}.{key}" in CAPABILITIES.gaps


@pytest.mark.parametrize("pair", sorted(UNSUPPORTED), ids=lambda p: ".".join(p))
async def test_an_unsupported_return_raises_naming_event_return_and_framework(
    pair: tuple[str, str],
) -> None:
    event, returned = UNSUPPORTED[pair]
    bus = HookBus()
    recorder = Recorder(bus, iter(["on_chat_error", "on_chat_end"]))
    bus.on(event, lambda ctx: returned)
    billing = Agent(name="billing", model=ScriptedModel([[assistant_message("paid")]]))
    agent, _ = scripted_agent(
        [
            [
                function_call("broken", {"path": "/b"}, call_id="c1"),
                function_call("read_file", {"path": "/a"}, call_id="c2"),
            ],
            [function_call("transfer_to_billing", {}, call_id="h1")],
        ],
        tools=[broken, read_file],
        handoffs=[billing],
    )

    with pytest.raises(UnsupportedReturnError) as caught:
        await AgentHooksRunner(bus).run(agent, "go")

    assert (caught.value.event, caught.value.key, caught.value.framework) == (
        *pair,
        "OpenAI Agents SDK",
    )
    assert recorder.names == ["on_chat_error", "on_chat_end"]
