"""Every LangChain run ends with exactly one of on_chat_done / on_chat_error / on_chat_abort,
then on_chat_end, also where LangChain's after_agent does not run: a framework error, an
error outside the bridge's hooks, the graph's recursion limit, a cancellation, a hook raising."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain.agents.middleware import AgentMiddleware
from langchain_scripted import Recorder, agent, ask, calls, conversation_model, script
from langgraph.errors import GraphRecursionError

from agenthooks import HookBus

TERMINAL = {"on_chat_done", "on_chat_error", "on_chat_abort", "on_chat_paused"}


def _ends(recorder: Recorder) -> list[str]:
    return [e for e in recorder.events if e in TERMINAL or e == "on_chat_end"]


def _errors(bus: HookBus) -> list[BaseException]:
    seen: list[BaseException] = []
    bus.on("on_chat_error", lambda ctx: seen.append(ctx.error))
    return seen


async def test_a_model_error_nothing_recovers_reaches_the_caller_after_on_chat_error() -> None:
    bus = HookBus()
    recorder = Recorder(bus)
    errors = _errors(bus)
    boom = ConnectionError("model down")
    with pytest.raises(ConnectionError) as caught:
        await agent(script(boom), bus).ainvoke(ask())
    assert caught.value is boom
    assert errors == [boom]
    assert recorder.events == [
        "on_chat_start",
        "on_user_message",
        "on_message",
        "pre_agent",
        "on_loop_start",
        "transform_context",
        "pre_request",
        "on_model_error",
        "on_loop_end",
        "on_chat_error",
        "on_chat_end",
    ]


class Broken(AgentMiddleware):  # type: ignore[type-arg]
    """Another middleware whose own node fails after the model answered: outside every hook
    of the bridge."""

    async def aafter_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        raise RuntimeError("broken middleware")


async def test_an_error_outside_the_bridges_hooks_still_ends_the_run() -> None:
    bus = HookBus()
    recorder = Recorder(bus)
    errors = _errors(bus)
    with pytest.raises(RuntimeError, match="broken middleware"):
        model = script(calls(("c1", "read_file", {"path": "/x"})), "x")
        await agent(model, bus, middleware=[Broken()]).ainvoke(ask())
    assert [type(e) for e in errors] == [RuntimeError]
    assert _ends(recorder) == ["on_chat_error", "on_chat_end"]
    assert recorder.events[-5:] == [
        "on_response",
        "on_message",  # the model's answer, then the other middleware failed
        "on_loop_end",
        "on_chat_error",
        "on_chat_end",
    ]


async def test_the_recursion_limit_ends_the_run_with_its_error() -> None:
    bus = HookBus()
    recorder = Recorder(bus)
    errors = _errors(bus)
    looping = script(*[calls((f"c{i}", "read_file", {"path": "/x"})) for i in range(10)])
    with pytest.raises(GraphRecursionError):
        await agent(looping, bus).ainvoke(ask(), {"recursion_limit": 5})
    assert [type(e) for e in errors] == [GraphRecursionError]
    assert _ends(recorder) == ["on_chat_error", "on_chat_end"]


async def test_a_cancelled_run_ends_with_on_chat_abort() -> None:
    bus = HookBus()
    recorder = Recorder(bus)
    started = asyncio.Event()
    bus.on("pre_tool_call", lambda ctx: started.set())
    model = script(calls(("c1", "slow_read", {"path": "/slow"})), "done")
    task = asyncio.ensure_future(agent(model, bus).ainvoke(ask()))
    await started.wait()
    await asyncio.sleep(0.01)  # the tool is sleeping now
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert _ends(recorder) == ["on_chat_abort", "on_chat_end"]
    assert recorder.of("on_chat_abort")[0].run_id == recorder.of("on_chat_start")[0].run_id


async def test_closing_the_stream_early_aborts_the_run() -> None:
    bus = HookBus()
    recorder = Recorder(bus)
    reasons: list[object] = []
    bus.on("on_chat_abort", lambda ctx: reasons.append(ctx.reason))
    stream = agent(conversation_model(), bus).astream(ask(), stream_mode="updates")
    async for _ in stream:
        break
    await stream.aclose()  # type: ignore[attr-defined]
    assert _ends(recorder) == ["on_chat_abort", "on_chat_end"]
    assert reasons == ["stream closed"]


async def test_a_streamed_run_ends_done() -> None:
    bus = HookBus()
    recorder = Recorder(bus)
    async for _ in agent(conversation_model(), bus).astream(ask(), stream_mode="updates"):
        pass
    assert _ends(recorder) == ["on_chat_done", "on_chat_end"]


async def test_a_hook_that_raises_ends_the_run_with_its_exception() -> None:
    bus = HookBus()
    recorder = Recorder(bus)
    errors = _errors(bus)

    def broken(ctx: Any) -> None:
        raise ValueError("bad hook")

    bus.on("pre_tool_call", broken)
    with pytest.raises(ValueError, match="bad hook"):
        await agent(conversation_model(), bus).ainvoke(ask())
    assert [type(e) for e in errors] == [ValueError]
    assert _ends(recorder) == ["on_chat_error", "on_chat_end"]


async def test_concurrent_runs_each_end_once_under_their_own_run_id() -> None:
    bus = HookBus()
    recorder = Recorder(bus)
    bridged = agent(script("one", "two"), bus)
    await asyncio.gather(bridged.ainvoke(ask("a")), bridged.ainvoke(ask("b")))
    runs = {r.run_id for r in recorder.records}
    assert len(runs) == 2
    for run_id in runs:
        mine = [r.type for r in recorder.records if r.run_id == run_id]
        assert mine[0] == "on_chat_start"
        assert mine[-2:] == ["on_chat_done", "on_chat_end"]
        assert sum(e in TERMINAL for e in mine) == 1


async def test_a_done_run_is_not_ended_again_when_the_graph_ends() -> None:
    bus = HookBus()
    recorder = Recorder(bus)
    await agent(conversation_model(), bus).ainvoke(ask())
    await asyncio.sleep(0)
    assert _ends(recorder) == ["on_chat_done", "on_chat_end"]


async def test_an_on_chat_done_handler_that_raises_reaches_the_caller() -> None:
    bus = HookBus()
    seen: list[str] = []

    def broken(ctx: Any) -> None:
        seen.append(ctx.response.content)
        raise ValueError("done handler failed")

    bus.on("on_chat_done", broken)
    with pytest.raises(ValueError, match="done handler failed"):
        await agent(conversation_model(), bus).ainvoke(ask())
    assert seen == ["done"]
