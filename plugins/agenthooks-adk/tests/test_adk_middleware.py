"""The bus's middleware wraps ADK's own model and tool calls, inside the hook layer; a run's
handlers never overlap, also when ADK runs the tool calls of a turn in parallel."""

from __future__ import annotations

import asyncio
from typing import Any

import adk_scripted as s
import pytest
from agenthooks_retry import RetryMiddleware

from agenthooks import HookBus, Middleware, ProviderConnectionError


@pytest.fixture(autouse=True)
def _clean() -> None:
    s.RAN.clear()


async def test_middleware_wraps_adks_calls_inside_the_hook_layer() -> None:
    calls: list[str] = []

    class Around(Middleware):
        async def wrap(self, ctx: Any, call_next: Any) -> Any:
            calls.append(f"in:{type(ctx).__name__}")
            value = await call_next(ctx)
            calls.append("out")
            return value

    bus = HookBus()
    bus.use(Around())
    bus.on("pre_request", lambda ctx: calls.append("pre_request"))
    bus.on("on_response", lambda ctx: calls.append("on_response"))
    bus.on("pre_tool_call", lambda ctx: calls.append("pre_tool_call"))
    bus.on("on_tool_call_result", lambda ctx: calls.append(f"result:{ctx.result}"))
    model = s.ScriptedLlm(
        script=[s.model_turn(s.call("read_file", "c", path="/b")), s.model_turn("ok")]
    )
    await s.run(s.runner(bus, model), "read it")
    assert calls == [
        "pre_request",
        "in:PreRequestContext",
        "out",
        "on_response",
        "pre_tool_call",
        "in:PreToolCallContext",
        "out",
        "result:contents of /b",
        "pre_request",
        "in:PreRequestContext",
        "out",
        "on_response",
    ]


async def test_the_retry_plugin_calls_adks_model_again() -> None:
    bus = HookBus()
    bus.use(RetryMiddleware(attempts=2, initial=0.001, max_backoff=0.001, jitter=0))
    errors: list[Any] = []
    bus.on("on_model_error", lambda ctx: errors.append(ctx.error))
    model = s.ScriptedLlm(
        script=[ProviderConnectionError("connection dropped"), s.model_turn("ok")]
    )
    events = await s.run(s.runner(bus, model), "hi")
    assert s.final_text(events) == "ok"
    assert len(model.requests) == 2 and errors == []
    assert model.requests[1].contents == model.requests[0].contents


async def test_handlers_never_overlap_while_adk_runs_the_tools_in_parallel() -> None:
    bus = HookBus()
    active, most = 0, 0
    running: list[str] = []
    overlap = asyncio.Event()

    async def slow_tool(path: str) -> str:
        """Take a while."""
        running.append(path)
        if len(running) == 2:
            overlap.set()
        await asyncio.wait_for(overlap.wait(), 5)  # both bodies run at once
        return path

    async def slow(ctx: Any) -> None:
        nonlocal active, most
        active += 1
        most = max(most, active)
        await asyncio.sleep(0.01)
        active -= 1

    for event in ("pre_tool_call", "on_tool_call_result", "on_message"):
        bus.on(event, slow)
    model = s.ScriptedLlm(
        script=[
            s.model_turn(
                s.call("slow_tool", "c1", path="/1"), s.call("slow_tool", "c2", path="/2")
            ),
            s.model_turn("ok"),
        ]
    )
    events = await s.run(s.runner(bus, model, [slow_tool]), "go")
    assert s.final_text(events) == "ok"
    assert sorted(running) == ["/1", "/2"]
    assert most == 1
