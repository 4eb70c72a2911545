"""``Ask`` pauses a Strands agent through its own interrupts, and the answer given when the
agent resumes is carried out with ``Approve()`` / ``Deny(reason)`` semantics."""

from __future__ import annotations

from typing import Any

import pytest
from agenthooks_strands import APPROVAL
from strands_helpers import RAN, USER, tool_results

from agenthooks import Approve, Ask, Deny, HookBus
from agenthooks.testing import HookRecorder


def answer(result: Any, response: Any) -> list[dict[str, Any]]:
    return [
        {"interruptResponse": {"interruptId": i.id, "response": response}}
        for i in result.interrupts
    ]


@pytest.fixture
def recorder(bus: HookBus) -> HookRecorder:
    recorder = HookRecorder()
    recorder.attach(bus)
    return recorder


@pytest.fixture
def asks(bus: HookBus) -> None:
    bus.on("pre_tool_call", lambda ctx: Ask("deleting needs a human"), match="delete_file")


async def test_ask_pauses_and_an_approval_runs_the_call(
    make, recorder: HookRecorder, asks: None
) -> None:
    agent, model = make()

    paused = await agent.invoke_async(USER)

    assert paused.stop_reason == "interrupt"
    [interrupt] = paused.interrupts
    assert interrupt.name == APPROVAL
    first_run = recorder.of("on_chat_end")[0].run_id
    assert interrupt.reason == {
        "run_id": first_run,
        "tool_call_id": "call_1",
        "tool": "delete_file",
        "arguments": {"path": "/tmp/a.txt"},
        "reason": "deleting needs a human",
    }
    assert RAN == [("read_file", "/tmp/b.txt")]  # the other call of the batch ran
    response = recorder.of("on_chat_paused")[0].response
    assert response.finish_reason == "paused"
    assert [(p.call_id, p.tool, p.reason) for p in response.pending] == [
        ("call_1", "delete_file", "deleting needs a human")
    ]
    recorder.clear()

    result = await agent.invoke_async(answer(paused, Approve()))

    assert str(result).strip() == "done"
    assert RAN == [("read_file", "/tmp/b.txt"), ("delete_file", "/tmp/a.txt")]
    assert tool_results(model) == {
        "call_1": ("success", "deleted /tmp/a.txt"),
        "call_2": ("success", "contents of /tmp/b.txt"),
    }
    names = recorder.names()
    assert names[0] == "on_run_resumed" and names[-2:] == ["on_chat_done", "on_chat_end"]
    resumed = recorder.of("on_run_resumed")[0]
    assert resumed.run_id == first_run
    assert resumed.decisions == {"call_1": Approve()}
    # the approved call went through the hooks again: its Ask counts as None now
    assert [c.tool_call_id for c in recorder.of("pre_tool_call")] == ["call_1"]


@pytest.mark.parametrize(
    ("response", "reason"),
    [
        (Deny("not today"), "not today"),
        ({"approved": False, "reason": "stored no"}, "stored no"),
        (False, 'Tool call "delete_file" was denied'),
    ],
)
async def test_a_denial_is_the_calls_tool_message(
    make, asks: None, response: Any, reason: str
) -> None:
    agent, model = make()
    paused = await agent.invoke_async(USER)

    await agent.invoke_async(answer(paused, response))

    assert ("delete_file", "/tmp/a.txt") not in RAN
    assert tool_results(model)["call_1"] == ("error", reason)


@pytest.mark.parametrize("response", [True, {"approved": True}])
async def test_plain_approvals(make, asks: None, response: Any) -> None:
    agent, _model = make()
    paused = await agent.invoke_async(USER)

    await agent.invoke_async(answer(paused, response))

    assert ("delete_file", "/tmp/a.txt") in RAN


async def test_a_restored_agent_resumes_the_paused_run(tmp_path: Any) -> None:
    from strands.session import FileSessionManager
    from strands_helpers import build

    def restored(script: list[Any]) -> Any:
        bus = HookBus()
        recorder = HookRecorder()
        recorder.attach(bus)
        bus.on("pre_tool_call", lambda ctx: Ask("deleting needs a human"), match="delete_file")
        manager = FileSessionManager(session_id="s1", storage_dir=str(tmp_path))
        agent, model = build(bus, script, session_manager=manager)
        return agent, model, recorder

    first, _, before = restored(None)  # the shared conversation's script
    paused = await first.invoke_async(USER)
    assert paused.stop_reason == "interrupt"

    # another process: a new agent, a new bus, the session Strands stored
    second, model, after = restored(["done"])
    result = await second.invoke_async(answer(paused, {"approved": True}))

    assert str(result).strip() == "done"
    assert ("delete_file", "/tmp/a.txt") in RAN
    assert tool_results(model)["call_1"] == ("success", "deleted /tmp/a.txt")
    resumed = after.of("on_run_resumed")[0]
    assert resumed.run_id == before.of("on_chat_paused")[0].run_id
    assert [p.call_id for p in resumed.pending] == ["call_1"]
