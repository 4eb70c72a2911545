"""Which agenthooks events emit which interception points, with which contexts, in which order."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from agent_hooks import InterceptionRecord
from agenthooks_agent_hooks_spec import AgentHooksSpec
from spec_helpers import Policy, deny, transform

from agenthooks import (
    Agent,
    FinalResponse,
    ProviderResponse,
    RunAborted,
    ScriptedProvider,
    Session,
    TextDelta,
    ToolCall,
    ToolCallEnd,
    ToolCallStart,
    tool,
)

EIGHT = [
    "agent_startup",
    "input",
    "pre_model_call",
    "post_model_call",
    "pre_tool_call",
    "post_tool_call",
    "pre_model_call",
    "post_model_call",
    "output",
    "agent_shutdown",
]


def _weather_agent(calls: list[str], **options: Any) -> Agent:
    @tool
    async def weather(city: str) -> dict[str, int]:
        """Current temperature of a city."""
        calls.append(city)
        return {"temp": 21}

    provider = ScriptedProvider(
        [
            ProviderResponse(
                tool_calls=[ToolCall(id="c1", name="weather", arguments={"city": "Oslo"})],
                finish_reason="tool_calls",
            ),
            "It is 21.",
        ]
    )
    return Agent("assistant", "Answer briefly.", provider=provider, tools=[weather], **options)


async def test_a_chat_emits_the_eight_points_in_order_with_the_run_objects() -> None:
    calls: list[str] = []
    agent = _weather_agent(calls)
    policy = Policy()
    records: list[InterceptionRecord] = []
    agent.bus.use(AgentHooksSpec([policy], record_sink=records.append))

    response = await agent.chat("weather in Oslo?")

    assert response.content == "It is 21." and calls == ["Oslo"]
    assert policy.points() == EIGHT
    seen = policy.seen
    session_id = seen[0]["session"]["id"]
    run_id = seen[0]["extensions"]["agenthooks"]["run_id"]
    assert session_id == run_id  # a bare chat() is one session of the standard
    for index, context in enumerate(seen):
        assert context["spec"] == "agent-hooks/0.1"
        assert context["sequence"] == index
        assert context["session"]["id"] == session_id
        assert context["agent"] == {
            "id": "assistant",
            "framework": "agenthooks",
            "name": "assistant",
        }
        assert context["extensions"] == {
            "agenthooks": {"run_id": run_id, "agent": "assistant", "branch": "assistant"}
        }
    startup, inp, pre1, post1, pre_tool, post_tool, pre2, post2, output, shutdown = seen
    assert startup["agent_init"] == {"tools_registered": ["weather"]}
    assert inp["input"] == {"content": "weather in Oslo?", "role": "user"}
    assert pre1["model"] == {"id": "scripted"}
    assert pre1["messages"] == [
        {"role": "system", "content": "Answer briefly."},
        {"role": "user", "content": "weather in Oslo?"},
    ]
    assert pre1["tools"] == [
        {
            "name": "weather",
            "description": "Current temperature of a city.",
            "schema": agent.scopes["default"].tools["weather"].parameters,
        }
    ]
    assert post1["response"] == {
        "content": None,
        "finish_reason": "tool_calls",
        "tool_calls": [{"id": "c1", "name": "weather", "args": {"city": "Oslo"}}],
    }
    assert "usage" not in post1  # the scripted provider reports none
    assert pre_tool["tool_call"] == {"id": "c1", "name": "weather", "args": {"city": "Oslo"}}
    assert pre_tool["target"] == {"city": "Oslo"}
    assert post_tool["tool_call"] == {"id": "c1", "name": "weather", "args": {"city": "Oslo"}}
    assert post_tool["tool_result"]["value"] == {"temp": 21}
    assert post_tool["tool_result"]["is_error"] is False
    assert post_tool["tool_result"]["duration_ms"] >= 0
    assert pre2["messages"][2:] == [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c1", "name": "weather", "args": {"city": "Oslo"}}],
        },
        {"role": "tool", "content": '{"temp": 21}', "tool_call_id": "c1", "name": "weather"},
    ]
    assert post2["response"] == {"content": "It is 21.", "tool_calls": [], "finish_reason": "stop"}
    assert output["output"] == {"content": "It is 21."}
    assert shutdown["summary"]["reason"] == "completed"
    assert shutdown["summary"]["tool_calls"] == 1
    assert [r.to_wire()["interception_point"] for r in records] == EIGHT
    assert all(r.verdict.decision.value == "allow" for r in records)
    assert all(r.input_identity == r.enforced_identity for r in records)


async def test_an_allow_all_policy_leaves_every_request_and_the_history_unchanged() -> None:
    plain = _weather_agent([])
    await plain.chat("weather in Oslo?")
    guarded = _weather_agent([])
    guarded.bus.use(AgentHooksSpec([Policy()]))
    await guarded.chat("weather in Oslo?")
    assert isinstance(plain.provider, ScriptedProvider)
    assert isinstance(guarded.provider, ScriptedProvider)
    assert guarded.provider.requests == plain.provider.requests
    assert guarded.history == plain.history


async def test_every_chat_of_a_bare_agent_is_a_session_of_its_own() -> None:
    agent = Agent("a", provider=ScriptedProvider(["one", "two"]))
    policy = Policy()
    agent.bus.use(AgentHooksSpec([policy]))
    await agent.chat("1")
    await agent.chat("2")
    starts = policy.at("agent_startup")
    assert len(starts) == 2 and len(policy.at("agent_shutdown")) == 2
    assert starts[0]["session"]["id"] != starts[1]["session"]["id"]
    assert [c["sequence"] for c in policy.seen] == [0, 1, 2, 3, 4, 5] * 2


async def test_a_session_starts_once_runs_several_turns_and_shuts_down_on_close() -> None:
    agent = Agent("a", provider=ScriptedProvider(["one", "two"]))
    policy = Policy()
    agent.bus.use(AgentHooksSpec([policy]))
    async with Session(agent, session_id="s-1") as session:
        await session.chat("1")
        await session.chat("2")
        assert "agent_shutdown" not in policy.points()
    assert policy.points() == [
        "agent_startup",
        "input",
        "pre_model_call",
        "post_model_call",
        "output",
        "input",
        "pre_model_call",
        "post_model_call",
        "output",
        "agent_shutdown",
    ]
    assert {c["session"]["id"] for c in policy.seen} == {"s-1"}
    assert [c["sequence"] for c in policy.seen] == list(range(10))
    assert policy.seen[0]["session"]["started_at"].endswith("Z")
    assert policy.seen[-1]["summary"]["reason"] == "completed"


async def test_a_session_denied_at_startup_denies_every_chat_and_shuts_down_as_error() -> None:
    provider = ScriptedProvider(["never"])
    agent = Agent("a", provider=provider)
    policy = Policy(agent_startup=lambda c: deny("policy:closed"))
    agent.bus.use(AgentHooksSpec([policy]))
    session = Session(agent)
    first = await session.chat("1")
    second = await session.chat("2")
    await session.close()
    assert (first.finish_reason, first.content) == ("denied", "policy:closed")
    assert (second.finish_reason, second.content) == ("denied", "policy:closed")
    assert provider.requests == []
    assert policy.points() == ["agent_startup", "agent_shutdown"]
    assert policy.seen[-1]["summary"]["reason"] == "error"


async def test_a_spec_installed_after_a_session_started_starts_it_at_the_next_chat() -> None:
    agent = Agent("a", provider=ScriptedProvider(["one", "two"]))
    session = Session(agent)
    await session.chat("1")
    policy = Policy()
    agent.bus.use(AgentHooksSpec([policy]))
    await session.chat("2")
    await session.close()
    assert policy.points() == [
        "agent_startup",
        "input",
        "pre_model_call",
        "post_model_call",
        "output",
        "agent_shutdown",
    ]


async def test_shutdown_reports_an_aborted_run_as_cancelled() -> None:
    signal = asyncio.Event()

    @tool
    async def slow() -> str:
        signal.set()
        await asyncio.Event().wait()  # the abort cancels the run here
        return "never"

    agent = Agent(
        "a",
        provider=ScriptedProvider([ProviderResponse(tool_calls=[ToolCall(id="c1", name="slow")])]),
        tools=[slow],
    )
    policy = Policy()
    agent.bus.use(AgentHooksSpec([policy]))
    with pytest.raises(RunAborted):
        await agent.chat("go", signal=signal)
    assert policy.points() == [
        "agent_startup",
        "input",
        "pre_model_call",
        "post_model_call",
        "pre_tool_call",
        "agent_shutdown",
    ]
    assert policy.seen[-1]["summary"]["reason"] == "cancelled"


async def test_a_run_that_fails_shuts_down_as_error() -> None:
    agent = Agent("a", provider=ScriptedProvider([ConnectionError("down")]))
    policy = Policy()
    agent.bus.use(AgentHooksSpec([policy]))
    with pytest.raises(ConnectionError):
        await agent.chat("hi")
    assert policy.points() == ["agent_startup", "input", "pre_model_call", "agent_shutdown"]
    assert policy.seen[-1]["summary"]["reason"] == "error"


async def test_streaming_is_gated_so_only_the_allowed_output_is_released() -> None:
    @tool
    async def look() -> str:
        return "seen"

    provider = ScriptedProvider(
        [
            ProviderResponse(content="let me look", tool_calls=[ToolCall(id="c1", name="look")]),
            "the secret is 42",
        ]
    )
    agent = Agent("a", provider=provider, tools=[look])
    policy = Policy(output=lambda c: transform("$target.content", "the secret is [redacted]"))
    agent.bus.use(AgentHooksSpec([policy]))
    items = [item async for item in agent.chat_stream("tell me")]
    assert [type(i) for i in items] == [ToolCallStart, ToolCallEnd, TextDelta, FinalResponse]
    assert items[2] == TextDelta("the secret is [redacted]")
    final = items[3]
    assert isinstance(final, FinalResponse)
    assert final.response.content == "the secret is [redacted]"


async def test_a_denied_output_never_streams() -> None:
    agent = Agent("a", provider=ScriptedProvider(["the secret is 42"]))
    agent.bus.use(AgentHooksSpec([Policy(output=lambda c: deny("policy:leak"))]))
    items = [item async for item in agent.chat_stream("tell me")]
    assert len(items) == 1 and isinstance(items[0], FinalResponse)
    assert (items[0].response.finish_reason, items[0].response.content) == ("denied", "policy:leak")


async def test_the_disposer_removes_every_guard() -> None:
    agent = Agent("a", provider=ScriptedProvider(["one", "two"]))
    policy = Policy()
    dispose = agent.bus.use(AgentHooksSpec([policy]))
    await agent.chat("1")
    dispose()
    assert agent.bus.empty
    await agent.chat("2")
    assert len(policy.seen) == 6


async def test_concurrent_sessions_keep_their_own_sequence() -> None:
    agent = Agent("a", provider=ScriptedProvider(lambda request: "ok"))
    policy = Policy()
    agent.bus.use(AgentHooksSpec([policy]))
    sessions = [Session(agent, session_id=f"s-{i}") for i in range(3)]
    await asyncio.gather(*(s.chat("hi") for s in sessions))
    await asyncio.gather(*(s.close() for s in sessions))
    for session in sessions:
        mine = [c for c in policy.seen if c["session"]["id"] == session.id]
        assert [c["interception_point"] for c in mine] == [
            "agent_startup",
            "input",
            "pre_model_call",
            "post_model_call",
            "output",
            "agent_shutdown",
        ]
        assert [c["sequence"] for c in mine] == list(range(6))


async def test_a_spec_on_a_sub_agents_own_bus_governs_it_as_its_own_session() -> None:
    researcher = Agent("researcher", provider=ScriptedProvider(["found it"]))
    policy = Policy()
    researcher.bus.use(AgentHooksSpec([policy]))
    orchestrator = Agent(
        "orchestrator",
        provider=ScriptedProvider(
            [
                ProviderResponse(
                    tool_calls=[ToolCall(id="c1", name="researcher", arguments={"task": "look"})]
                ),
                "done",
            ]
        ),
        sub_agents=[researcher],
    )
    response = await orchestrator.chat("go")
    assert response.content == "done"
    assert policy.points() == [
        "agent_startup",
        "input",
        "pre_model_call",
        "post_model_call",
        "output",
        "agent_shutdown",
    ]
    assert policy.seen[1]["input"]["content"] == "look"
    assert policy.seen[0]["extensions"]["agenthooks"]["branch"] == "orchestrator/researcher"


async def test_nothing_is_retained_after_chats_end_and_sessions_close() -> None:
    researcher = Agent("researcher", provider=ScriptedProvider(["found it"]))
    agent = Agent(
        "a",
        provider=ScriptedProvider(
            [
                ProviderResponse(
                    tool_calls=[ToolCall(id="c1", name="researcher", arguments={"task": "look"})]
                ),
                "done",
                ConnectionError("down"),
                "session answer",
            ]
        ),
        sub_agents=[researcher],
    )
    spec = AgentHooksSpec([Policy()])
    agent.bus.use(spec)
    await agent.chat("go")
    with pytest.raises(ConnectionError):
        await agent.chat("again")
    async with Session(agent) as session:
        await session.chat("hi")
    assert (spec._sessions, spec._run_keys, spec._roots) == ({}, {}, set())
