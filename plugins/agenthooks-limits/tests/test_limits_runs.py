"""Limits in real Agent runs on ScriptedProvider responses carrying Usage: each action, exactly
what the model and the hooks see."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
import structlog
from agenthooks_limits import Cap, Limits, Price, RateLimit

from agenthooks import (
    Agent,
    HookBus,
    ProviderResponse,
    ScriptedProvider,
    StopRun,
    ToolCall,
    Usage,
    tool,
)
from agenthooks.events import ResponseContext

RAN: list[str] = []


@tool
def search(q: str) -> str:
    """Search the web."""
    RAN.append(f"search {q}")
    return f"results for {q}"


@tool
def fetch(url: str) -> str:
    """Fetch a page."""
    RAN.append(f"fetch {url}")
    return f"page {url}"


_ids = itertools.count(1)


@pytest.fixture(autouse=True)
def _clean() -> None:
    global _ids
    RAN.clear()
    _ids = itertools.count(1)  # call n asks for q<n> / u<n>, counted per test


def calls(*names: str, usage: Usage | None = None) -> ProviderResponse:
    """A response asking for one call per name (``search`` gets ``q``, ``fetch`` gets ``url``)."""
    tool_calls = []
    for name in names:
        n = next(_ids)
        args = {"q": f"q{n}"} if name == "search" else {"url": f"u{n}"}
        tool_calls.append(ToolCall(id=f"c{n}", name=name, arguments=args))
    return ProviderResponse(
        tool_calls=tool_calls, finish_reason="tool_calls", usage=usage or Usage()
    )


def used(input_tokens: int, output_tokens: int, cost: float = 0.0) -> Usage:
    return Usage(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        total_tokens=input_tokens + output_tokens,
        cost=cost,
    )


class Recorder:
    """Records the run's ending events and what they carried."""

    def __init__(self, agent: Agent) -> None:
        self.events: list[tuple[str, Any]] = []
        agent.on("on_stop", lambda ctx: self.events.append(("on_stop", ctx.reason)))
        agent.on(
            "on_chat_error",
            lambda ctx: self.events.append(
                ("on_chat_error", f"{type(ctx.error).__name__}: {ctx.error}")
            ),
        )
        agent.on(
            "on_chat_done",
            lambda ctx: self.events.append(("on_chat_done", ctx.response.finish_reason)),
        )
        agent.on("on_chat_end", lambda ctx: self.events.append(("on_chat_end", None)))


def make(
    limits: Limits, *script: Any, model: str | None = "big", bus: HookBus | None = None
) -> tuple[Agent, ScriptedProvider, Recorder]:
    provider = ScriptedProvider(list(script))
    agent = Agent("researcher", provider=provider, tools=[search, fetch], model=model, bus=bus)
    agent.use(limits)
    return agent, provider, Recorder(agent)


def tool_texts(agent: Agent) -> list[tuple[str | None, bool]]:
    return [(m.content, m.is_error) for m in agent.history if m.role == "tool"]


# stop ---------------------------------------------------------------------------------------


async def test_max_turns_stops_the_run_with_stoprun_through_on_stop_and_on_chat_error() -> None:
    limits = Limits(max_turns=2)
    agent, provider, rec = make(limits, calls("search"), calls("search"), calls("search"), "x")
    with pytest.raises(StopRun) as info:
        await agent.chat("research")
    assert info.value.reason == "turn limit: 2 of 2 turns used"
    assert len(provider.requests) == 2
    assert RAN == ["search q1", "search q2"]
    assert rec.events == [
        ("on_stop", "turn limit: 2 of 2 turns used"),
        ("on_chat_error", "StopRun: turn limit: 2 of 2 turns used"),
        ("on_chat_end", None),
    ]
    assert limits.active_runs() == []


