"""Aborts in real runs: task cancellation, the abort signal, closing a stream early; open tool
calls get their "cancelled" message first, and every run ends with exactly one terminal event."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import pytest

from agenthooks import (
    Agent,
    ChatMessage,
    Deny,
    ProviderRequest,
    ProviderResponse,
    RunAborted,
    ScriptedProvider,
    Session,
    TextDelta,
    ToolCall,
    ToolCallStart,
    tool,
)

TERMINAL = ("on_chat_done", "on_chat_abort", "on_chat_error")


class Gate:
    """Tools and provider steps that block until the test lets them go."""

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.release = asyncio.Event()
        self.cancelled: list[str] = []


def make_tools(gate: Gate) -> list[Any]:
    @tool
    def quick(job: str) -> str:
        """A quick job."""
        return f"{job} done"

    @tool
    async def slow(job: str) -> str:
        """A slow job."""
        gate.started.set()
        try:
            await gate.release.wait()
        except asyncio.CancelledError:
            gate.cancelled.append(job)
            raise
        return f"{job} finally done"

    return [quick, slow]


def both() -> ProviderResponse:
    return ProviderResponse(
        finish_reason="tool_calls",
        tool_calls=[
            ToolCall(id="c1", name="quick", arguments={"job": "a"}),
            ToolCall(id="c2", name="slow", arguments={"job": "b"}),
        ],
    )


def make_agent(gate: Gate, *script: Any, **options: Any) -> tuple[Agent, ScriptedProvider]:
    provider = ScriptedProvider(list(script))
    return Agent("worker", "Work.", provider=provider, tools=make_tools(gate), **options), provider


def assert_no_dangling_call(history: list[ChatMessage]) -> None:
    """Every tool call of the transcript has exactly one tool message, right after its turn."""
    answered = Counter(m.tool_call_id for m in history if m.role == "tool")
    asked = [c.id for m in history for c in m.tool_calls]
    assert Counter(asked) == answered


def terminal(names: list[str]) -> list[str]:
    return [n for n in names if n in TERMINAL]


USER = ChatMessage(role="user", content="work")
ASSISTANT = ChatMessage(role="assistant", tool_calls=both().tool_calls)
QUICK = ChatMessage(role="tool", content="a done", tool_call_id="c1", name="quick")
CANCELLED = ChatMessage(
    role="tool", content="cancelled", tool_call_id="c2", name="slow", is_error=True
)


# task cancellation ------------------------------------------------------------------------


async def test_cancelling_the_task_mid_tool(recorder: Any) -> None:
    gate = Gate()
    agent, provider = make_agent(gate, both(), "next chat")
    recorder.attach(agent)

    task = asyncio.ensure_future(agent.chat("work"))
    await gate.started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    assert gate.cancelled == ["b"]
    assert agent.history == [USER, ASSISTANT, QUICK, CANCELLED]
    assert recorder.names[-5:] == [
        "on_message",
        "pre_tool_call",
        "on_message",
        "on_chat_abort",
        "on_chat_end",
    ]
    assert recorder.of("on_message")[-1].message == CANCELLED  # written before on_chat_abort
    assert recorder.of("on_chat_abort")[0].reason == "cancelled"
    end = recorder.of("on_chat_end")[0]
    assert end.response is None and isinstance(end.error, asyncio.CancelledError)
    assert terminal(recorder.names) == ["on_chat_abort"]
    assert "on_tool_call_result" not in recorder.names[-4:]

    # the agent is usable again, and the provider gets a valid transcript
    response = await agent.chat("again")
    assert response.content == "next chat"
    assert provider.requests[1].messages == [
        USER,
        ASSISTANT,
        QUICK,
        CANCELLED,
        ChatMessage(role="user", content="again"),
    ]


async def test_cancelling_a_parallel_batch_answers_every_open_call(recorder: Any) -> None:
    gate = Gate()
    agent, _ = make_agent(gate, both(), parallel_tool_calls=True)
    recorder.attach(agent)

    task = asyncio.ensure_future(agent.chat("work"))
    await gate.started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    # the batch's messages are written after the batch: both calls were still open
    assert agent.history[2:] == [
        ChatMessage(
            role="tool", content="cancelled", tool_call_id="c1", name="quick", is_error=True
        ),
        CANCELLED,
    ]
    assert_no_dangling_call(agent.history)
    assert recorder.names[-6:] == [
        "pre_tool_call",
        "pre_tool_call",
        "on_message",
        "on_message",
        "on_chat_abort",
        "on_chat_end",
    ]


async def test_cancelling_during_the_provider_call(recorder: Any) -> None:
    gate = Gate()

    async def hang(request: ProviderRequest) -> str:
        gate.started.set()
        await gate.release.wait()
        return "never"

    agent, _ = make_agent(gate, hang)
    recorder.attach(agent)

    task = asyncio.ensure_future(agent.chat("work"))
    await gate.started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    assert agent.history == [USER]
    assert recorder.names[-4:] == [
        "transform_context",
        "pre_request",
        "on_chat_abort",
        "on_chat_end",
    ]
    assert "on_model_error" not in recorder.names  # a cancellation is not a provider error


async def test_a_second_cancellation_waits_for_the_teardown(recorder: Any) -> None:
    gate = Gate()
    agent, _ = make_agent(gate, both())
    recorder.attach(agent)
    in_teardown = asyncio.Event()
    finish_teardown = asyncio.Event()

    async def flush(ctx: Any) -> None:
        in_teardown.set()
        await finish_teardown.wait()

    agent.on("on_chat_abort", flush)

    task = asyncio.ensure_future(agent.chat("work"))
    await gate.started.wait()
    task.cancel()
    await in_teardown.wait()
    task.cancel()  # a second cancellation, during on_chat_abort
    await asyncio.sleep(0)
    assert not task.done()
    finish_teardown.set()
    with pytest.raises(asyncio.CancelledError):
        await task

    assert recorder.names[-2:] == ["on_chat_abort", "on_chat_end"]
    assert terminal(recorder.names) == ["on_chat_abort"]


async def test_a_hanging_abort_handler_is_bounded_and_on_chat_end_still_fires(
    recorder: Any,
) -> None:
    gate = Gate()
    agent, _ = make_agent(gate, both(), abort_timeout=0.01)
    recorder.attach(agent)
    never = asyncio.Event()

    async def stuck(ctx: Any) -> None:
        await never.wait()

    agent.on("on_chat_abort", stuck)

    task = asyncio.ensure_future(agent.chat("work"))
    await gate.started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    # each teardown step has its own bound: on_chat_end is "always, once"
    assert recorder.names[-2:] == ["on_chat_abort", "on_chat_end"]


# the abort signal -------------------------------------------------------------------------


async def test_setting_the_signal_mid_tool_raises_run_aborted(recorder: Any) -> None:
    gate = Gate()
    agent, _ = make_agent(gate, both())
    recorder.attach(agent)
    signal = asyncio.Event()

    task = asyncio.ensure_future(agent.chat("work", signal=signal))
    await gate.started.wait()
    signal.set()
    with pytest.raises(RunAborted) as caught:
        await task

    assert str(caught.value) == "run aborted: aborted"
    assert caught.value.reason == "aborted"
    assert gate.cancelled == ["b"]
    assert agent.history == [USER, ASSISTANT, QUICK, CANCELLED]
    assert recorder.names[-3:] == ["on_message", "on_chat_abort", "on_chat_end"]
    assert recorder.of("on_message")[-1].message == CANCELLED
    assert recorder.of("on_chat_abort")[0].reason == "aborted"
    assert recorder.of("on_chat_end")[0].error is caught.value
    assert all(ctx.signal is signal for _, ctx in recorder.events)
    assert terminal(recorder.names) == ["on_chat_abort"]


async def test_a_signal_set_before_the_run_aborts_at_once(recorder: Any) -> None:
    gate = Gate()
    agent, provider = make_agent(gate, "never")
    recorder.attach(agent)
    signal = asyncio.Event()
    signal.set()

    with pytest.raises(RunAborted):
        await agent.chat("work", signal=signal)

    assert recorder.names == ["on_chat_abort", "on_chat_end"]
    assert provider.requests == []
    assert agent.history == []


async def test_an_unset_signal_changes_nothing(recorder: Any) -> None:
    gate = Gate()
    gate.release.set()
    agent, _ = make_agent(gate, both(), "done")
    recorder.attach(agent)

    response = await agent.chat("work", signal=asyncio.Event())

    assert response.content == "done"
    assert terminal(recorder.names) == ["on_chat_done"]
    assert agent.history[3] == ChatMessage(
        role="tool", content="b finally done", tool_call_id="c2", name="slow"
    )


# closing a stream -------------------------------------------------------------------------


async def test_closing_a_stream_early_aborts_its_run(recorder: Any) -> None:
    gate = Gate()
    agent, _ = make_agent(
        gate,
        ProviderResponse(
            content="Working on it now.", finish_reason="tool_calls", tool_calls=both().tool_calls
        ),
        "never",
    )
    recorder.attach(agent)

    stream = agent.chat_stream("work")
    first = await stream.__anext__()
    assert first == TextDelta("Working ")
    await stream.aclose()

    assert terminal(recorder.names) == ["on_chat_abort"]
    assert recorder.names[-2:] == ["on_chat_abort", "on_chat_end"]
    assert recorder.of("on_chat_abort")[0].reason == "stream closed"
    assert isinstance(recorder.of("on_chat_end")[0].error, asyncio.CancelledError)
    assert_no_dangling_call(agent.history)
    assert gate.cancelled == []  # the run stopped before the slow tool ever started


async def test_closing_a_stream_mid_tool_cancels_the_tool(recorder: Any) -> None:
    gate = Gate()
    agent, _ = make_agent(gate, both(), "never")
    recorder.attach(agent)

    stream = agent.chat_stream("work")
    async for item in stream:
        if isinstance(item, ToolCallStart) and item.call.name == "slow":
            break
    await gate.started.wait()
    await stream.aclose()

    assert gate.cancelled == ["b"]
    assert agent.history[-1] == CANCELLED
    assert_no_dangling_call(agent.history)
    assert recorder.names[-3:] == ["on_message", "on_chat_abort", "on_chat_end"]
    assert recorder.of("on_chat_abort")[0].reason == "stream closed"


# exactly one terminal event ---------------------------------------------------------------


async def _done(agent: Agent) -> None:
    await agent.chat("work")


async def _denied(agent: Agent) -> None:
    agent.on("pre_request", lambda ctx: Deny("no"))
    await agent.chat("work")


async def _failed(agent: Agent) -> None:
    agent.on("on_response", lambda ctx: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        await agent.chat("work")


async def _done_handler_raises(agent: Agent) -> None:
    agent.on("on_chat_done", lambda ctx: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        await agent.chat("work")


async def _streamed(agent: Agent) -> None:
    items = [item async for item in agent.chat_stream("work")]
    assert items[-1].response.content == "done"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("scenario", "expected"),
    [
        (_done, "on_chat_done"),
        (_denied, "on_chat_done"),
        (_failed, "on_chat_error"),
        (_done_handler_raises, "on_chat_done"),
        (_streamed, "on_chat_done"),
    ],
)
async def test_exactly_one_terminal_event_then_on_chat_end(
    recorder: Any, scenario: Any, expected: str
) -> None:
    gate = Gate()
    gate.release.set()
    agent, _ = make_agent(gate, both(), "done")
    recorder.attach(agent)

    await scenario(agent)

    assert terminal(recorder.names) == [expected]
    assert recorder.names.count("on_chat_end") == 1
    assert recorder.names.index("on_chat_end") == len(recorder.names) - 1
    assert recorder.names.index(expected) == len(recorder.names) - 2
    assert_no_dangling_call(agent.history)


async def test_closing_a_session_stream_early_aborts_its_run(recorder: Any) -> None:
    gate = Gate()
    agent, _ = make_agent(
        gate, ProviderResponse(content="Thinking about it.", tool_calls=both().tool_calls), "never"
    )
    recorder.attach(agent)
    session = Session(agent)

    stream = session.chat_stream("work")
    assert await stream.__anext__() == TextDelta("Thinking ")
    await stream.aclose()

    assert recorder.names[-3:] == ["on_chat_abort", "on_chat_end", "on_session_end"]
    assert recorder.of("on_chat_abort")[0].reason == "stream closed"
    assert_no_dangling_call(session.history)


async def test_the_signal_aborts_a_stream_with_run_aborted(recorder: Any) -> None:
    gate = Gate()
    agent, _ = make_agent(gate, both(), "never")
    recorder.attach(agent)
    signal = asyncio.Event()
    seen: list[Any] = []

    with pytest.raises(RunAborted):
        async for item in agent.chat_stream("work", signal=signal):
            seen.append(item)
            if isinstance(item, ToolCallStart) and item.call.name == "slow":
                await gate.started.wait()
                signal.set()

    assert gate.cancelled == ["b"]
    assert agent.history[-1] == CANCELLED
    assert terminal(recorder.names) == ["on_chat_abort"]
    assert recorder.of("on_chat_abort")[0].reason == "aborted"
    assert recorder.names[-2:] == ["on_chat_abort", "on_chat_end"]
