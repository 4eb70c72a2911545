"""Pausing in one process: what an ``Ask`` does to a run, its batch and its events; how
``resume()`` continues it; and every refusal, raised before anything runs."""

from __future__ import annotations

from typing import Any

import pytest

from agenthooks import (
    Agent,
    Approve,
    Ask,
    BadReturnError,
    Deny,
    FinalResponse,
    HookBus,
    ProviderResponse,
    ScriptedProvider,
    Session,
    SessionPausedError,
    TextDelta,
    ToolCall,
    ToolCallEnd,
    ToolCallStart,
    Usage,
    tool,
)
from agenthooks.errors import (
    BudgetExceeded,
    MissingDecisionError,
    NotPausedError,
    NotPendingError,
    ResumeError,
    ToolsChangedError,
)

ran: list[str] = []


@tool
def pay(amount: int) -> str:
    """Pay."""
    ran.append(f"pay {amount}")
    return f"paid {amount}"


@tool
def note(text: str) -> str:
    """Take a note."""
    ran.append(f"note {text}")
    return "noted"


def ask_big(ctx: Any) -> Ask | None:
    return (
        Ask(f"pay {ctx.call.arguments['amount']}?") if ctx.call.arguments["amount"] > 10 else None
    )


def calls(*items: tuple[str, str, dict[str, Any]]) -> ProviderResponse:
    return ProviderResponse(
        tool_calls=[ToolCall(id=i, name=n, arguments=a) for i, n, a in items],
        usage=Usage(input_tokens=10, output_tokens=5, total_tokens=15),
    )


def agent(*script: Any, **options: Any) -> Agent:
    ran.clear()
    made = Agent("payer", provider=ScriptedProvider(list(script)), tools=[pay, note], **options)
    made.on("pre_tool_call", ask_big, match="pay")
    return made


BATCH = calls(
    ("a", "note", {"text": "x"}), ("b", "pay", {"amount": 50}), ("c", "pay", {"amount": 5})
)


async def test_an_ask_pauses_after_the_batch(recorder: Any) -> None:
    payer = agent(BATCH, "done")
    payer.on("pre_tool_call", lambda ctx: Deny("no notes"), match="note")
    recorder.attach(payer)
    response = await payer.chat("go")
    assert response.finish_reason == "paused"
    assert response.content is None
    assert [(p.call_id, p.tool, p.arguments, p.reason) for p in response.pending] == [
        ("b", "pay", {"amount": 50}, "pay 50?")
    ]
    assert ran == ["pay 5"]  # the other calls ran or were denied as usual
    tool_messages = [(m.tool_call_id, m.content) for m in payer.history if m.role == "tool"]
    assert tool_messages == [("a", "no notes"), ("c", "paid 5")]  # none for the asked call
    assert recorder.names[-8:] == [
        "on_message",
        "pre_tool_call",
        "pre_tool_call",
        "on_tool_call_result",
        "on_message",
        "on_loop_end",
        "on_chat_paused",
        "on_chat_end",
    ]
    assert "post_agent" not in recorder.names  # the agent has not finished
    assert recorder.of("on_chat_paused")[0].response is response
    assert recorder.of("on_chat_end")[0].response is response


