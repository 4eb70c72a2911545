"""CAPABILITIES pinned to behaviour: every event it says the bridge fires fires, every return
it says the bridge honours works, and a return it does not honour raises
UnsupportedReturnError naming the event, the return and the framework."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from agenthooks_pydantic_ai import CAPABILITIES, AgentHooksCapability, resume_results
from pydantic import BaseModel
from pydantic_ai import Agent, DeferredToolRequests
from pydantic_ai.messages import ModelResponse, ToolCallPart
from pydantic_ai_script import PROMPT, Script, conversation_script, file_agent, tool_returns

from agenthooks import (
    AgentResponse,
    Approve,
    Ask,
    ChatMessage,
    Deny,
    HookBus,
    ProviderResponse,
)
from agenthooks.bridges import RunDenied, UnsupportedReturnError, installed_bridges
from agenthooks.errors import StopRun


class Verdict(BaseModel):
    ok: bool


def test_the_entry_point_names_the_declaration() -> None:
    assert installed_bridges()["pydantic_ai"] is CAPABILITIES
    assert CAPABILITIES.framework == "Pydantic AI"
    assert CAPABILITIES.distribution == "agenthooks-pydantic-ai"


async def test_every_declared_event_fires_in_scripted_runs() -> None:
    bus = HookBus()
    fired: set[str] = set()
    bus.on("on_event", lambda ctx: fired.add(ctx.type))

    # a whole conversation
    agent, _ = file_agent(conversation_script(), bus)
    await agent.run(PROMPT)
    # a pause
    asking = bus.on("pre_tool_call", lambda ctx: Ask("a human decides"))
    agent, _ = file_agent(conversation_script(), bus, output_type=[str, DeferredToolRequests])
    paused = await agent.run(PROMPT)
    asking()
    # ... and its resume
    await agent.run(
        message_history=paused.all_messages(),
        deferred_tool_results=resume_results({"call_1": Approve(), "call_2": Approve()}),
    )
    # a tool error and a model error
    script = Script([("explode", {}, "c1")], RuntimeError("model down"))
    failing: Agent[None, str] = Agent(script.model, capabilities=[AgentHooksCapability(bus)])

    @failing.tool_plain
    def explode() -> str:
        raise ValueError("tool down")

    bus.on("on_tool_call_error", lambda ctx: {"result": "recovered"})
    with pytest.raises(RuntimeError):
        await failing.run("go")
    # a run a hook stops
    stopping = bus.on("pre_request", _stop)
    with pytest.raises(StopRun):
        await file_agent(conversation_script(), bus)[0].run(PROMPT)
    stopping()
    # a cancellation
    started = asyncio.Event()
    waiting: Agent[None, str] = Agent(
        Script([("wait", {}, "c1")]).model, capabilities=[AgentHooksCapability(bus)]
    )

    @waiting.tool_plain
    async def wait() -> str:
        started.set()
        await asyncio.Event().wait()
        return "never"

    task = asyncio.create_task(waiting.run("go"))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    # a sub-agent: an agent a tool runs
    researcher: Agent[None, str] = Agent(
        Script("found").model, name="researcher", capabilities=[AgentHooksCapability(bus)]
    )
    lead: Agent[None, str] = Agent(
        Script([("research", {"topic": "x"}, "r1")], "ok").model,
        capabilities=[AgentHooksCapability(bus)],
    )

    @lead.tool_plain
    async def research(topic: str) -> str:
        return (await researcher.run(topic)).output

    await lead.run("go")

    assert fired | {"on_event"} == set(CAPABILITIES.fires)


def _stop(ctx: object) -> None:
    raise StopRun("enough")


Scenario = Callable[[], Awaitable[None]]


async def _run(
    event: str, handler: Callable[[Any], Any], script: Script, **options: Any
) -> tuple[Any, list[str], Script]:
    bus = HookBus()
    bus.on(event, handler)
    agent, ran = file_agent(script, bus, **options)
    return await agent.run(PROMPT), ran, script


async def chat_start_deny() -> None:
    result, ran, script = await _run("on_chat_start", lambda c: Deny("no"), conversation_script())
    assert (result.output, ran, script.calls) == ("no", [], 0)


async def user_message_message() -> None:
    _, _, script = await _run("on_user_message", lambda c: {"message": "hi"}, Script("ok"))
    assert script.requests[0][0].parts[0].content == "hi"


async def user_message_deny() -> None:
    result, _, script = await _run("on_user_message", lambda c: Deny("no"), Script())
    assert (result.output, script.calls) == ("no", 0)


async def pre_agent_response() -> None:
    result, ran, script = await _run(
        "pre_agent",
        lambda c: {"response": AgentResponse(content="answered for the agent")},
        conversation_script(),
    )
    assert (result.output, ran, script.calls) == ("answered for the agent", [], 0)


async def pre_agent_deny() -> None:
    result, _, script = await _run("pre_agent", lambda c: Deny("closed"), Script())
    assert (result.output, script.calls) == ("closed", 0)


async def transform_context_messages() -> None:
    def transform(ctx: Any) -> dict[str, Any]:
        note = ChatMessage(role="user", content="(context: the user is an admin)")
        return {"messages": [*ctx.messages, note]}

    result, _, script = await _run("transform_context", transform, Script("ok"))
    sent = script.requests[0][0]
    assert [p.content for p in sent.parts] == [PROMPT, "(context: the user is an admin)"]
    # the stored history is not changed
    assert [p.content for p in result.all_messages()[0].parts] == [PROMPT]


async def pre_request_request() -> None:
    def rewrite(ctx: Any) -> dict[str, Any]:
        return {"request": ctx.request.model_copy(update={"system": "Be kind."})}

    _, _, script = await _run("pre_request", rewrite, Script("ok"))
    assert script.infos[0].instructions == "Be kind."


async def pre_request_response() -> None:
    result, _, script = await _run(
        "pre_request", lambda c: {"response": ProviderResponse(content="hit")}, Script()
    )
    assert (result.output, script.calls) == ("hit", 0)


async def pre_request_deny() -> None:
    result, _, script = await _run("pre_request", lambda c: Deny("stop"), Script())
    assert (result.output, script.calls) == ("stop", 0)


async def on_response_response() -> None:
    result, _, _ = await _run(
        "on_response",
        lambda c: {"response": c.response.model_copy(update={"content": "new"})},
        Script("old"),
    )
    assert result.output == "new"


async def on_response_deny() -> None:
    result, ran, _ = await _run("on_response", lambda c: Deny("no"), conversation_script())
    assert (result.output, ran) == ("no", [])


async def model_error_response() -> None:
    result, _, _ = await _run(
        "on_model_error",
        lambda c: {"response": ProviderResponse(content="fallback")},
        Script(RuntimeError("down")),
    )
    assert result.output == "fallback"


async def model_error_error() -> None:
    with pytest.raises(LookupError, match="replaced"):
        await _run(
            "on_model_error", lambda c: {"error": LookupError("replaced")}, Script(RuntimeError())
        )


async def tool_call_call() -> None:
    _, ran, _ = await _run(
        "pre_tool_call",
        lambda c: {"call": c.call.model_copy(update={"arguments": {"path": "/other"}})},
        conversation_script(),
    )
    assert sorted(ran) == ["delete_file /other", "read_file /other"]


async def tool_call_result() -> None:
    result, ran, _ = await _run("pre_tool_call", lambda c: {"result": "x"}, conversation_script())
    assert ran == [] and [r[1] for r in tool_returns(result.all_messages())] == ["x", "x"]


async def tool_call_error() -> None:
    result, ran, _ = await _run("pre_tool_call", lambda c: {"error": "e"}, conversation_script())
    assert ran == [] and [r[2] for r in tool_returns(result.all_messages())] == ["failed"] * 2


async def tool_call_deny() -> None:
    result, ran, _ = await _run("pre_tool_call", lambda c: Deny("d"), conversation_script())
    assert ran == [] and [r[2] for r in tool_returns(result.all_messages())] == ["denied"] * 2


async def tool_call_ask() -> None:
    result, ran, _ = await _run(
        "pre_tool_call",
        lambda c: Ask("?"),
        conversation_script(),
        output_type=[str, DeferredToolRequests],
    )
    assert ran == [] and len(result.output.approvals) == 2


async def tool_result_result() -> None:
    result, _, _ = await _run(
        "on_tool_call_result", lambda c: {"result": "r"}, conversation_script()
    )
    assert [r[1] for r in tool_returns(result.all_messages())] == ["r", "r"]


async def tool_result_deny() -> None:
    result, ran, _ = await _run(
        "on_tool_call_result", lambda c: Deny("hidden"), conversation_script()
    )
    assert len(ran) == 2
    assert [r[1] for r in tool_returns(result.all_messages())] == ["hidden", "hidden"]


def _failing_script() -> Script:
    return Script([("read_file", {"path": "/tmp/b.txt"}, "c1")], "ok")


async def _failing_run(handler: Callable[[Any], Any]) -> Any:
    bus = HookBus()
    bus.on("on_tool_call_error", handler)
    script = _failing_script()
    agent: Agent[None, str] = Agent(script.model, capabilities=[AgentHooksCapability(bus)])

    @agent.tool_plain
    def read_file(path: str) -> str:
        raise OSError("disk gone")

    return await agent.run("go")


async def tool_error_result() -> None:
    result = await _failing_run(lambda c: {"result": "cached copy"})
    assert tool_returns(result.all_messages()) == [("c1", "cached copy", "success")]


async def tool_error_error() -> None:
    result = await _failing_run(lambda c: {"error": "storage unavailable, try later"})
    assert tool_returns(result.all_messages()) == [
        ("c1", "storage unavailable, try later", "failed")
    ]


async def post_agent_response() -> None:
    result, _, _ = await _run(
        "post_agent",
        lambda c: {"response": c.response.model_copy(update={"content": "[REDACTED]"})},
        Script("secret"),
    )
    assert result.output == "[REDACTED]"
    assert result.all_messages()[-1].parts[0].content == "[REDACTED]"


async def post_agent_deny() -> None:
    result, _, _ = await _run("post_agent", lambda c: Deny("withheld"), Script("secret"))
    assert result.output == "withheld"
    assert result.all_messages()[-1].parts[0].content == "withheld"


async def should_stop_true() -> None:
    result, ran, script = await _run("should_stop", lambda c: True, conversation_script())
    assert (result.output, len(ran), script.calls) == ("", 2, 1)


HONOURED: dict[tuple[str, str], Scenario] = {
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
    ("pre_tool_call", "call"): tool_call_call,
    ("pre_tool_call", "result"): tool_call_result,
    ("pre_tool_call", "error"): tool_call_error,
    ("pre_tool_call", "deny"): tool_call_deny,
    ("pre_tool_call", "ask"): tool_call_ask,
    ("on_tool_call_result", "result"): tool_result_result,
    ("on_tool_call_result", "deny"): tool_result_deny,
    ("on_tool_call_error", "result"): tool_error_result,
    ("on_tool_call_error", "error"): tool_error_error,
    ("should_stop", "true"): should_stop_true,
    ("post_agent", "response"): post_agent_response,
    ("post_agent", "deny"): post_agent_deny,
}


def test_every_honoured_return_has_a_scenario() -> None:
    declared = {(event, key) for event, keys in CAPABILITIES.honours.items() for key in keys}
    assert declared == set(HONOURED)


@pytest.mark.parametrize("pair", sorted(HONOURED), ids=lambda p: f"{p[0]}.{p[1]}")
async def test_an_honoured_return_works(pair: tuple[str, str]) -> None:
    await HONOURED[pair]()


@pytest.mark.parametrize("event", ["on_tool_call_result", "on_tool_call_error"])
async def test_terminate_raises_unsupported_return_error(event: str) -> None:
    bus = HookBus()
    bus.on(event, lambda ctx: {"terminate": True})
    errors: list[BaseException] = []
    bus.on("on_chat_error", lambda ctx: errors.append(ctx.error))
    script = Script([("read_file", {"path": "/x"}, "c1")], "never")
    agent: Agent[None, str] = Agent(script.model, capabilities=[AgentHooksCapability(bus)])

    @agent.tool_plain
    def read_file(path: str) -> str:
        if event == "on_tool_call_error":
            raise OSError("gone")
        return "text"

    with pytest.raises(UnsupportedReturnError) as raised:
        await agent.run("go")

    error = raised.value
    assert (error.event, error.key, error.framework) == (event, "terminate", "Pydantic AI")
    assert f"a handler of {event!r} returned {{'terminate': ...}}" in str(error)
    assert "Pydantic AI cannot carry out" in str(error)
    assert errors == [error]


async def test_post_agent_deny_on_a_structured_output_raises_run_denied() -> None:
    bus = HookBus()
    bus.on("post_agent", lambda ctx: Deny("withheld"))
    script = Script(
        ModelResponse(parts=[ToolCallPart("final_result", {"ok": True}, tool_call_id="out")])
    )
    agent = Agent(script.model, output_type=Verdict, capabilities=[AgentHooksCapability(bus)])

    with pytest.raises(RunDenied) as raised:
        await agent.run("judge")

    assert (raised.value.reason, raised.value.event) == ("withheld", "post_agent")


def test_the_capability_takes_a_bus() -> None:
    with pytest.raises(TypeError, match="takes an agenthooks HookBus, not dict"):
        AgentHooksCapability({})  # type: ignore[arg-type]


async def test_a_next_turn_model_from_a_hook_raises_unsupported_return_error() -> None:
    bus = HookBus()
    bus.on("prepare_next_turn", lambda ctx: {"model": "cheaper-model"})
    agent, _ = file_agent(conversation_script(), bus)

    with pytest.raises(UnsupportedReturnError) as raised:
        await agent.run(PROMPT)

    error = raised.value
    assert (error.event, error.key, error.framework) == (
        "prepare_next_turn",
        "model",
        "Pydantic AI",
    )
    assert "chooses the next turn's model" in str(error)
