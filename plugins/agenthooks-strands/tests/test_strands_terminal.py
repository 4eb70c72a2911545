"""Exactly one of done / error / abort / paused per run, then on_chat_end, whatever happens
inside a Strands run: a model failure, a framework error, a hook raising, a cancellation, the
caller closing the stream; errors reach the caller with the type Strands raises them with."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest
from agenthooks_strands.testing import ScriptedModel, tool_calls
from strands import Agent, tool
from strands.types.exceptions import MaxTokensReachedException
from strands_helpers import USER, read_file, tool_results

from agenthooks import HookBus
from agenthooks.testing import HookRecorder

TERMINALS = ("on_chat_done", "on_chat_error", "on_chat_abort", "on_chat_paused", "on_chat_end")


def ends(recorder: HookRecorder) -> list[str]:
    return [name for name in recorder.names() if name in TERMINALS]


@pytest.fixture
def recorder(bus: HookBus) -> HookRecorder:
    recorder = HookRecorder()
    recorder.attach(bus)
    return recorder


async def test_a_model_failure_keeps_its_type(make, recorder: HookRecorder) -> None:
    agent, _ = make([ConnectionError("model down")])

    with pytest.raises(ConnectionError, match="model down"):
        await agent.invoke_async("hi")

    assert ends(recorder) == ["on_chat_error", "on_chat_end"]
    error = recorder.of("on_chat_error")[0].error
    assert type(error) is ConnectionError
    assert recorder.of("on_chat_end")[0].error is error
    # the turn that failed is closed before the terminal event
    assert recorder.names()[-9:] == [
        "on_loop_start",
        "transform_context",
        "pre_request",
        "on_stream_start",
        "on_stream_error",
        "on_model_error",
        "on_loop_end",
        "on_chat_error",
        "on_chat_end",
    ]

    bare = Agent(model=ScriptedModel([ConnectionError("model down")]), callback_handler=None)
    with pytest.raises(ConnectionError):  # the same as Strands raises it without the bridge
        await bare.invoke_async("hi")


async def test_a_framework_error_keeps_its_type(make, recorder: HookRecorder) -> None:
    agent, _ = make(
        [{"role": "assistant", "content": [{"text": "cut"}], "stopReason": "max_tokens"}]
    )

    with pytest.raises(MaxTokensReachedException):
        await agent.invoke_async("hi")

    assert ends(recorder) == ["on_chat_error", "on_chat_end"]
    assert type(recorder.of("on_chat_error")[0].error) is MaxTokensReachedException


async def test_a_hook_raising_in_a_tool_call_ends_the_run_and_the_model_never_reads_it(
    make, bus: HookBus, recorder: HookRecorder
) -> None:
    class PolicyDown(Exception):
        pass

    def broken(ctx: Any) -> None:
        raise PolicyDown("policy store unreachable")

    bus.on("pre_tool_call", broken, match="read_file")
    agent, model = make()

    with pytest.raises(PolicyDown, match="policy store unreachable"):
        await agent.invoke_async(USER)

    assert len(model.requests) == 1  # the model never read a result of our failure
    assert ends(recorder) == ["on_chat_error", "on_chat_end"]
    assert type(recorder.of("on_chat_error")[0].error) is PolicyDown
    # every call the model made has exactly one tool message; ours says only it did not complete
    results = agent.messages[-1]["content"]
    assert {
        r["toolResult"]["toolUseId"]: r["toolResult"]["content"][0]["text"] for r in results
    } == {
        "call_1": "deleted /tmp/a.txt",
        "call_2": 'Tool call "read_file" did not complete',
    }


async def test_a_hook_raising_on_a_message_keeps_its_type(
    make, bus: HookBus, recorder: HookRecorder
) -> None:
    def broken(ctx: Any) -> None:
        if ctx.message.role == "tool":
            raise KeyError("audit log full")

    bus.on("on_message", broken)
    agent, model = make()

    with pytest.raises(KeyError, match="audit log full"):
        await agent.invoke_async(USER)

    assert len(model.requests) == 1
    assert ends(recorder) == ["on_chat_error", "on_chat_end"]


@tool
async def slow(seconds: float) -> str:
    """Wait."""
    await asyncio.sleep(seconds)
    return "slept"


async def test_cancelling_the_task_aborts_the_run(make, recorder: HookRecorder) -> None:
    agent, _ = make([tool_calls(("c1", "slow", {"seconds": 30})), "never"], tools=[slow])
    started = asyncio.Event()
    recorder_bus_seen = recorder  # the recorder sees pre_tool_call before the body sleeps

    async def run() -> None:
        await agent.invoke_async("wait")

    task = asyncio.create_task(run())
    for _ in range(200):
        await asyncio.sleep(0.01)
        if recorder_bus_seen.of("pre_tool_call"):
            started.set()
            break
    assert started.is_set()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    assert ends(recorder) == ["on_chat_abort", "on_chat_end"]
    assert recorder.of("on_chat_abort")[0].reason == "cancelled"


async def test_agent_cancel_aborts_the_run(make, bus: HookBus, recorder: HookRecorder) -> None:
    agent, _ = make([tool_calls(("c1", "read_file", {"path": "/x"})), "never"], tools=[read_file])
    bus.on("pre_tool_call", lambda ctx: agent.cancel())

    result = await agent.invoke_async("go")

    assert result.stop_reason == "cancelled"
    assert ends(recorder) == ["on_chat_abort", "on_chat_end"]


async def test_closing_the_stream_aborts_the_run(make, recorder: HookRecorder) -> None:
    agent, _ = make()

    stream = agent.stream_async(USER)
    async with contextlib.aclosing(stream):
        async for event in stream:
            if "current_tool_use" in event or event.get("type") == "tool_result":
                break

    assert ends(recorder) == ["on_chat_abort", "on_chat_end"]
    assert recorder.of("on_chat_abort")[0].reason == "stream closed"


async def test_a_finished_run_ends_once(make, recorder: HookRecorder) -> None:
    agent, model = make()
    await agent.invoke_async(USER)
    agent.model = ScriptedModel(["again"])
    await agent.invoke_async("once more")

    assert ends(recorder) == ["on_chat_done", "on_chat_end", "on_chat_done", "on_chat_end"]
    first, second = recorder.of("on_chat_end")
    assert first.run_id != second.run_id
    assert tool_results(model)["call_1"] == ("success", "deleted /tmp/a.txt")


async def test_strands_own_limits_end_the_run_stopped(make, recorder: HookRecorder) -> None:
    agent, model = make(
        [tool_calls(("c1", "read_file", {"path": "/x"})), "never"], tools=[read_file]
    )

    result = await agent.invoke_async("read", limits={"turns": 1})

    assert result.stop_reason == "limit_turns"
    assert len(model.requests) == 1
    assert ends(recorder) == ["on_chat_done", "on_chat_end"]
    assert recorder.of("on_chat_done")[0].response.finish_reason == "stopped"