async def test_resume_appends_one_tool_message_per_decision_then_asks_the_model(
    recorder: Any,
) -> None:
    payer = agent(BATCH, "all paid")
    paused = await payer.chat("go")
    recorder.attach(payer)
    response = await payer.resume({"b": Approve()})
    assert (response.finish_reason, response.content) == ("stop", "all paid")
    assert ran == ["note x", "pay 5", "pay 50"]
    assert recorder.names == [
        "on_run_resumed",
        "pre_tool_call",
        "on_tool_call_result",
        "on_message",
        "prepare_next_turn",
        "should_stop",
        "on_loop_start",
        "transform_context",
        "pre_request",
        "on_response",
        "on_loop_end",
        "post_agent",
        "on_message",
        "on_chat_done",
        "on_chat_end",
    ]
    resumed = recorder.of("on_run_resumed")[0]
    assert resumed.decisions == {"b": Approve()}
    assert resumed.pending == paused.pending
    assert {ctx.run_id for _, ctx in recorder.events} == {resumed.run_id}
    assert recorder.of("pre_tool_call")[0].iteration == 0  # the paused turn
    request = payer.provider.requests[1]  # type: ignore[union-attr]
    assert [(m.role, m.tool_call_id, m.content) for m in request.messages] == [
        ("user", None, "go"),
        ("assistant", None, None),
        ("tool", "a", "noted"),
        ("tool", "c", "paid 5"),
        ("tool", "b", "paid 50"),
    ]
    assert response.usage.total_tokens == 15  # counted on from the pause (one paid turn)
    assert response.iterations == 2
    assert [m.role for m in response.messages] == [
        "user",
        "assistant",
        "tool",
        "tool",
        "tool",
        "assistant",
    ]
    assert payer.pending == []


async def test_a_human_deny_is_exactly_the_tool_message_and_fires_no_tool_events(
    recorder: Any,
) -> None:
    payer = agent(BATCH, "ok")
    payer.on("on_tool_call_error", lambda ctx: {"error": "rewritten"})
    await payer.chat("go")
    recorder.attach(payer)
    await payer.resume({"b": Deny("not today")})
    assert ran == ["note x", "pay 5"]
    assert payer.provider.requests[1].messages[-1].content == "not today"  # type: ignore[union-attr]
    assert payer.history[-2].is_error
    assert recorder.names[:2] == ["on_run_resumed", "on_message"]


async def test_an_approved_call_passes_its_ask_but_a_guard_deny_still_applies() -> None:
    payer = agent(calls(("b", "pay", {"amount": 50})), "ok")
    vetoed: list[int] = []

    def veto(ctx: Any) -> Deny | None:
        vetoed.append(ctx.call.arguments["amount"])
        return Deny("the guard says no")

    payer.on("pre_tool_call", veto, guard=True)
    paused = await payer.chat("go")
    assert vetoed == []  # the ask ended the chain before the guards
    assert paused.finish_reason == "paused"
    done = await payer.resume({"b": Approve()})
    assert vetoed == [50]
    assert done.finish_reason == "stop"
    assert ran == []
    assert payer.history[-2].content == "the guard says no"


async def test_errors_are_raised_before_anything_runs() -> None:
    payer = agent(calls(("b", "pay", {"amount": 50}), ("d", "pay", {"amount": 60})), "ok")
    with pytest.raises(NotPausedError) as nothing:
        await payer.resume({})
    assert str(nothing.value) == "agent 'payer' has no paused run to resume"
    await payer.chat("go")
    requests = len(payer.provider.requests)  # type: ignore[union-attr]
    with pytest.raises(NotPendingError) as unknown:
        await payer.resume({"zz": Approve(), "b": Approve(), "d": Approve()})
    assert str(unknown.value) == (
        f"agent 'payer': call 'zz' is not pending; the paused run {payer._paused.run_id!r} "  # type: ignore[union-attr]
        "waits on: 'b', 'd'"
    )
    assert unknown.value.call_id == "zz"
    with pytest.raises(MissingDecisionError) as missing:
        await payer.resume({"b": Approve()})
    assert str(missing.value) == (
        "agent 'payer': no decision for pending call 'd' (pay); give Approve() or Deny(reason) "
        "for every pending call"
    )
    assert missing.value.call_ids == ["d"]
    with pytest.raises(ResumeError) as bad:
        await payer.resume({"b": True, "d": Approve()})  # type: ignore[dict-item]
    assert str(bad.value) == (
        "agent 'payer': the decision for call 'b' is bool; give Approve() or Deny(reason)"
    )
    with pytest.raises(SessionPausedError) as busy:
        await payer.chat("again")
    assert [p.call_id for p in busy.value.pending] == ["b", "d"]
    assert ran == []
    assert len(payer.provider.requests) == requests  # type: ignore[union-attr]


