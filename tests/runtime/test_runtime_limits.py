"""Limits in real runs: max_turns, should_stop, max_total_tokens / max_cost, StopRun, and how
usage accumulates."""

from __future__ import annotations

from typing import Any

import pytest
import structlog

from agenthooks import (
    Agent,
    BudgetExceeded,
    ChatMessage,
    HookBus,
    MaxTurnsExceeded,
    ProviderResponse,
    ScriptedProvider,
    StopRun,
    ToolCall,
    Usage,
    tool,
)

RAN: list[int] = []


@tool
def step(n: int) -> str:
    """Do step n."""
    RAN.append(n)
    return f"step {n} done"


def ask(n: int, usage: Usage | None = None, content: str | None = None) -> ProviderResponse:
    return ProviderResponse(
        content=content,
        finish_reason="tool_calls",
        usage=usage or Usage(),
        tool_calls=[ToolCall(id=f"c{n}", name="step", arguments={"n": n})],
    )


def spent(tokens: int, cost: float = 0.0) -> Usage:
    return Usage(input_tokens=tokens - 10, output_tokens=10, total_tokens=tokens, cost=cost)


def make_agent(*script: Any, **options: Any) -> tuple[Agent, ScriptedProvider]:
    RAN.clear()
    provider = ScriptedProvider(list(script))
    return Agent("stepper", "Step.", provider=provider, tools=[step], **options), provider


def transcript(*steps: int) -> list[ChatMessage]:
    messages = [ChatMessage(role="user", content="go")]
    for n in steps:
        call = ToolCall(id=f"c{n}", name="step", arguments={"n": n})
        messages += [
            ChatMessage(role="assistant", tool_calls=[call]),
            ChatMessage(role="tool", content=f"step {n} done", tool_call_id=f"c{n}", name="step"),
        ]
    return messages


def terminal(names: list[str]) -> list[str]:
    return [n for n in names if n in ("on_chat_done", "on_chat_abort", "on_chat_error")]


# max_turns --------------------------------------------------------------------------------


async def test_max_turns_runs_the_last_tools_then_stops_with_an_error(recorder: Any) -> None:
    agent, provider = make_agent(ask(1), ask(2), ask(3), max_turns=2)
    recorder.attach(agent)

    with pytest.raises(MaxTurnsExceeded) as caught:
        await agent.chat("go")

    error = caught.value
    assert str(error) == (
        "agent 'stepper' reached max_turns=2 with the model still asking for tools"
    )
    assert error.messages == transcript(1, 2)
    assert RAN == [1, 2]  # the tools of the last allowed turn ran
    assert len(provider.requests) == 2
    assert recorder.names[-8:] == [
        "on_tool_call_result",
        "on_message",
        "on_loop_end",
        "prepare_next_turn",
        "should_stop",
        "on_stop",
        "on_chat_error",
        "on_chat_end",
    ]
    assert recorder.of("on_stop")[0].reason == "max_turns"
    assert recorder.of("on_chat_error")[0].error is error
    assert "post_agent" not in recorder.names
    assert agent.history == transcript(1, 2)  # no dangling call


async def test_should_stop_at_the_last_turn_is_a_graceful_stop(recorder: Any) -> None:
    agent, _ = make_agent(ask(1), ask(2, content="Step 2 next."), ask(3), max_turns=2)
    recorder.attach(agent)
    agent.on("should_stop", lambda ctx: ctx.iteration == 1)

    response = await agent.chat("go")

    assert (response.content, response.finish_reason, response.iterations) == (
        "Step 2 next.",
        "stopped",
        2,
    )
    assert "on_stop" not in recorder.names
    assert recorder.names[-5:] == [
        "prepare_next_turn",
        "should_stop",
        "post_agent",
        "on_chat_done",
        "on_chat_end",
    ]


async def test_should_stop_true_stops_gracefully(recorder: Any) -> None:
    agent, provider = make_agent(ask(1, content="Starting."), "never")
    recorder.attach(agent)
    agent.on("ShouldStopAfterTurn", lambda ctx: ctx.tool_messages[-1].content == "step 1 done")
    later: list[str] = []
    agent.on("should_stop", lambda ctx: later.append("asked"))

    response = await agent.chat("go")

    assert (response.content, response.finish_reason) == ("Starting.", "stopped")
    assert later == []  # the first True wins
    assert len(provider.requests) == 1
    assert response.messages == agent.history
    assert agent.history[-1] == ChatMessage(
        role="tool", content="step 1 done", tool_call_id="c1", name="step"
    )
    assert recorder.of("post_agent")[0].response.finish_reason == "stopped"


# budgets ----------------------------------------------------------------------------------


