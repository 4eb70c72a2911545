"""Ask(reason) pauses through Pydantic AI's deferred tools; Approve() / Deny(reason) resume."""

from __future__ import annotations

from typing import Any

import pytest
from agenthooks_pydantic_ai import resume_results
from pydantic_ai import DeferredToolRequests
from pydantic_ai.exceptions import UserError
from pydantic_ai_script import PROMPT, Script, conversation_script, file_agent, tool_returns

from agenthooks import Approve, Ask, Deny, HookBus, PendingCall
from agenthooks.testing import HookRecorder

TERMINALS = ["on_chat_done", "on_chat_error", "on_chat_abort", "on_chat_paused", "on_chat_end"]


def ask_for_deletes(ctx: Any) -> Ask | None:
    return Ask("deleting needs a human") if ctx.call.name == "delete_file" else None


async def paused_run() -> tuple[Any, Any, list[str], HookRecorder, Script, Any]:
    bus = HookBus()
    bus.on("pre_tool_call", ask_for_deletes)
    recorder = HookRecorder()
    recorder.attach(bus)
    script = conversation_script()
    agent, ran = file_agent(script, bus, output_type=[str, DeferredToolRequests])
    paused = await agent.run(PROMPT)
    return agent, paused, ran, recorder, script, bus


async def test_ask_pauses_the_run_with_the_framework_s_deferred_tool_requests() -> None:
    _, paused, ran, recorder, _, _ = await paused_run()

    output = paused.output
    assert isinstance(output, DeferredToolRequests)
    assert [(c.tool_call_id, c.tool_name, c.args) for c in output.approvals] == [
        ("call_1", "delete_file", {"path": "/tmp/a.txt"})
    ]
    assert ran == ["read_file /tmp/b.txt"]  # the other call of the turn ran
    assert [n for n in recorder.names() if n in TERMINALS] == ["on_chat_paused", "on_chat_end"]
    response = recorder.of("on_chat_paused")[0].response
    assert response.finish_reason == "paused"
    assert response.pending == [
        PendingCall(
            call_id="call_1",
            tool="delete_file",
            arguments={"path": "/tmp/a.txt"},
            reason="deleting needs a human",
        )
    ]
    # the asked call got no tool message
    tool_messages = [c.message for c in recorder.of("on_message") if c.message.role == "tool"]
    assert [m.tool_call_id for m in tool_messages] == ["call_2"]


async def test_approve_resumes_through_the_normal_tool_path() -> None:
    agent, paused, ran, recorder, script, _ = await paused_run()
    recorder.clear()

    resumed = await agent.run(
        message_history=paused.all_messages(),
        deferred_tool_results=resume_results({"call_1": Approve()}),
    )

    assert resumed.output == "done"
    assert ran == ["read_file /tmp/b.txt", "delete_file /tmp/a.txt"]
    # hooks apply to the approved call; its Ask counts as None
    assert [c.call.id for c in recorder.of("pre_tool_call")] == ["call_1"]
    assert [n for n in recorder.names() if n in TERMINALS] == ["on_chat_done", "on_chat_end"]
    assert ("call_1", "deleted /tmp/a.txt", "success") in tool_returns(script.requests[-1])


async def test_a_guard_still_applies_to_an_approved_call() -> None:
    agent, paused, ran, _, _, bus = await paused_run()
    bus.on("pre_tool_call", lambda ctx: Deny("frozen") if ctx.call.name == "delete_file" else None)

    resumed = await agent.run(
        message_history=paused.all_messages(),
        deferred_tool_results=resume_results({"call_1": Approve()}),
    )

    assert resumed.output == "done"
    assert ran == ["read_file /tmp/b.txt"]
    assert ("call_1", "frozen", "denied") in tool_returns(resumed.all_messages())


async def test_deny_at_resume_is_what_the_model_reads() -> None:
    agent, paused, ran, recorder, script, _ = await paused_run()
    recorder.clear()

    resumed = await agent.run(
        message_history=paused.all_messages(),
        deferred_tool_results=resume_results({"call_1": Deny("Not today.")}),
    )

    assert resumed.output == "done"
    assert ran == ["read_file /tmp/b.txt"]
    assert ("call_1", "Not today.", "denied") in tool_returns(script.requests[-1])
    # the call Pydantic AI answered with the denial gets its tool message
    tool_messages = [c.message for c in recorder.of("on_message") if c.message.role == "tool"]
    assert [(m.tool_call_id, m.content, m.is_error) for m in tool_messages] == [
        ("call_1", "Not today.", True)
    ]


def test_resume_results_takes_only_approve_and_deny() -> None:
    with pytest.raises(TypeError, match="call 'call_1'.*Approve\\(\\) or Deny\\(reason\\)"):
        resume_results({"call_1": "yes"})  # type: ignore[dict-item]


async def test_ask_on_an_agent_that_cannot_pause_fails_the_run_with_pydantic_ai_s_error() -> None:
    bus = HookBus()
    bus.on("pre_tool_call", ask_for_deletes)
    recorder = HookRecorder()
    recorder.attach(bus)
    agent, ran = file_agent(Script([("delete_file", {"path": "/a"}, "c1")], "x"), bus)

    with pytest.raises(UserError, match="DeferredToolRequests"):
        await agent.run(PROMPT)

    assert ran == []
    assert [n for n in recorder.names() if n in TERMINALS] == ["on_chat_error", "on_chat_end"]