async def test_a_ladder_warns_then_downgrades_then_stops() -> None:
    limits = Limits(
        max_turns=Cap(2, ladder={0.5: "warn", 1.0: "downgrade", 1.5: "stop"}), downgrade="small"
    )
    agent, provider, rec = make(
        limits, calls("search"), calls("search"), calls("search"), calls("search"), "x"
    )
    with structlog.testing.capture_logs() as logs, pytest.raises(StopRun):
        await agent.chat("research")
    assert [r.model for r in provider.requests] == ["big", "big", "small"]
    assert rec.events[0] == ("on_stop", "turn limit: 3 of 2 turns used")
    run_id = logs[0]["run_id"]
    assert [
        {k: v for k, v in entry.items() if k not in ("run_id", "log_level")} for entry in logs
    ] == [
        {
            "event": "limit_reached",
            "action": "warn",
            "metric": "turns",
            "tool": None,
            "used": 1,
            "limit": 2,
            "level": 0.5,
            "reason": "turn limit: 1 of 2 turns used",
        },
        {
            "event": "limit_reached",
            "action": "downgrade",
            "metric": "turns",
            "tool": None,
            "used": 2,
            "limit": 2,
            "level": 1.0,
            "reason": "turn limit: 2 of 2 turns used",
        },
        {
            "event": "limit_downgrade",
            "model": "big",
            "to": "small",
            "reason": "turn limit: 2 of 2 turns used",
        },
        {
            "event": "limit_reached",
            "action": "stop",
            "metric": "turns",
            "tool": None,
            "used": 3,
            "limit": 2,
            "level": 1.5,
            "reason": "turn limit: 3 of 2 turns used",
        },
    ]
    assert all(entry["run_id"] == run_id for entry in logs)


async def test_max_cost_from_the_pricing_table_stops_before_the_next_request() -> None:
    limits = Limits(max_cost=0.5, pricing={"gpt-4o": (2.5, 10.0)})
    agent, provider, rec = make(
        limits,
        calls("search", usage=used(100_000, 10_000)),
        calls("search", usage=used(100_000, 10_000)),
        "never",
        model="gpt-4o",
    )
    seen_costs: list[float] = []
    agent.on("on_response", lambda ctx: seen_costs.append(ctx.response.usage.cost))
    with pytest.raises(StopRun) as info:
        await agent.chat("research")
    assert seen_costs == [pytest.approx(0.35), pytest.approx(0.35)]
    assert info.value.reason == "cost limit: $0.7 of $0.5 spent"
    assert rec.events[:2] == [
        ("on_stop", "cost limit: $0.7 of $0.5 spent"),
        ("on_chat_error", "StopRun: cost limit: $0.7 of $0.5 spent"),
    ]
    assert len(provider.requests) == 2


async def test_an_answer_already_paid_for_is_returned_even_over_budget() -> None:
    limits = Limits(max_tokens=100)
    agent, _provider, rec = make(
        limits, ProviderResponse(content="the answer", usage=used(500, 500))
    )
    response = await agent.chat("q")
    assert (response.content, response.finish_reason, response.usage.total_tokens) == (
        "the answer",
        "stop",
        1000,
    )
    assert rec.events == [("on_chat_done", "stop"), ("on_chat_end", None)]


async def test_a_tool_cap_with_stop_ends_the_run_and_closes_the_open_call() -> None:
    limits = Limits(max_calls_per_tool={"search": Cap(1, "stop")})
    agent, _provider, rec = make(limits, calls("search"), calls("fetch", "search"), "x")
    with pytest.raises(StopRun) as info:
        await agent.chat("research")
    reason = 'tool call limit for "search": 1 of 1 calls used'
    assert info.value.reason == reason
    assert rec.events[0] == ("on_stop", reason)
    assert RAN == ["search q1", "fetch u2"]
    # every call the model made has its tool message: the stopped one carries the reason
    assert tool_texts(agent)[-1] == (reason, True)


# downgrade ------------------------------------------------------------------------------------


async def test_a_token_downgrade_switches_the_next_request_to_the_cheaper_model() -> None:
    limits = Limits(max_tokens=Cap(1000, "downgrade"), downgrade={"gpt-4o": "gpt-4o-mini"})
    agent, provider, rec = make(
        limits,
        calls("search", usage=used(500, 100)),
        calls("search", usage=used(500, 100)),
        calls("search", usage=used(500, 100)),
        "done",
        model="gpt-4o",
    )
    response = await agent.chat("research")
    assert [r.model for r in provider.requests] == [
        "gpt-4o",
        "gpt-4o",
        "gpt-4o-mini",
        "gpt-4o-mini",
    ]
    assert response.content == "done"
    assert rec.events == [("on_chat_done", "stop"), ("on_chat_end", None)]


async def test_a_tool_cap_downgrade_applies_at_the_next_turn() -> None:
    limits = Limits(max_tool_calls=Cap(2, "downgrade"), downgrade="small")
    agent, provider, _rec = make(limits, calls("search", "search"), calls("fetch"), "done")
    await agent.chat("research")
    assert [r.model for r in provider.requests] == ["big", "big", "small"]
    assert len(RAN) == 3  # a downgrade never refuses the call


