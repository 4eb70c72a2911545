"""``Ask`` pauses through the SDK's own approvals; the run resumes from its ``RunState``."""

from __future__ import annotations

from typing import Any

from agenthooks_openai_agents import AgentHooksRunner
from agents import RunState, function_tool
from openai_agents_helpers import USER, Recorder, read_file, scripted_agent, tool_outputs

from agenthooks import Ask, HookBus
from agenthooks.messages import PendingCall

ran: list[str] = []


@function_tool
def delete_file(path: str) -> str:
    """Delete a file."""
    ran.append(path)
    return f"deleted {path}"


def ask_before_deleting(ctx: Any) -> Ask | None:
    return Ask("Deleting needs a human.") if ctx.call.name == "delete_file" else None


async def paused_run(bus: HookBus) -> tuple[AgentHooksRunner, Any, Any, Any]:
    ran.clear()
    bus.on("pre_tool_call", ask_before_deleting)
    agent, model = scripted_agent(tools=[delete_file, read_file])
    runner = AgentHooksRunner(bus)
    result = await runner.run(agent, USER)
    return runner, agent, model, result


async def test_an_ask_pauses_the_run_through_the_sdks_approvals(
    bus: HookBus, recorder: Recorder
) -> None:
    _, _, model, result = await paused_run(bus)

    assert [item.name for item in result.interruptions] == ["delete_file"]
    assert ran == []
    assert len(model.calls) == 1
    paused = recorder.of("on_chat_paused")[0].response
    assert paused.finish_reason == "paused"
    assert paused.pending == [
        PendingCall(
            call_id="call_1",
            tool="delete_file",
            arguments={"path": "/tmp/a.txt"},
            reason="Deleting needs a human.",
        )
    ]
    assert [n for n in recorder.names if n.startswith("on_chat_")][-3:] == [
        "on_chat_start",
        "on_chat_paused",
        "on_chat_end",
    ]
    assert "on_chat_done" not in recorder.names
    # the call that was not asked about ran in the same turn
    results = [c.call.id for c in recorder.of("on_tool_call_result")]
    assert results == ["call_2"]


async def test_an_approved_call_runs_on_resume_in_the_same_run(
    bus: HookBus, recorder: Recorder
) -> None:
    runner, agent, model, result = await paused_run(bus)
    first_run = recorder.of("on_chat_start")[0].run_id
    state = result.to_state()
    state.approve(result.interruptions[0])
    recorder.seen.clear()

    resumed = await runner.run(agent, state)

    assert resumed.final_output == "done"
    assert ran == ["/tmp/a.txt"]
    assert tool_outputs(model, 1) == {
        "call_1": "deleted /tmp/a.txt",
        "call_2": "contents of /tmp/b.txt",
    }
    assert recorder.names[0] == "on_run_resumed"
    assert "on_chat_start" not in recorder.names
    assert recorder.of("on_run_resumed")[0].pending[0].call_id == "call_1"
    assert {ctx.run_id for _, ctx in recorder.seen} == {first_run}
    asked_again = recorder.of("pre_tool_call")
    assert [c.call.id for c in asked_again] == ["call_1"]
    assert recorder.names[-2:] == ["on_chat_done", "on_chat_end"]


async def test_a_rejected_call_never_runs_and_the_model_reads_the_reason(
    bus: HookBus, recorder: Recorder
) -> None:
    runner, agent, model, result = await paused_run(bus)
    state = result.to_state()
    state.reject(result.interruptions[0], rejection_message="Not on Fridays.")

    resumed = await runner.run(agent, state)

    assert resumed.final_output == "done"
    assert ran == []
    assert tool_outputs(model, 1)["call_1"] == "Not on Fridays."
    assert recorder.names[-2:] == ["on_chat_done", "on_chat_end"]


async def test_a_state_restored_from_json_resumes_through_the_hooks(
    bus: HookBus, recorder: Recorder
) -> None:
    runner, agent, model, result = await paused_run(bus)
    data = result.to_state().to_json()
    restored = await RunState.from_json(agent, data)  # with the user's own agent
    restored.approve(restored.get_interruptions()[0])
    recorder.seen.clear()

    resumed = await runner.run(agent, restored)

    assert resumed.final_output == "done"
    assert ran == ["/tmp/a.txt"]
    assert [c.call.id for c in recorder.of("pre_tool_call")] == ["call_1"]
    assert [c.call.id for c in recorder.of("on_tool_call_result")] == ["call_1"]
    assert len(recorder.of("pre_request")) == 1
    assert tool_outputs(model, 1)["call_1"] == "deleted /tmp/a.txt"


async def test_a_streamed_resume_runs_the_approved_call_through_the_hooks(
    bus: HookBus, recorder: Recorder
) -> None:
    runner, agent, _, result = await paused_run(bus)
    run_id = recorder.of("on_chat_start")[0].run_id
    state = result.to_state()
    state.approve(result.interruptions[0])
    recorder.seen.clear()

    streamed = runner.run_streamed(agent, state)
    async for _ in streamed.stream_events():
        pass

    assert streamed.final_output == "done"
    assert ran == ["/tmp/a.txt"]
    assert [c.call.id for c in recorder.of("on_tool_call_result")] == ["call_1"]
    assert {ctx.run_id for _, ctx in recorder.seen} == {run_id}
    assert recorder.names[-2:] == ["on_chat_done", "on_chat_end"]
