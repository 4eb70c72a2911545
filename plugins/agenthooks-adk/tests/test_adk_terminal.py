"""Exactly one terminal event and on_chat_end per ADK run, whatever ends it: an answer, a
framework error (which keeps its type), a cancellation, ADK's abort signal, a caller that
stops reading, a handler that raises."""

from __future__ import annotations

import asyncio
from typing import Any

import adk_scripted as s
import pytest

from agenthooks import HookBus
from agenthooks.errors import UnsupportedReturnError

MESSAGE = "Delete /tmp/a.txt and read /tmp/b.txt"


@pytest.fixture(autouse=True)
def _clean() -> None:
    s.RAN.clear()


def terminals(bus: HookBus) -> list[tuple[str, Any]]:
    seen: list[tuple[str, Any]] = []
    bus.on("on_chat_done", lambda ctx: seen.append(("on_chat_done", ctx.response.content)))
    bus.on("on_chat_error", lambda ctx: seen.append(("on_chat_error", ctx.error)))
    bus.on("on_chat_abort", lambda ctx: seen.append(("on_chat_abort", ctx.reason)))
    bus.on("on_chat_paused", lambda ctx: seen.append(("on_chat_paused", None)))
    bus.on("on_chat_end", lambda ctx: seen.append(("on_chat_end", None)))
    return seen


async def test_a_model_error_keeps_its_type_and_ends_the_run_with_on_chat_error() -> None:
    bus = HookBus()
    seen = s.recorder(bus)
    ends = terminals(bus)
    failure = ConnectionError("model down")
    with pytest.raises(ConnectionError) as info:
        await s.run(s.runner(bus, s.ScriptedLlm(script=[failure])), MESSAGE)
    assert info.value is failure
    assert ends == [("on_chat_error", failure), ("on_chat_end", None)]
    assert seen[-5:] == [
        "pre_request",
        "on_model_error",
        "on_loop_end",
        "on_chat_error",
        "on_chat_end",
    ]


async def test_a_tool_error_nobody_recovers_fails_the_run_as_adk_does_without_the_bridge() -> None:
    bus = HookBus()
    ends = terminals(bus)
    errors: list[str] = []
    bus.on("on_tool_call_error", lambda ctx: errors.append(type(ctx.error).__name__))
    model = s.ScriptedLlm(script=[s.model_turn(s.call("read_file", "c", path="/missing"))])
    with pytest.raises(FileNotFoundError):
        await s.run(s.runner(bus, model), "read it")
    assert errors == ["FileNotFoundError"]
    assert [name for name, _ in ends] == ["on_chat_error", "on_chat_end"]
    assert isinstance(ends[0][1], FileNotFoundError)


async def test_without_the_bridge_adk_raises_the_same_errors() -> None:
    with pytest.raises(ConnectionError):
        await s.run(s.runner(None, s.ScriptedLlm(script=[ConnectionError("x")])), MESSAGE)
    model = s.ScriptedLlm(script=[s.model_turn(s.call("read_file", "c", path="/missing"))])
    with pytest.raises(FileNotFoundError):
        await s.run(s.runner(None, model), "read it")


async def test_a_cancelled_run_ends_with_on_chat_abort() -> None:
    bus = HookBus()
    ends = terminals(bus)
    ended = asyncio.Event()
    bus.on("on_chat_end", lambda ctx: ended.set())
    started = asyncio.Event()

    async def hang(request: Any) -> Any:
        started.set()
        await asyncio.sleep(60)

    model = s.ScriptedLlm(script=[hang])
    task = asyncio.create_task(s.run(s.runner(bus, model), MESSAGE))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.wait_for(ended.wait(), 5)
    assert ends == [("on_chat_abort", "cancelled"), ("on_chat_end", None)]


