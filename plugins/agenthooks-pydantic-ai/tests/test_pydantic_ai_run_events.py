"""The start and the end of a run: Deny at the start, a rewritten user message, and exactly
one terminal event (then on_chat_end) whatever ends the run."""

from __future__ import annotations

import asyncio

import pytest
from agenthooks_pydantic_ai import AgentHooksCapability
from pydantic import BaseModel
from pydantic_ai import Agent, UsageLimits
from pydantic_ai.exceptions import UsageLimitExceeded
from pydantic_ai.messages import (
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    UserPromptPart,
)
from pydantic_ai.models.test import TestModel
from pydantic_ai_script import PROMPT, Script, conversation_script, file_agent

from agenthooks import Deny, HookBus
from agenthooks.bridges import RunDenied
from agenthooks.testing import HookRecorder

TERMINALS = ["on_chat_done", "on_chat_error", "on_chat_abort", "on_chat_paused", "on_chat_end"]


class Verdict(BaseModel):
    ok: bool


def recorded(bus: HookBus) -> HookRecorder:
    recorder = HookRecorder()
    recorder.attach(bus)
    return recorder


@pytest.mark.parametrize("event", ["on_chat_start", "on_user_message"])
async def test_deny_at_the_start_answers_with_the_reason(event: str) -> None:
    bus = HookBus()
    bus.on(event, lambda ctx: Deny("no files today"))
    recorder = recorded(bus)
    script = conversation_script()
    agent, ran = file_agent(script, bus)

    result = await agent.run(PROMPT)

    assert result.output == "no files today"
    assert script.calls == 0 and ran == []
    names = recorder.names()
    assert names[-2:] == ["on_chat_done", "on_chat_end"]
    assert "pre_request" not in names and "on_loop_start" not in names
    response = recorder.of("on_chat_done")[0].response
    assert (response.content, response.finish_reason) == ("no files today", "denied")


async def test_deny_at_the_start_raises_run_denied_when_the_output_cannot_be_text() -> None:
    bus = HookBus()
    bus.on("on_chat_start", lambda ctx: Deny("not for you"))
    recorder = recorded(bus)
    script = Script()
    agent = Agent(script.model, output_type=Verdict, capabilities=[AgentHooksCapability(bus)])

    with pytest.raises(RunDenied) as raised:
        await agent.run("judge this")

    assert raised.value.reason == "not for you"
    assert script.calls == 0
    assert [n for n in recorder.names() if n in TERMINALS] == ["on_chat_error", "on_chat_end"]
    assert recorder.of("on_chat_error")[0].error is raised.value


async def test_a_rewritten_user_message_is_what_the_model_and_the_history_get() -> None:
    bus = HookBus()
    bus.on("on_user_message", lambda ctx: {"message": ctx.message.replace("Delete", "Keep")})
    script = Script("ok")
    agent, _ = file_agent(script, bus)

    result = await agent.run(PROMPT)

    sent = script.requests[0][0]
    assert isinstance(sent, ModelRequest)
    prompts = [p.content for p in sent.parts if isinstance(p, UserPromptPart)]
    assert prompts == ["Keep /tmp/a.txt and read /tmp/b.txt"]
    first = result.all_messages()[0]
    assert isinstance(first, ModelRequest)
    assert [p.content for p in first.parts if isinstance(p, UserPromptPart)] == prompts


async def test_a_model_error_ends_the_run_with_on_chat_error_and_keeps_its_type() -> None:
    bus = HookBus()
    seen: list[BaseException] = []
    bus.on("on_model_error", lambda ctx: seen.append(ctx.error))
    recorder = recorded(bus)
    boom = ConnectionError("model unreachable")
    agent, _ = file_agent(Script(boom), bus)

    with pytest.raises(ConnectionError) as raised:
        await agent.run(PROMPT)

    assert raised.value is boom
    assert seen == [boom]
    assert [n for n in recorder.names() if n in TERMINALS] == ["on_chat_error", "on_chat_end"]
    assert recorder.of("on_chat_error")[0].error is boom
    assert recorder.names()[-3:] == ["on_loop_end", "on_chat_error", "on_chat_end"]


async def test_a_framework_error_ends_the_run_with_on_chat_error() -> None:
    bus = HookBus()
    recorder = recorded(bus)
    agent, _ = file_agent(conversation_script(), bus)

    with pytest.raises(UsageLimitExceeded) as raised:
        await agent.run(PROMPT, usage_limits=UsageLimits(request_limit=1))

    assert [n for n in recorder.names() if n in TERMINALS] == ["on_chat_error", "on_chat_end"]
    assert recorder.of("on_chat_error")[0].error is raised.value
    assert recorder.of("on_chat_end")[0].error is raised.value


async def test_a_hook_that_raises_reaches_the_caller_with_its_type() -> None:
    bus = HookBus()

    def broken(ctx: object) -> None:
        raise KeyError("missing setting")

    bus.on("pre_tool_call", broken)
    recorder = recorded(bus)
    agent, ran = file_agent(conversation_script(), bus)

    with pytest.raises(KeyError):
        await agent.run(PROMPT)

    assert ran == []
    assert [n for n in recorder.names() if n in TERMINALS] == ["on_chat_error", "on_chat_end"]
    assert isinstance(recorder.of("on_chat_error")[0].error, KeyError)


