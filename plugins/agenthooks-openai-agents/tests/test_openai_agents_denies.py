"""Deny at every gate the bridge honours, and the one the SDK cannot carry out."""

from __future__ import annotations

import pytest
from agenthooks_openai_agents import AgentHooksRunner
from agents import Agent
from agents.testing import ScriptedModel, assistant_message, function_call
from openai_agents_helpers import USER, Recorder, read_file, scripted_agent, tool_outputs
from pydantic import BaseModel

from agenthooks import Deny, HookBus
from agenthooks.bridges import RunDenied, UnsupportedReturnError

ENDINGS = ["on_chat_done", "on_chat_error", "on_chat_abort", "on_chat_paused"]


def endings(recorder: Recorder) -> list[str]:
    return [name for name in recorder.names if name in ENDINGS or name == "on_chat_end"]


async def test_a_denied_tool_call_never_runs_and_the_model_reads_the_reason(
    bus: HookBus, recorder: Recorder
) -> None:
    ran: list[str] = []

    from agents import function_tool

    @function_tool
    def delete_file(path: str) -> str:
        """Delete a file."""
        ran.append(path)
        return "deleted"

    bus.on("pre_tool_call", lambda ctx: Deny("Deleting is not allowed."), match="delete_file")
    agent, model = scripted_agent(tools=[delete_file, read_file])

    result = await AgentHooksRunner(bus).run(agent, USER)

    assert ran == []
    assert tool_outputs(model, 1) == {
        "call_1": "Deleting is not allowed.",
        "call_2": "contents of /tmp/b.txt",
    }
    error = recorder.of("on_tool_call_error")[0]
    assert (error.call.id, error.source, error.error) == (
        "call_1",
        "denied",
        "Deleting is not allowed.",
    )
    assert result.final_output == "done"
    assert endings(recorder) == ["on_chat_done", "on_chat_end"]


@pytest.mark.parametrize("event", ["on_chat_start", "on_user_message"])
async def test_a_denied_start_raises_run_denied_before_any_model_call(
    bus: HookBus, recorder: Recorder, event: str
) -> None:
    bus.on(event, lambda ctx: Deny("Not today."))
    agent, model = scripted_agent()

    with pytest.raises(RunDenied) as caught:
        await AgentHooksRunner(bus).run(agent, USER)

    assert caught.value.reason == "Not today."
    assert model.calls == ()
    assert endings(recorder) == ["on_chat_error", "on_chat_end"]
    assert recorder.of("on_chat_error")[0].error is caught.value
    assert "pre_request" not in recorder.names


async def test_a_denied_request_ends_the_run_with_the_reason_as_its_answer(
    bus: HookBus, recorder: Recorder
) -> None:
    bus.on("pre_request", lambda ctx: Deny("Out of hours."))
    agent, model = scripted_agent()

    result = await AgentHooksRunner(bus).run(agent, USER)

    assert result.final_output == "Out of hours."
    assert model.calls == ()
    done = recorder.of("on_chat_done")[0].response
    assert (done.content, done.finish_reason) == ("Out of hours.", "denied")
    assert "post_agent" not in recorder.names
    assert endings(recorder) == ["on_chat_done", "on_chat_end"]


async def test_a_denied_response_is_discarded_and_no_tool_runs(
    bus: HookBus, recorder: Recorder
) -> None:
    bus.on("on_response", lambda ctx: Deny("Unsafe plan."))
    agent, model = scripted_agent()

    result = await AgentHooksRunner(bus).run(agent, USER)

    assert result.final_output == "Unsafe plan."
    assert len(model.calls) == 1
    assert "pre_tool_call" not in recorder.names
    assert recorder.of("on_chat_done")[0].response.finish_reason == "denied"


async def test_a_denied_answer_never_reaches_the_caller(bus: HookBus, recorder: Recorder) -> None:
    bus.on("post_agent", lambda ctx: Deny("Withheld."))
    agent, _ = scripted_agent()

    result = await AgentHooksRunner(bus).run(agent, USER)

    assert result.final_output == "Withheld."
    final_texts = [
        item.raw_item.content[0].text
        for item in result.new_items
        if item.type == "message_output_item"
    ]
    assert final_texts == ["Withheld."]
    assert "done" not in [getattr(m.message, "content", None) for m in recorder.of("on_message")]
    assert recorder.of("on_chat_done")[0].response.finish_reason == "denied"


class Verdict(BaseModel):
    ok: bool


async def test_a_deny_inside_a_structured_run_raises_run_denied(
    bus: HookBus, recorder: Recorder
) -> None:
    bus.on("pre_request", lambda ctx: Deny("No."))
    model = ScriptedModel([[assistant_message('{"ok": true}')]])
    agent = Agent(name="judge", model=model, output_type=Verdict)

    with pytest.raises(RunDenied) as caught:
        await AgentHooksRunner(bus).run(agent, "judge")

    assert (caught.value.reason, caught.value.event) == ("No.", "pre_request")
    assert endings(recorder) == ["on_chat_error", "on_chat_end"]


async def test_a_handoff_deny_raises_unsupported_return_error(
    bus: HookBus, recorder: Recorder
) -> None:
    billing = Agent(name="billing", model=ScriptedModel([[assistant_message("paid")]]))
    triage = Agent(
        name="triage",
        model=ScriptedModel([[function_call("transfer_to_billing", {}, call_id="h1")]]),
        handoffs=[billing],
    )
    bus.on("pre_handoff", lambda ctx: Deny("Stay here."))

    with pytest.raises(UnsupportedReturnError) as caught:
        await AgentHooksRunner(bus).run(triage, "pay")

    error = caught.value
    assert (error.event, error.key, error.framework) == (
        "pre_handoff",
        "deny",
        "OpenAI Agents SDK",
    )
    assert "pre_handoff" in str(error) and "Deny" in str(error)
    assert endings(recorder) == ["on_chat_error", "on_chat_end"]
    assert recorder.of("on_chat_error")[0].error is error


async def test_a_handoff_fires_pre_handoff_and_on_handoff(bus: HookBus, recorder: Recorder) -> None:
    billing_model = ScriptedModel([[assistant_message("paid")]])
    billing = Agent(name="billing", model=billing_model)
    triage = Agent(
        name="triage",
        model=ScriptedModel([[function_call("transfer_to_billing", {}, call_id="h1")]]),
        handoffs=[billing],
    )

    result = await AgentHooksRunner(bus).run(triage, "pay")

    assert result.final_output == "paid"
    hand = recorder.of("pre_handoff")[0], recorder.of("on_handoff")[0]
    assert [(c.from_agent, c.to_agent) for c in hand] == [("triage", "billing")] * 2
    assert recorder.of("post_agent")[0].response.agent == "billing"
    assert recorder.of("on_chat_done")[0].response.agent == "billing"
    assert [ctx.iteration for ctx in recorder.of("on_loop_start")] == [0, 1]
    assert triage.handoffs == [billing] and billing.model is billing_model