async def test_a_cancelled_tool_call_ends_the_run_with_on_chat_abort_once() -> None:
    bus = HookBus()
    ends = terminals(bus)
    ended = asyncio.Event()
    bus.on("on_chat_end", lambda ctx: ended.set())
    started = asyncio.Event()

    async def slow_tool(path: str) -> str:
        """Wait."""
        started.set()
        await asyncio.sleep(60)
        return path

    bus.on("pre_tool_call", lambda ctx: None)
    model = s.ScriptedLlm(script=[s.model_turn(s.call("slow_tool", "c", path="/x"))])
    task = asyncio.create_task(s.run(s.runner(bus, model, [slow_tool]), "wait"))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.wait_for(ended.wait(), 5)
    await s.settle()
    assert ends == [("on_chat_abort", "cancelled"), ("on_chat_end", None)]


async def test_adks_abort_signal_ends_the_run_with_on_chat_abort() -> None:
    bus = HookBus()
    ends = terminals(bus)
    signal = asyncio.Event()

    async def abort(request: Any) -> Any:
        signal.set()
        await asyncio.sleep(0.05)
        return s.model_turn("too late")

    model = s.ScriptedLlm(script=[abort])
    await s.run(s.runner(bus, model), MESSAGE, abort_signal=signal)
    assert ends == [("on_chat_abort", "aborted"), ("on_chat_end", None)]


async def test_a_caller_that_stops_reading_ends_the_run_with_on_chat_abort() -> None:
    bus = HookBus()
    ends = terminals(bus)
    runner = s.runner(bus, s.ScriptedLlm(script=s.conversation()))
    stream = runner.run_async(user_id="u", session_id="s", new_message=s.user(MESSAGE))
    first = await anext(stream)
    assert first.get_function_calls()
    await stream.aclose()
    await s.settle()
    assert [name for name, _ in ends] == ["on_chat_abort", "on_chat_end"]


async def test_a_handler_that_raises_ends_the_run_with_its_error() -> None:
    bus = HookBus()
    ends = terminals(bus)
    bug = ValueError("a bug in a hook")

    def broken(ctx: Any) -> None:
        raise bug

    bus.on("pre_tool_call", broken)
    with pytest.raises(RuntimeError) as info:
        await s.run(s.runner(bus, s.ScriptedLlm(script=s.conversation())), MESSAGE)
    # ADK re-raises a plugin's exception as its RuntimeError, chained from ours
    assert info.value.__cause__ is bug
    assert ends == [("on_chat_error", bug), ("on_chat_end", None)]


async def test_a_replaced_model_error_adk_cannot_raise_is_a_typed_error() -> None:
    bus = HookBus()
    ends = terminals(bus)
    bus.on("on_model_error", lambda ctx: {"error": TimeoutError("replaced")})
    with pytest.raises(RuntimeError) as info:
        await s.run(s.runner(bus, s.ScriptedLlm(script=[ConnectionError("down")])), MESSAGE)
    error = info.value.__cause__
    assert isinstance(error, UnsupportedReturnError)
    assert (error.event, error.key, error.framework) == ("on_model_error", "error", "Google ADK")
    assert ends == [("on_chat_error", error), ("on_chat_end", None)]


async def test_two_runs_of_one_runner_are_two_runs() -> None:
    bus = HookBus()
    ends = terminals(bus)
    ids: set[str] = set()
    bus.on("on_chat_start", lambda ctx: ids.add(ctx.run_id))
    model = s.ScriptedLlm(script=[s.model_turn("one"), s.model_turn("two")])
    runner = s.runner(bus, model)
    await s.run(runner, "first")
    await s.run(runner, "second")
    assert len(ids) == 2
    assert ends == [
        ("on_chat_done", "one"),
        ("on_chat_end", None),
        ("on_chat_done", "two"),
        ("on_chat_end", None),
    ]


async def test_a_run_cancelled_while_its_start_is_heard_ends_with_on_chat_abort() -> None:
    bus = HookBus()
    ends = terminals(bus)
    started = asyncio.Event()

    async def slow_start(ctx: Any) -> None:
        started.set()
        await asyncio.sleep(60)

    bus.on("on_chat_start", slow_start)
    model = s.ScriptedLlm(script=s.conversation())
    task = asyncio.create_task(s.run(s.runner(bus, model), MESSAGE))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert model.requests == []
    assert ends == [("on_chat_abort", "cancelled"), ("on_chat_end", None)]
