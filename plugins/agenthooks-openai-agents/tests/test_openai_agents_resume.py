"""What a person sees after a pause on the Agents SDK: ``on_run_resumed`` carries the decisions
and the ``Ask`` reasons, the interruption a UI shows has its reason (``runner.pending``), and
the run's usage after the resume includes the part before the pause. Also: with only
``on_message`` listening, every tool result is a message."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import Any

import pytest
from agenthooks_openai_agents import AgentHooksRunner
from agents import Agent, RunState
from agents.testing import ScriptedModel
from agents.usage import Usage as SDKUsage
from openai_agents_helpers import USER, Recorder, conversation, delete_file, read_file

from agenthooks import Approve, Ask, Deny, HookBus
from agenthooks.messages import ChatMessage, PendingCall, Usage

TURN = SDKUsage(requests=1, input_tokens=100, output_tokens=20, total_tokens=120)
"""What the scripted model reports for each of its turns."""


def ask_for_both(ctx: Any) -> Ask:
    return Ask(f"{ctx.call.name} needs a human.")


async def paused(bus: HookBus) -> tuple[AgentHooksRunner, Agent[Any], Any]:
    bus.on("pre_tool_call", ask_for_both)
    model = ScriptedModel(conversation(), default_usage=TURN)
    agent = Agent(name="assistant", model=model, tools=[delete_file, read_file])
    runner = AgentHooksRunner(bus)
    return runner, agent, await runner.run(agent, USER)


ASKED = [
    PendingCall(
        call_id="call_1",
        tool="delete_file",
        arguments={"path": "/tmp/a.txt"},
        reason="delete_file needs a human.",
    ),
    PendingCall(
        call_id="call_2",
        tool="read_file",
        arguments={"path": "/tmp/b.txt"},
        reason="read_file needs a human.",
    ),
]


async def test_the_interruption_a_ui_shows_carries_the_ask_reason(bus: HookBus) -> None:
    runner, _, result = await paused(bus)

    assert [runner.pending(item) for item in result.interruptions] == ASKED
    # the same for the items of the state the UI approves on
    state = result.to_state()
    assert [runner.pending(item) for item in state.get_interruptions()] == ASKED


async def test_on_run_resumed_carries_the_decisions_and_the_reasons(
    bus: HookBus, recorder: Recorder
) -> None:
    runner, agent, result = await paused(bus)
    state = result.to_state()
    state.approve(result.interruptions[0])
    state.reject(result.interruptions[1], rejection_message="Not on Fridays.")
    recorder.seen.clear()

    await runner.run(agent, state)

    resumed = recorder.of("on_run_resumed")
    assert len(resumed) == 1
    assert resumed[0].pending == ASKED
    assert resumed[0].decisions == {"call_1": Approve(), "call_2": Deny("Not on Fridays.")}


async def test_decisions_survive_a_state_restored_from_json(
    bus: HookBus, recorder: Recorder
) -> None:
    runner, agent, result = await paused(bus)
    state = result.to_state()
    state.reject(result.interruptions[0])  # no message: the SDK's own text
    state.approve(result.interruptions[1])
    restored = await RunState.from_json(agent, state.to_json())
    recorder.seen.clear()

    await runner.run(agent, restored)

    assert recorder.of("on_run_resumed")[0].decisions == {
        "call_1": Deny("Tool execution was not approved."),
        "call_2": Approve(),
    }


async def test_a_standing_approval_or_rejection_is_a_decision_too(
    bus: HookBus, recorder: Recorder
) -> None:
    runner, agent, result = await paused(bus)
    state = result.to_state()
    state.approve(result.interruptions[0], always_approve=True)
    state.reject(result.interruptions[1], always_reject=True, rejection_message="Never.")
    recorder.seen.clear()

    await runner.run(agent, state)

    assert recorder.of("on_run_resumed")[0].decisions == {
        "call_1": Approve(),
        "call_2": Deny("Never."),
    }


@dataclass
class Account:
    owner: str
    lock: Any  # not JSON: the SDK cannot serialize this context


async def test_reading_the_decisions_never_serializes_the_users_context(
    bus: HookBus, recorder: Recorder, caplog: pytest.LogCaptureFixture
) -> None:
    bus.on("pre_tool_call", ask_for_both)
    model = ScriptedModel(conversation(), default_usage=TURN)
    agent = Agent(name="assistant", model=model, tools=[delete_file, read_file])
    runner = AgentHooksRunner(bus)
    context = Account("ada", threading.Lock())
    result = await runner.run(agent, USER, context=context)
    state = result.to_state()
    state.approve(result.interruptions[0])
    state.reject(result.interruptions[1], rejection_message="No.")
    caplog.clear()

    with caplog.at_level(logging.WARNING, logger="openai.agents"):
        await runner.run(agent, state, context=context)

    assert recorder.of("on_run_resumed")[0].decisions == {
        "call_1": Approve(),
        "call_2": Deny("No."),
    }
    assert [r.getMessage() for r in caplog.records if "context" in r.getMessage()] == []


async def test_the_usage_after_a_resume_includes_the_part_before_the_pause(
    bus: HookBus, recorder: Recorder
) -> None:
    runner, agent, result = await paused(bus)
    one_turn = Usage(input_tokens=100, output_tokens=20, total_tokens=120)
    assert recorder.of("on_chat_paused")[0].response.usage == one_turn
    state = result.to_state()
    state.approve(result.interruptions[0])
    state.approve(result.interruptions[1])
    recorder.seen.clear()

    await runner.run(agent, state)

    two_turns = Usage(input_tokens=200, output_tokens=40, total_tokens=240)
    assert recorder.of("on_chat_done")[0].response.usage == two_turns
    # every context of the resumed part reports the whole run's usage so far
    assert recorder.of("on_run_resumed")[0].usage == one_turn


async def test_with_only_on_message_listening_tool_results_are_messages(bus: HookBus) -> None:
    messages: list[ChatMessage] = []
    bus.on("on_message", lambda ctx: messages.append(ctx.message))
    model = ScriptedModel(conversation())
    agent = Agent(name="assistant", model=model, tools=[delete_file, read_file])

    await AgentHooksRunner(bus).run(agent, USER)

    assert [(m.role, m.tool_call_id, m.content) for m in messages] == [
        ("user", None, USER),
        ("assistant", None, None),
        ("tool", "call_1", "deleted /tmp/a.txt"),
        ("tool", "call_2", "contents of /tmp/b.txt"),
        ("assistant", None, "done"),
    ]