async def test_an_agent_whose_tools_changed_cannot_resume() -> None:
    payer = agent(calls(("b", "pay", {"amount": 50})), "ok")
    session = Session(payer)
    await session.chat("go")
    payer.scopes["default"].tools.pop("pay")
    with pytest.raises(ToolsChangedError) as changed:
        await session.resume({"b": Approve()})
    assert str(changed.value) == (
        f"session {session.id!r}: pending call 'b' asks for tool 'pay', which agent 'payer' no "
        "longer has (its tools: note)"
    )
    assert changed.value.session_id == session.id


async def test_ask_where_the_event_cannot_pause_is_a_bad_return() -> None:
    payer = agent("hi")
    payer.on("on_user_message", lambda ctx: Ask("?"))
    with pytest.raises(BadReturnError) as info:
        await payer.chat("go")
    assert "returned Ask on 'on_user_message', which cannot pause a run" in str(info.value)


async def test_a_sub_agents_ask_is_a_deny_with_its_reason() -> None:
    ran.clear()
    worker = Agent(
        "worker",
        provider=ScriptedProvider([calls(("w1", "pay", {"amount": 99})), "could not pay"]),
        tools=[pay],
    )
    boss = Agent(
        "boss",
        provider=ScriptedProvider(
            [calls(("s1", "worker", {"task": "pay 99"})), "the worker could not"]
        ),
        sub_agents=[worker],
    )
    boss.on("pre_tool_call", ask_big, match="pay")
    response = await boss.chat("go")
    assert response.finish_reason == "stop"
    assert ran == []
    assert worker.provider.requests[1].messages[-1].content == "pay 99?"  # type: ignore[union-attr]


async def test_resume_stream_streams_like_chat_stream() -> None:
    payer = agent(calls(("b", "pay", {"amount": 50})), "all paid")
    session = Session(payer)
    await session.chat("go")
    items = [item async for item in session.resume_stream({"b": Approve()})]
    assert [type(i) for i in items[:2]] == [ToolCallStart, ToolCallEnd]
    assert "".join(i.text for i in items if isinstance(i, TextDelta)) == "all paid"
    assert isinstance(items[-1], FinalResponse)
    assert items[1] == ToolCallEnd(
        ToolCall(id="b", name="pay", arguments={"amount": 50}), "paid 50"
    )
    assert items[-1].response.content == "all paid"  # type: ignore[union-attr]


async def test_parallel_batches_pause_and_resume() -> None:
    payer = agent(BATCH, "ok", parallel_tool_calls=True)
    paused = await payer.chat("go")
    assert [p.call_id for p in paused.pending] == ["b"]
    assert sorted(ran) == ["note x", "pay 5"]
    await payer.resume({"b": Approve()})
    assert sorted(ran) == ["note x", "pay 5", "pay 50"]


async def test_budgets_count_on_across_the_pause() -> None:
    payer = agent(calls(("b", "pay", {"amount": 50})), "never asked", max_total_tokens=15)
    await payer.chat("go")
    with pytest.raises(BudgetExceeded) as over:
        await payer.resume({"b": Approve()})
    assert str(over.value) == "agent 'payer' used 15 tokens of max_total_tokens=15"
    assert ran == ["pay 50"]  # the approved call ran; the next request was refused


async def test_an_ask_on_pre_handoff_pauses_the_handoff() -> None:
    ran.clear()
    expert = Agent("expert", provider=ScriptedProvider(["expert answer"]))
    front = Agent(
        "front",
        provider=ScriptedProvider([calls(("h", "transfer_to_expert", {}))]),
        handoffs=[expert],
    )
    bus: HookBus = front.bus
    bus.on("pre_handoff", lambda ctx: Ask(f"hand over to {ctx.to_agent}?"))
    paused = await front.chat("help")
    assert [(p.call_id, p.reason) for p in paused.pending] == [("h", "hand over to expert?")]
    assert paused.agent == "front"
    done = await front.resume({"h": Approve()})
    assert (done.content, done.agent) == ("expert answer", "expert")