async def test_a_downgrade_without_a_cheaper_model_for_the_current_one_only_warns() -> None:
    limits = Limits(max_turns=Cap(1, "downgrade"), downgrade={"gpt-4o": "gpt-4o-mini"})
    agent, provider, _rec = make(limits, calls("search"), "done", model="claude")
    with structlog.testing.capture_logs() as logs:
        await agent.chat("research")
    assert [r.model for r in provider.requests] == ["claude", "claude"]
    assert [e["event"] for e in logs] == ["limit_reached", "limit_downgrade_unavailable"]


# deny ----------------------------------------------------------------------------------------


async def test_a_per_tool_cap_denies_with_a_reason_the_model_reads() -> None:
    limits = Limits(max_calls_per_tool={"search": 2})
    agent, provider, _rec = make(limits, calls("search", "search", "search", "fetch"), "done")
    response = await agent.chat("research")
    assert RAN == ["search q1", "search q2", "fetch u4"]
    assert [(m.content, m.is_error) for m in provider.requests[1].messages if m.role == "tool"] == [
        ("results for q1", False),
        ("results for q2", False),
        ('Tool call "search" was denied (tool call limit for "search": 2 of 2 calls used)', True),
        ("page u4", False),
    ]
    assert response.content == "done"


async def test_max_tool_calls_counts_every_tool_and_not_the_denied_calls() -> None:
    limits = Limits(max_tool_calls=2)
    agent, _provider, _rec = make(
        limits, calls("search", "fetch"), calls("fetch"), calls("search"), "done"
    )
    await agent.chat("research")
    denied = 'Tool call "{}" was denied (tool call limit: 2 of 2 tool calls used)'
    assert tool_texts(agent)[2:] == [
        (denied.format("fetch"), True),
        (denied.format("search"), True),
    ]


async def test_a_run_level_deny_refuses_every_later_tool_call() -> None:
    limits = Limits(max_tokens=Cap(500, "deny"))
    agent, _provider, _rec = make(
        limits, calls("search", usage=used(400, 200)), calls("search", "fetch"), "final answer"
    )
    response = await agent.chat("research")
    reason = "token limit: 600 of 500 tokens used"
    assert tool_texts(agent)[1:] == [
        (f'Tool call "search" was denied ({reason})', True),
        (f'Tool call "fetch" was denied ({reason})', True),
    ]
    assert (response.content, response.finish_reason) == ("final answer", "stop")
    assert len(RAN) == 1


async def test_the_deny_message_can_be_customised() -> None:
    limits = Limits(
        max_calls_per_tool={"search": 1},
        deny_message="{tool} is used up ({reason}); answer with what you have.",
    )
    agent, _provider, _rec = make(limits, calls("search", "search"), "done")
    await agent.chat("q")
    assert tool_texts(agent)[1] == (
        (
            'search is used up (tool call limit for "search": 1 of 1 calls used); answer with what '
            "you have."
        ),
        True,
    )


async def test_a_cached_call_answered_by_an_ordinary_handler_does_not_count() -> None:
    limits = Limits(max_calls_per_tool={"search": 1})
    agent, _provider, _rec = make(limits, calls("search", "search", "search"), "done")
    cached = {"q1", "q2"}
    agent.on(
        "pre_tool_call",
        lambda ctx: {"result": "cached"} if ctx.call.arguments["q"] in (cached) else None,
    )
    await agent.chat("q")
    assert tool_texts(agent) == [("cached", False), ("cached", False), ("results for q3", False)]


# rate limits ---------------------------------------------------------------------------------


