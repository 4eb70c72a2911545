"""``ask = "pause"``: an ask rule pauses the run for a person instead of waiting; the run is
stored and resumed later, and the approved call then passes the guard."""

from __future__ import annotations

from pathlib import Path

import pytest
from agenthooks_guard import Guard, GuardConfigError, parse_policy

from agenthooks import (
    Agent,
    Approve,
    Deny,
    ProviderResponse,
    ScriptedProvider,
    Session,
    ToolCall,
    tool,
)
from agenthooks.stores import SQLiteStore
from agenthooks.stores.approvals import StoreApprovals

POLICY = """
ask = "pause"

[[rules]]
tool = "send_money"
action = "ask"
args.amount.gt = 100
reason = "Payments over 100 need a manager."

"""
NO_EVE = """
[[rules]]
tool = "send_money"
action = "deny"
args.to = "eve"
reason = "Never pay eve."
"""

sent: list[str] = []


@tool
def send_money(amount: float, to: str) -> str:
    """Send money."""
    sent.append(f"{amount:g} to {to}")
    return f"sent {amount:g} to {to}"


def agent(provider: ScriptedProvider) -> Agent:
    guarded = Agent("payer", provider=provider, tools=[send_money])
    guarded.use(Guard.from_toml(POLICY))
    return guarded


async def test_an_ask_rule_pauses_and_the_approved_call_passes_the_guard(tmp_path: Path) -> None:
    sent.clear()
    calls = [
        ToolCall(id="p1", name="send_money", arguments={"amount": 50, "to": "bob"}),
        ToolCall(id="p2", name="send_money", arguments={"amount": 900, "to": "ann"}),
    ]
    store = SQLiteStore(tmp_path / "s.db")
    first = ScriptedProvider([ProviderResponse(tool_calls=calls)])
    response = await Session(agent(first), store=store, session_id="pay").chat("Pay them")
    assert response.finish_reason == "paused"
    assert [(p.call_id, p.reason) for p in response.pending] == [
        ("p2", "Payments over 100 need a manager.")
    ]
    assert sent == ["50 to bob"]

    source = StoreApprovals(store)
    assert [a.id for a in await source.pending()] == ["pay/p2"]
    answered = await source.answer("p2", True, by="manager")
    assert (answered.status, answered.details["by"]) == ("approved", "manager")
    assert await source.pending() == []

    later = ScriptedProvider(["Paid."])
    done = await Session(agent(later), store=store, session_id="pay").resume()
    assert (done.finish_reason, done.content) == ("stop", "Paid.")
    assert sent == ["50 to bob", "900 to ann"]
    assert later.requests[0].messages[-1].content == "sent 900 to ann"
    await store.aclose()


async def test_at_resume_another_guard_still_denies_an_approved_call() -> None:
    sent.clear()
    first = ScriptedProvider(
        [
            ProviderResponse(
                tool_calls=[
                    ToolCall(id="e1", name="send_money", arguments={"amount": 500, "to": "eve"})
                ]
            ),
            "I could not pay eve.",
        ]
    )
    payer = agent(first)
    payer.use(Guard.from_toml(NO_EVE, name="no-eve"))
    session = Session(payer)
    response = await session.chat("Pay eve")
    # the first guard asked: the chain ended there, the second guard did not run yet
    assert [p.call_id for p in response.pending] == ["e1"]
    done = await session.resume({"e1": Approve()})
    # approved: the ask counts as None, and the second guard's deny still applies
    assert done.finish_reason == "stop"
    assert sent == []
    assert first.requests[1].messages[-1].content == "Never pay eve."


async def test_a_human_deny_is_the_tool_message() -> None:
    sent.clear()
    first = ScriptedProvider(
        [
            ProviderResponse(
                tool_calls=[
                    ToolCall(id="d1", name="send_money", arguments={"amount": 700, "to": "ann"})
                ]
            ),
            "Not paid.",
        ]
    )
    session = Session(agent(first))
    await session.chat("Pay ann")
    await session.resume({"d1": Deny("The manager said no.")})
    assert sent == []
    assert first.requests[1].messages[-1].content == "The manager said no."


def test_ask_takes_wait_or_pause() -> None:
    with pytest.raises(GuardConfigError) as info:
        parse_policy('ask = "later"', source="policy.toml")
    assert str(info.value) == "policy.toml: ask: 'later' is not one of wait, pause"
    assert parse_policy("").ask == "wait"
