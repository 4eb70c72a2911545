"""Errors: recovered by hooks, or ending the run with exactly one terminal event and the
exception the caller would get without the bridge."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from agenthooks_openai_agents import AgentHooksRunner
from agents import GuardrailFunctionOutput, Runner, function_tool, input_guardrail
from agents.exceptions import InputGuardrailTripwireTriggered, MaxTurnsExceeded, UserError
from agents.testing import assistant_message, function_call
from openai_agents_helpers import USER, Recorder, read_file, scripted_agent, tool_outputs

from agenthooks import HookBus, ProviderResponse

TERMINAL = {"on_chat_done", "on_chat_error", "on_chat_abort", "on_chat_paused", "on_chat_end"}


def endings(recorder: Recorder) -> list[str]:
    return [name for name in recorder.names if name in TERMINAL]


@function_tool
def delete_file(path: str) -> str:
    """Delete a file."""
    raise PermissionError(f"{path} is read-only")


@function_tool(failure_error_function=None)
def strict_delete(path: str) -> str:
    """Delete a file, failing the run on error."""
    raise PermissionError(f"{path} is read-only")


async def test_a_model_error_recovered_by_a_hook_goes_on(bus: HookBus, recorder: Recorder) -> None:
    agent, _ = scripted_agent([ConnectionError("upstream down")])
    bus.on(
        "on_model_error",
        lambda ctx: {"response": ProviderResponse(content=f"fallback: {type(ctx.error).__name__}")},
    )

    result = await AgentHooksRunner(bus).run(agent, USER)

    assert result.final_output == "fallback: ConnectionError"
    assert endings(recorder) == ["on_chat_done", "on_chat_end"]
    assert recorder.of("on_response")[0].response.content == "fallback: ConnectionError"


async def test_a_model_error_nobody_recovers_reaches_the_caller_unchanged(
    bus: HookBus, recorder: Recorder
) -> None:
    error = ConnectionError("upstream down")
    agent, _ = scripted_agent([error])

    with pytest.raises(ConnectionError) as caught:
        await AgentHooksRunner(bus).run(agent, USER)

    assert caught.value is error
    assert recorder.of("on_model_error")[0].error is error
    assert endings(recorder) == ["on_chat_error", "on_chat_end"]
    assert recorder.of("on_chat_error")[0].error is error


async def test_a_tool_error_is_seen_with_its_type_and_recovered(
    bus: HookBus, recorder: Recorder
) -> None:
    seen: list[BaseException] = []

    def recover(ctx: Any) -> dict[str, Any]:
        seen.append(ctx.error)
        return {"result": f"skipped ({type(ctx.error).__name__})"}

    bus.on("on_tool_call_error", recover, match="delete_file")
    agent, model = scripted_agent(tools=[delete_file, read_file])

    await AgentHooksRunner(bus).run(agent, USER)

    assert [type(e) for e in seen] == [PermissionError]
    assert str(seen[0]) == "/tmp/a.txt is read-only"
    assert recorder.of("on_tool_call_error")[0].source == "handler"
    assert tool_outputs(model, 1)["call_1"] == "skipped (PermissionError)"
    after = [c for c in recorder.of("on_tool_call_result") if c.call.id == "call_1"]
    assert after[0].result == "skipped (PermissionError)"


async def test_an_unrecovered_tool_error_reads_as_the_sdk_writes_it(
    bus: HookBus, recorder: Recorder
) -> None:
    agent, model = scripted_agent(tools=[delete_file, read_file])
    plain, plain_model = scripted_agent(tools=[delete_file, read_file])

    await AgentHooksRunner(bus).run(agent, USER)
    await Runner.run(plain, USER)

    assert recorder.of("on_tool_call_error")[0].error.__class__ is PermissionError
    assert tool_outputs(model, 1) == tool_outputs(plain_model, 1)
    assert tool_outputs(model, 1)["call_1"].startswith("An error occurred while running the tool")


async def test_a_tool_without_a_formatter_fails_the_run_as_without_the_bridge(
    bus: HookBus, recorder: Recorder
) -> None:
    steps = [[function_call("strict_delete", {"path": "/a"}, call_id="c1")]]
    agent, _ = scripted_agent(steps, tools=[strict_delete])
    plain, _ = scripted_agent(list(steps), tools=[strict_delete])

    with pytest.raises(UserError) as bridged:
        await AgentHooksRunner(bus).run(agent, "delete /a")
    with pytest.raises(UserError) as unbridged:
        await Runner.run(plain, "delete /a")

    assert str(bridged.value) == str(unbridged.value)
    assert type(bridged.value.__cause__) is PermissionError
    assert type(recorder.of("on_tool_call_error")[0].error) is PermissionError
    assert endings(recorder) == ["on_chat_error", "on_chat_end"]


class HookFailure(Exception):
    pass


@pytest.mark.parametrize(
    "event", ["pre_tool_call", "on_tool_call_result", "pre_request", "on_message", "post_agent"]
)
async def test_a_hook_error_reaches_the_caller_with_its_type(
    bus: HookBus, recorder: Recorder, event: str
) -> None:
    failure = HookFailure(f"broken {event}")

    def broken(ctx: Any) -> None:
        raise failure

    bus.on(event, broken)
    agent, _ = scripted_agent()

    with pytest.raises(HookFailure) as caught:
        await AgentHooksRunner(bus).run(agent, USER)

    assert caught.value is failure
    assert endings(recorder) == ["on_chat_error", "on_chat_end"]
    assert recorder.of("on_chat_error")[0].error is failure


async def test_a_framework_error_ends_the_run_with_on_chat_error(
    bus: HookBus, recorder: Recorder
) -> None:
    steps = [[function_call("read_file", {"path": f"/{i}"}, call_id=f"c{i}")] for i in range(3)]
    agent, _ = scripted_agent(steps)

    with pytest.raises(MaxTurnsExceeded):
        await AgentHooksRunner(bus).run(agent, USER, max_turns=2)

    assert endings(recorder) == ["on_chat_error", "on_chat_end"]
    assert isinstance(recorder.of("on_chat_error")[0].error, MaxTurnsExceeded)
    assert recorder.names[-3:] == ["on_loop_end", "on_chat_error", "on_chat_end"]


async def test_a_cancelled_run_ends_with_on_chat_abort(bus: HookBus, recorder: Recorder) -> None:
    started = asyncio.Event()

    @function_tool
    async def slow(path: str) -> str:
        """Wait forever."""
        started.set()
        await asyncio.sleep(60)
        return "never"

    agent, _ = scripted_agent(
        [[function_call("slow", {"path": "/a"}, call_id="c1")], [assistant_message("x")]],
        tools=[slow],
    )
    task = asyncio.ensure_future(AgentHooksRunner(bus).run(agent, "wait"))
    await started.wait()
    task.cancel()

    with pytest.raises(asyncio.CancelledError):
        await task

    assert endings(recorder) == ["on_chat_abort", "on_chat_end"]
    assert recorder.of("on_chat_abort")[0].reason == "cancelled"


async def test_run_sync_runs_the_same_hooks(bus: HookBus) -> None:
    recorder = Recorder(bus)
    agent, _ = scripted_agent()

    def in_thread() -> Any:
        return AgentHooksRunner(bus).run_sync(agent, USER)

    result = await asyncio.to_thread(in_thread)

    assert result.final_output == "done"
    assert recorder.names[0] == "on_chat_start" and recorder.names[-1] == "on_chat_end"


async def test_a_guardrail_tripwire_keeps_its_type(bus: HookBus, recorder: Recorder) -> None:
    @input_guardrail
    def no_secrets(ctx: Any, agent: Any, input: Any) -> GuardrailFunctionOutput:
        return GuardrailFunctionOutput(output_info=None, tripwire_triggered=True)

    agent, _ = scripted_agent(input_guardrails=[no_secrets])

    with pytest.raises(InputGuardrailTripwireTriggered):
        await AgentHooksRunner(bus).run(agent, USER)

    assert endings(recorder) == ["on_chat_error", "on_chat_end"]
    assert isinstance(recorder.of("on_chat_error")[0].error, InputGuardrailTripwireTriggered)


async def test_run_sync_inside_a_running_loop_is_refused(bus: HookBus, recorder: Recorder) -> None:
    agent, model = scripted_agent()

    with pytest.raises(RuntimeError, match="running event loop"):
        AgentHooksRunner(bus).run_sync(agent, USER)

    assert recorder.names == [] and model.calls == ()


async def test_a_hook_error_on_a_tool_message_reaches_the_caller_not_the_model(
    bus: HookBus, recorder: Recorder
) -> None:
    failure = HookFailure("cannot store the tool message")

    def store(ctx: Any) -> None:
        if ctx.message.role == "tool":
            raise failure

    bus.on("on_message", store)
    agent, model = scripted_agent()

    with pytest.raises(HookFailure) as caught:
        await AgentHooksRunner(bus).run(agent, USER)

    assert caught.value is failure
    assert len(model.calls) == 1
    assert endings(recorder) == ["on_chat_error", "on_chat_end"]