async def test_max_total_tokens_stops_before_the_next_request(recorder: Any) -> None:
    agent, provider = make_agent(ask(1, spent(60)), "never", max_total_tokens=50)
    recorder.attach(agent)

    with pytest.raises(BudgetExceeded) as caught:
        await agent.chat("go")

    assert str(caught.value) == "agent 'stepper' used 60 tokens of max_total_tokens=50"
    assert caught.value.messages == transcript(1)
    assert len(provider.requests) == 1
    assert recorder.names[-5:] == [
        "should_stop",
        "on_loop_start",
        "on_stop",
        "on_chat_error",
        "on_chat_end",
    ]
    assert recorder.of("on_stop")[0].reason == "max_budget"
    assert recorder.of("on_stop")[0].usage == spent(60)


async def test_an_answer_already_paid_for_is_returned(recorder: Any) -> None:
    agent, _ = make_agent(
        ProviderResponse(content="expensive answer", usage=spent(500)), max_total_tokens=50
    )
    recorder.attach(agent)

    response = await agent.chat("go")

    assert (response.content, response.finish_reason) == ("expensive answer", "stop")
    assert response.usage == spent(500)
    assert "on_stop" not in recorder.names


async def test_max_cost_counts_the_cost_the_provider_reports(recorder: Any) -> None:
    agent, provider = make_agent(
        ask(1, spent(20, 0.03)), ask(2, spent(20, 0.03)), "never", max_cost=0.05
    )
    recorder.attach(agent)

    with pytest.raises(BudgetExceeded) as caught:
        await agent.chat("go")

    assert str(caught.value) == "agent 'stepper' spent 0.06 of max_cost=0.05"
    assert caught.value.messages == transcript(1, 2)
    assert RAN == [1, 2]
    assert len(provider.requests) == 2
    assert [ctx.reason for ctx in recorder.of("on_stop")] == ["max_budget"]
    assert terminal(recorder.names) == ["on_chat_error"]


async def test_max_cost_ignores_usage_without_cost() -> None:
    agent, _ = make_agent(ask(1, spent(10_000)), "done", max_cost=0.01)
    response = await agent.chat("go")
    assert response.content == "done"
    assert response.usage == Usage(input_tokens=9_990, output_tokens=10, total_tokens=10_000)


# StopRun ----------------------------------------------------------------------------------


@pytest.mark.parametrize("errors", ["raise", "isolate"])
async def test_stop_run_from_a_hook_fires_on_stop_then_on_chat_error(
    recorder: Any, errors: Any
) -> None:
    agent, _ = make_agent(ask(1), ask(2), "never", bus=HookBus(errors=errors))
    recorder.attach(agent)

    def quota(ctx: Any) -> None:
        if ctx.call.arguments["n"] == 2:
            raise StopRun("tool quota reached")

    agent.on("pre_tool_call", quota, errors=errors)

    with structlog.testing.capture_logs() as logs, pytest.raises(StopRun) as caught:
        await agent.chat("go")

    assert caught.value.reason == "tool quota reached"
    assert logs == []  # never isolated
    assert RAN == [1]
    assert recorder.names[-6:] == [
        "on_message",
        "pre_tool_call",
        "on_message",
        "on_stop",
        "on_chat_error",
        "on_chat_end",
    ]
    assert recorder.of("on_stop")[0].reason == "tool quota reached"
    assert recorder.of("on_chat_error")[0].error is caught.value
    # the open call got its error message before on_stop
    assert agent.history[-1] == ChatMessage(
        role="tool", content="tool quota reached", tool_call_id="c2", name="step", is_error=True
    )


async def test_stop_run_from_a_guard_is_not_turned_into_a_deny(recorder: Any) -> None:
    agent, _ = make_agent("never")
    recorder.attach(agent)

    def stop(ctx: Any) -> None:
        raise StopRun("maintenance window")

    agent.on("pre_request", stop, guard=True)

    with pytest.raises(StopRun, match="maintenance window"):
        await agent.chat("go")

    assert recorder.of("on_stop")[0].reason == "maintenance window"
    assert terminal(recorder.names) == ["on_chat_error"]


# usage ------------------------------------------------------------------------------------


async def test_usage_accumulates_across_turns(recorder: Any) -> None:
    agent, _ = make_agent(
        ask(1, spent(100, 0.5)),
        ask(2, spent(40, 0.25)),
        ProviderResponse(content="done", usage=spent(30, 0.125)),
    )
    recorder.attach(agent)

    response = await agent.chat("go")

    total = Usage(input_tokens=140, output_tokens=30, total_tokens=170, cost=0.875)
    assert response.usage == total
    assert [ctx.usage for ctx in recorder.of("on_loop_start")] == [
        Usage(),
        spent(100, 0.5),
        spent(100, 0.5) + spent(40, 0.25),
    ]
    assert [ctx.usage for ctx in recorder.of("on_loop_end")] == [
        spent(100, 0.5),
        spent(100, 0.5) + spent(40, 0.25),
        total,
    ]
    assert [ctx.usage for ctx in recorder.of("prepare_next_turn")] == [
        spent(100, 0.5),
        spent(100, 0.5) + spent(40, 0.25),
    ]
    assert recorder.of("post_agent")[0].response.usage == total
    assert recorder.of("on_chat_done")[0].usage == total
    assert recorder.of("on_chat_end")[0].response.usage == total