class Clock:
    """A clock the test sets: rate limits are decided without waiting."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_a_rate_limit_denies_within_the_window_and_allows_after_it() -> None:
    clock = Clock()
    limits = Limits(rate_limits={"search": RateLimit(2, per=60)}, clock=clock)
    agent, _provider, _rec = make(
        limits, calls("search", "search", "search"), calls("search"), "done"
    )

    def tick(ctx: Any) -> None:
        clock.now += 61  # the next turn starts after the window has passed

    agent.on("on_loop_end", tick)
    await agent.chat("q")
    assert tool_texts(agent) == [
        ("results for q1", False),
        ("results for q2", False),
        (
            (
                'Tool call "search" was denied (rate limit for "search": 2 calls in the last 60 '
                "seconds, the limit is 2)"
            ),
            True,
        ),
        ("results for q4", False),
    ]


@pytest.mark.parametrize(
    ("shared", "second_run"),
    [
        (
            True,
            (
                (
                    'Tool call "search" was denied (rate limit for "search": 1 calls in the last 60 '
                    "seconds, the limit is 1)"
                ),
                True,
            ),
        ),
        (False, ("results for q2", False)),
    ],
)
async def test_a_shared_rate_limit_counts_across_runs(
    shared: bool, second_run: tuple[str, bool]
) -> None:
    clock = Clock()
    limits = Limits(rate_limits={"search": RateLimit(1, per=60, shared=shared)}, clock=clock)
    bus = HookBus()
    bus.use(limits)
    first = ScriptedProvider([calls("search"), "done"])
    second = ScriptedProvider([calls("search"), "done"])
    await Agent("a", provider=first, tools=[search], bus=bus).chat("q")
    await Agent("b", provider=second, tools=[search], bus=bus).chat("q")
    assert [(m.content, m.is_error) for m in second.requests[1].messages if m.role == "tool"] == [
        second_run
    ]
    assert limits.active_runs() == []


# warn ----------------------------------------------------------------------------------------


async def test_warn_logs_once_and_the_run_goes_on() -> None:
    limits = Limits(max_calls_per_tool={"search": Cap(2, "warn")})
    agent, _provider, _rec = make(limits, calls("search", "search", "search", "search"), "done")
    with structlog.testing.capture_logs() as logs:
        response = await agent.chat("q")
    assert len(RAN) == 4
    assert response.content == "done"
    assert [(e["event"], e["action"], e["used"], e["reason"]) for e in logs] == [
        ("limit_reached", "warn", 2, 'tool call limit for "search": 2 of 2 calls used')
    ]


# pricing -------------------------------------------------------------------------------------


async def test_pricing_fills_usage_cost_and_keeps_a_provider_cost() -> None:
    limits = Limits(pricing={"gpt-4o": Price(2.5, 10.0), "gpt-4o-mini": (0.15, 0.6)})
    responses = [
        calls("search", usage=used(1_000_000, 0)),  # gpt-4o-2024-08-06: priced as gpt-4o
        calls("search", usage=used(0, 1_000_000)),  # gpt-4o-mini-2024-07-18: the longer prefix
        ProviderResponse(content="done", usage=used(10, 10, cost=1.25)),  # provider's own cost
    ]
    models = iter(["gpt-4o-mini-2024-07-18"])
    agent, provider, _rec = make(limits, *responses, model="gpt-4o-2024-08-06")
    agent.on("prepare_next_turn", lambda ctx: {"model": next(models, ctx.model)})
    costs: list[float] = []

    def after(ctx: ResponseContext) -> None:
        costs.append(ctx.response.usage.cost)

    agent.on("on_response", after)
    response = await agent.chat("q")
    assert [r.model for r in provider.requests] == [
        "gpt-4o-2024-08-06",
        "gpt-4o-mini-2024-07-18",
        "gpt-4o-mini-2024-07-18",
    ]
    assert costs == [pytest.approx(2.5), pytest.approx(0.6), pytest.approx(1.25)]
    assert response.usage.cost == pytest.approx(4.35)
    assert limits.price_for("gpt-4o-mini-2024-07-18") == Price(0.15, 0.6)
    assert limits.price_for("o1") is None


async def test_an_unpriced_model_counts_nothing_and_warns_once() -> None:
    limits = Limits(pricing={"gpt-4o": (2.5, 10.0)})
    agent, _provider, _rec = make(
        limits,
        calls("search", usage=used(10, 10)),
        ProviderResponse(content="done", usage=used(10, 10)),
        model="mystery",
    )
    with structlog.testing.capture_logs() as logs:
        response = await agent.chat("q")
    assert response.usage.cost == 0.0
    assert [(e["event"], e["model"]) for e in logs] == [("limits_model_unpriced", "mystery")]


# state ---------------------------------------------------------------------------------------


async def test_state_is_per_run_and_dropped_at_chat_end() -> None:
    limits = Limits(max_calls_per_tool={"search": 1})
    agent, _provider, _rec = make(limits, calls("search"), "one", calls("search"), "two")
    assert (await agent.chat("first")).content == "one"
    assert (await agent.chat("second")).content == "two"
    assert tool_texts(agent) == [("results for q1", False), ("results for q2", False)]
    assert limits.active_runs() == []


async def test_no_limits_registers_nothing() -> None:
    bus = HookBus()
    bus.use(Limits(from_env=False))
    assert bus.listened == frozenset()
