"""Ask pauses through ADK's own tool confirmation; the run resumes with ADK's confirmation
answer (approve or reject)."""

from __future__ import annotations

from typing import Any

import adk_scripted as s
import pytest
from google.adk.events.event import Event
from google.genai import types

from agenthooks import Approve, Ask, Deny, HookBus

MESSAGE = "Delete /tmp/a.txt and read /tmp/b.txt"


@pytest.fixture(autouse=True)
def _clean() -> None:
    s.RAN.clear()


def confirmation_request(events: list[Event]) -> types.FunctionCall:
    (request,) = [
        fc for e in events for fc in e.get_function_calls() if fc.name == "adk_request_confirmation"
    ]
    return request


def answer(request: types.FunctionCall, **response: Any) -> types.Content:
    fr = types.FunctionResponse(name="adk_request_confirmation", id=request.id, response=response)
    return types.Content(role="user", parts=[types.Part(function_response=fr)])


def ask_deletes(bus: HookBus) -> None:
    bus.on("pre_tool_call", lambda ctx: Ask("deleting needs a human"), match="delete_file")


async def test_an_ask_pauses_the_run_through_adks_tool_confirmation() -> None:
    bus = HookBus()
    ask_deletes(bus)
    seen = s.recorder(bus)
    paused: list[Any] = []
    bus.on("on_chat_paused", lambda ctx: paused.append(ctx.response))
    model = s.ScriptedLlm(script=s.conversation())
    events = await s.run(s.runner(bus, model), MESSAGE)
    request = confirmation_request(events)
    assert request.args is not None
    assert request.args["originalFunctionCall"]["id"] == "call_1"
    assert request.args["toolConfirmation"]["hint"] == "deleting needs a human"
    assert s.RAN == [("read_file", {"path": "/tmp/b.txt", "verbose": False})]
    assert len(model.requests) == 1  # the model is not asked again while the call waits
    assert seen[-2:] == ["on_chat_paused", "on_chat_end"]
    (response,) = paused
    assert response.finish_reason == "paused"
    assert [(p.call_id, p.tool, p.arguments, p.reason) for p in response.pending] == [
        ("call_1", "delete_file", {"path": "/tmp/a.txt"}, "deleting needs a human")
    ]


async def test_an_approved_call_runs_when_the_run_resumes() -> None:
    bus = HookBus()
    ask_deletes(bus)
    resumed: list[Any] = []
    bus.on("on_run_resumed", lambda ctx: resumed.append((ctx.pending, ctx.decisions, ctx.run_id)))
    ends: list[str] = []
    bus.on("on_chat_done", lambda ctx: ends.append(f"done:{ctx.response.content}"))
    bus.on("on_chat_paused", lambda ctx: ends.append("paused"))
    model = s.ScriptedLlm(script=s.conversation())
    runner = s.runner(bus, model)
    events = await s.run(runner, MESSAGE)
    request = confirmation_request(events)
    later = await s.run(runner, answer(request, confirmed=True))
    assert s.final_text(later) == "done"
    assert ("delete_file", {"path": "/tmp/a.txt"}) in s.RAN
    (pending, decisions, run_id) = resumed[0]
    assert run_id == events[0].invocation_id  # the same ADK invocation goes on
    assert [p.call_id for p in pending] == ["call_1"]
    assert decisions == {"call_1": Approve()}
    assert ("call_1", {"result": "deleted /tmp/a.txt"}) in s.tool_messages(model.requests[-1])
    assert ends == ["paused", "done:done"]


async def test_a_rejected_call_never_runs_and_the_model_reads_the_reason() -> None:
    bus = HookBus()
    ask_deletes(bus)
    resumed: list[Any] = []
    bus.on("on_run_resumed", lambda ctx: resumed.append(ctx.decisions))
    model = s.ScriptedLlm(script=s.conversation())
    runner = s.runner(bus, model)
    request = confirmation_request(await s.run(runner, MESSAGE))
    later = await s.run(
        runner, answer(request, confirmed=False, payload={"reason": "not on a Friday"})
    )
    assert s.final_text(later) == "done"
    assert [name for name, _ in s.RAN] == ["read_file"]
    assert resumed == [{"call_1": Deny("not on a Friday")}]
    assert ("call_1", {"error": "not on a Friday"}) in s.tool_messages(model.requests[-1])