async def test_an_unrecovered_tool_error_fails_the_run_as_without_the_bridge() -> None:
    bus = HookBus()
    seen: list[BaseException] = []
    bus.on("on_tool_call_error", lambda ctx: seen.append(ctx.error))
    recorder = recorded(bus)
    script = Script([("explode", {"x": "3"}, "call_1")], "never")
    agent = Agent(script.model, capabilities=[AgentHooksCapability(bus)])

    @agent.tool_plain
    def explode(x: int) -> str:
        raise ValueError(f"bad {x!r}")

    with pytest.raises(ValueError, match="bad 3"):
        await agent.run("go")

    assert [type(e) for e in seen] == [ValueError]
    assert [n for n in recorder.names() if n in TERMINALS] == ["on_chat_error", "on_chat_end"]
    assert recorder.of("on_chat_error")[0].error is seen[0]


async def test_a_cancelled_run_fires_on_chat_abort_once() -> None:
    bus = HookBus()
    recorder = recorded(bus)
    script = Script([("wait", {}, "call_1")], "never")
    agent = Agent(script.model, capabilities=[AgentHooksCapability(bus)])
    started = asyncio.Event()

    @agent.tool_plain
    async def wait() -> str:
        started.set()
        await asyncio.Event().wait()
        return "never"

    task = asyncio.create_task(agent.run("go"))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    assert [n for n in recorder.names() if n in TERMINALS] == ["on_chat_abort", "on_chat_end"]
    assert recorder.of("on_chat_abort")[0].reason == "cancelled"


async def test_every_run_of_one_agent_gets_its_own_run_and_terminal_events() -> None:
    bus = HookBus()
    recorder = recorded(bus)
    script = Script("one", "two")
    agent, _ = file_agent(script, bus)

    first, second = await asyncio.gather(agent.run("a"), agent.run("b"))

    ends = recorder.of("on_chat_end")
    assert sorted(ctx.run_id for ctx in ends) == sorted([first.run_id, second.run_id])
    assert sorted(ctx.response.content for ctx in recorder.of("on_chat_done")) == ["one", "two"]


async def test_an_agent_called_from_a_tool_is_a_run_whose_parent_is_the_caller() -> None:
    bus = HookBus()
    recorder = recorded(bus)
    inner = Agent(Script("42").model, name="expert", capabilities=[AgentHooksCapability(bus)])
    outer_script = Script([("ask_expert", {"question": "answer?"}, "c1")], "the expert says 42")
    outer = Agent(outer_script.model, name="lead", capabilities=[AgentHooksCapability(bus)])

    @outer.tool_plain
    async def ask_expert(question: str) -> str:
        return (await inner.run(question)).output

    result = await outer.run("ask the expert")

    assert result.output == "the expert says 42"
    starts = {ctx.agent: ctx for ctx in recorder.of("on_chat_start")}
    assert starts["lead"].parent_run_id is None
    assert starts["expert"].parent_run_id == result.run_id
    ends = recorder.of("on_chat_end")
    assert sorted(ctx.agent for ctx in ends) == ["expert", "lead"]
    assert [ctx.agent for ctx in recorder.of("on_chat_done")] == ["expert", "lead"]


async def test_should_stop_ends_the_run_between_turns_without_calling_the_model() -> None:
    bus = HookBus()
    bus.on("should_stop", lambda ctx: len(ctx.tool_messages) == 2)
    recorder = recorded(bus)
    script = Script(
        ModelResponse(
            parts=[
                TextPart("Deleting now."),
                ToolCallPart("delete_file", {"path": "/tmp/a.txt"}, tool_call_id="call_1"),
                ToolCallPart("read_file", {"path": "/tmp/b.txt"}, tool_call_id="call_2"),
            ]
        ),
        "never asked",
    )
    agent, ran = file_agent(script, bus)

    result = await agent.run(PROMPT)

    assert result.output == "Deleting now."
    assert script.calls == 1 and len(ran) == 2
    done = recorder.of("on_chat_done")[0].response
    assert (done.content, done.finish_reason) == ("Deleting now.", "stopped")
    assert [n for n in recorder.names() if n in TERMINALS] == ["on_chat_done", "on_chat_end"]


async def test_a_streamed_run_fires_the_same_events_and_one_terminal() -> None:
    bus = HookBus()
    recorder = recorded(bus)
    # Pydantic AI's TestModel streams: it calls the tool, then answers
    model = TestModel(call_tools=["read_file"], custom_output_text="done")
    agent = Agent(model, capabilities=[AgentHooksCapability(bus)])

    @agent.tool_plain
    def read_file(path: str) -> str:
        return f"contents of {path}"

    async with agent.run_stream(PROMPT) as stream:
        text = await stream.get_output()

    assert text == "done"
    names = recorder.names()
    assert names.count("pre_request") == 2 and names.count("pre_tool_call") == 1
    assert [n for n in names if n in TERMINALS] == ["on_chat_done", "on_chat_end"]
    assert recorder.of("on_chat_done")[0].response.content == "done"


async def test_the_capability_given_to_one_run_reports_that_run() -> None:
    bus = HookBus()
    recorder = recorded(bus)
    script = Script("first", "second")
    agent = Agent(script.model)

    await agent.run("unwatched")
    watched = await agent.run("watched", capabilities=[AgentHooksCapability(bus)])

    assert [ctx.message for ctx in recorder.of("on_chat_start")] == ["watched"]
    assert [ctx.run_id for ctx in recorder.of("on_chat_end")] == [watched.run_id]
