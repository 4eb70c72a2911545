"""A paused run keeps its counts: the turns, tool calls and usage it has used, and the
per-run state its plugins put in ``on_chat_paused``'s ``state``, are part of the pause, in
memory and in the SQLite and PostgreSQL stores; the resumed run (a new ``Agent``, bus and
store object, as in another process) goes on from them."""

from __future__ import annotations

from typing import Any

import pytest

from agenthooks import (
    Agent,
    Approve,
    Ask,
    HookBus,
    PausedRun,
    ProviderResponse,
    ScriptedProvider,
    Session,
    ToolCall,
    Usage,
    tool,
)
from agenthooks.events import (
    ChatEndContext,
    ChatPausedContext,
    PreToolCallContext,
    RunResumedContext,
)
from agenthooks.stores import open_store

ran: list[str] = []


@tool
def note(text: str) -> str:
    """Take a note."""
    ran.append(f"note {text}")
    return "noted"


@tool
def pay(amount: int) -> str:
    """Pay."""
    ran.append(f"pay {amount}")
    return f"paid {amount}"


class Tally:
    """A plugin with per-run state: the tool calls each run made, dropped at its end, kept
    across a pause through the contract (``on_chat_paused``'s ``state`` → ``on_run_resumed``)."""

    name = "tally"

    def __init__(self) -> None:
        self.runs: dict[str, int] = {}
        self.resumed: list[RunResumedContext] = []
        self.seen: list[tuple[str, int]] = []

    def setup(self, bus: HookBus) -> None:
        bus.on("pre_tool_call", self.count)
        bus.on("on_chat_paused", self.paused)
        bus.on("on_run_resumed", self.resume)
        bus.on("on_chat_end", self.end)

    def count(self, ctx: PreToolCallContext) -> None:
        self.runs[ctx.run_id] = self.runs.get(ctx.run_id, 0) + 1
        self.seen.append((ctx.call.name, self.runs[ctx.run_id]))

    def paused(self, ctx: ChatPausedContext) -> None:
        ctx.state[self.name] = {"calls": self.runs.get(ctx.run_id, 0)}

    def resume(self, ctx: RunResumedContext) -> None:
        self.resumed.append(ctx)
        self.runs[ctx.run_id] = ctx.state[self.name]["calls"]

    def end(self, ctx: ChatEndContext) -> None:
        self.runs.pop(ctx.run_id, None)


def used(n: int) -> Usage:
    return Usage(input_tokens=n, output_tokens=n, total_tokens=2 * n, cost=n / 1000)


SCRIPT = [
    ProviderResponse(
        tool_calls=[ToolCall(id="n1", name="note", arguments={"text": "a"})], usage=used(10)
    ),
    ProviderResponse(
        tool_calls=[
            ToolCall(id="n2", name="note", arguments={"text": "b"}),
            ToolCall(id="p1", name="pay", arguments={"amount": 50}),
        ],
        usage=used(20),
    ),
    ProviderResponse(
        tool_calls=[ToolCall(id="n3", name="note", arguments={"text": "c"})], usage=used(30)
    ),
    ProviderResponse(content="done", usage=used(40)),
]


def build(tally: Tally, script: list[Any]) -> Agent:
    """An agent (with its own bus) that asks before every payment (the ``Ask`` ends the
    chain: ``Tally`` counts a payment once it is approved)."""
    agent = Agent("payer", provider=ScriptedProvider(list(script)), tools=[note, pay])
    agent.on("pre_tool_call", lambda ctx: Ask("pay?"), match="pay")
    agent.use(tally)
    return agent


def check_paused(paused: PausedRun) -> None:
    assert (paused.turns, paused.tool_calls) == (2, 3)
    assert paused.usage == used(10) + used(20)
    assert paused.state == {"tally": {"calls": 2}}


def check_resumed(tally: Tally, response: Any) -> None:
    [resumed] = tally.resumed
    assert resumed.state == {"tally": {"calls": 2}}
    assert resumed.usage == used(10) + used(20)  # usage goes on from the pause
    assert resumed.iteration == 1
    # the approved payment is the 3rd call the plugin counts in the run, the next note its 4th
    assert tally.seen == [("pay", 3), ("note", 4)]
    assert (response.finish_reason, response.content) == ("stop", "done")
    assert response.usage == used(10) + used(20) + used(30) + used(40)
    assert response.iterations == 4


async def test_in_memory_a_resumed_run_goes_on_from_its_counts_and_its_plugins_state() -> None:
    ran.clear()
    first = Tally()
    agent = build(first, SCRIPT)
    response = await agent.chat("go")
    assert response.finish_reason == "paused"
    assert first.seen == [("note", 1), ("note", 2)]
    assert first.runs == {}  # the run ended (on_chat_end): the plugin dropped its state
    assert agent._paused is not None
    check_paused(agent._paused)

    first.seen.clear()
    done = await agent.resume({"p1": Approve()})
    check_resumed(first, done)
    assert ran == ["note a", "note b", "pay 50", "note c"]


async def test_a_stored_pause_keeps_the_counts_and_a_fresh_agent_resumes_from_them(
    store_url: str,
) -> None:
    ran.clear()
    store = open_store(store_url)
    try:
        session = Session(build(Tally(), SCRIPT), store=store, session_id="s1")
        response = await session.chat("go")
        assert response.finish_reason == "paused"
    finally:
        await store.aclose()

    # as another process: a new store object, agent, bus and plugin, built from the store
    store = open_store(store_url)
    try:
        row = await store.get("s1")
        assert row is not None and row.status == "paused" and row.paused is not None
        check_paused(row.paused)
        fresh = Tally()
        session = Session(build(fresh, SCRIPT[2:]), store=store, session_id="s1")
        done = await session.resume({"p1": Approve()})
        check_resumed(fresh, done)
        row = await store.get("s1")
        assert row is not None and (row.status, row.paused) == ("idle", None)
    finally:
        await store.aclose()
    assert ran == ["note a", "note b", "pay 50", "note c"]


async def test_a_second_pause_stores_the_state_as_the_resumed_run_left_it(
    store_url: str,
) -> None:
    ran.clear()
    script = [
        SCRIPT[0],
        ProviderResponse(
            tool_calls=[ToolCall(id="p1", name="pay", arguments={"amount": 5})], usage=used(20)
        ),
        ProviderResponse(
            tool_calls=[ToolCall(id="p2", name="pay", arguments={"amount": 6})], usage=used(30)
        ),
        ProviderResponse(content="done", usage=used(40)),
    ]
    store = open_store(store_url)
    try:
        await Session(build(Tally(), script), store=store, session_id="s2").chat("go")
        again = await Session(build(Tally(), script[2:]), store=store, session_id="s2").resume(
            {"p1": Approve()}
        )
        assert again.finish_reason == "paused"
        row = await store.get("s2")
        assert row is not None and row.paused is not None
        assert (row.paused.turns, row.paused.tool_calls) == (3, 3)
        assert row.paused.usage == used(10) + used(20) + used(30)
        assert row.paused.state == {"tally": {"calls": 2}}  # the note and the paid 5
    finally:
        await store.aclose()


def test_a_pause_stored_before_the_counts_were_kept_still_loads() -> None:
    # a row written by an earlier agenthooks: no tool_calls, no state
    old = '{"run_id": "r1", "agent": "payer", "turns": 2, "usage": {"input_tokens": 3}}'
    paused = PausedRun.model_validate_json(old)
    assert (paused.turns, paused.tool_calls, paused.state) == (2, 0, {})
    assert paused.usage.input_tokens == 3


@pytest.fixture(autouse=True)
def _clean() -> None:
    ran.clear()
