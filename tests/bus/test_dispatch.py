"""HookBus dispatch of observers: order, sync and async handlers, the zero-handler fast path."""

from __future__ import annotations

import asyncio
import functools

import pytest

from agenthooks import HookBus, UnknownEventError
from agenthooks.errors import IgnoredReturnWarning
from agenthooks.events import (
    CATALOG,
    LoopContext,
    MessageContext,
    ResponseContext,
    StopContext,
    TurnContext,
)
from agenthooks.messages import ChatMessage, ProviderResponse


def noop(ctx: object) -> None:
    pass


def message(text: str = "hi") -> MessageContext:
    return MessageContext(message=ChatMessage(role="user", content=text))


async def test_sync_and_async_handlers_run_in_order_one_at_a_time() -> None:
    bus = HookBus()
    calls: list[str] = []

    async def slow(ctx: MessageContext) -> None:
        calls.append("slow:start")
        await asyncio.sleep(0.01)
        await asyncio.sleep(0)
        calls.append("slow:end")

    def sync(ctx: MessageContext) -> None:
        calls.append("sync")

    async def fast(ctx: MessageContext) -> None:
        calls.append("fast")

    bus.on("on_message", slow)
    bus.on("on_message", sync)
    bus.on("on_message", fast)
    bus.on("on_message", sync)
    await bus.emit("on_message", message())
    assert calls == ["slow:start", "slow:end", "sync", "fast", "sync"]


async def test_handlers_see_the_same_context_object() -> None:
    bus = HookBus()
    seen: list[object] = []
    ctx = message()
    bus.on("on_message", seen.append)
    bus.on("on_message", lambda c: seen.append(c))
    await bus.emit("on_message", ctx)
    assert seen == [ctx, ctx]
    assert seen[0] is ctx and seen[1] is ctx


async def test_observer_return_values_are_ignored() -> None:
    bus = HookBus()
    bus.on("on_message", lambda ctx: {"message": "ignored"})
    bus.on("on_loop_start", lambda ctx: "anything")
    ctx = message("kept")
    with pytest.warns(IgnoredReturnWarning) as caught:  # ignored, not in silence
        assert await bus.emit("on_message", ctx) is None
        assert await bus.emit("on_loop_start", LoopContext(iteration=0)) is None
    assert ctx.message.content == "kept"
    assert len(caught) == 2


async def test_awaitables_returned_by_sync_callables_are_awaited() -> None:
    bus = HookBus()
    calls: list[str] = []

    async def target(label: str, ctx: object) -> None:
        await asyncio.sleep(0)
        calls.append(label)

    class AsyncCallable:
        async def __call__(self, ctx: object) -> None:
            calls.append("object")

    bus.on("on_message", functools.partial(target, "partial"))  # not a coroutine function
    bus.on("on_message", AsyncCallable())
    bus.on("on_message", lambda ctx: target("lambda", ctx))
    await bus.emit("on_message", message())
    assert calls == ["partial", "object", "lambda"]


async def test_emit_works_on_every_observer_event() -> None:
    bus = HookBus()
    seen: list[str] = []
    observers = [s for s in CATALOG.values() if s.kind == "observer" and s.name != "on_event"]
    for spec in observers:
        bus.on(spec.name, lambda ctx, n=spec.name: seen.append(n))
    for spec in observers:
        await bus.emit(spec.name, spec.context())
    assert seen == [s.name for s in observers]


async def test_a_bus_shared_by_concurrent_runs_serves_them_concurrently() -> None:
    bus = HookBus()
    calls: list[str] = []

    async def handler(ctx: MessageContext) -> None:
        calls.append(f"start:{ctx.run_id}")
        await asyncio.sleep(0.01)
        calls.append(f"end:{ctx.run_id}")

    bus.on("on_message", handler)
    a = MessageContext(run_id="a", message=ChatMessage(role="user"))
    b = MessageContext(run_id="b", message=ChatMessage(role="user"))
    await asyncio.gather(bus.emit("on_message", a), bus.emit("on_message", b))
    assert calls == ["start:a", "start:b", "end:a", "end:b"]


# emitting by alias ----------------------------------------------------------------------


async def test_emit_run_and_check_accept_aliases() -> None:
    bus = HookBus()
    calls: list[str] = []
    bus.on("on_message", lambda ctx: calls.append("message"))
    bus.on("on_response", lambda ctx: {"response": ProviderResponse(content="new")})
    bus.on("should_stop", lambda ctx: True)
    await bus.emit("onMessage", message())
    ctx = ResponseContext(response=ProviderResponse(content="old"))
    assert await bus.intercept("PostModelCall", ctx) is None
    assert await bus.check("ShouldStopAfterTurn", TurnContext()) is True
    assert calls == ["message"]
    assert ctx.response.content == "new"


async def test_emit_of_an_unknown_event_raises() -> None:
    bus = HookBus()
    for call in (
        bus.emit("on_mesage", message()),
        bus.intercept("pre_reqest", message()),
        bus.check("should_stp", TurnContext()),
    ):
        with pytest.raises(UnknownEventError):
            await call


async def test_emit_of_an_unknown_event_raises_when_handlers_exist_elsewhere() -> None:
    bus = HookBus()
    bus.on("on_event", noop)  # every event listened
    with pytest.raises(UnknownEventError) as info:
        await bus.emit("on_mesage", message())
    assert str(info.value).startswith("unknown event 'on_mesage'; did you mean 'on_message'")


# the zero-handler fast path -------------------------------------------------------------


async def test_listened_tracks_events_with_handlers() -> None:
    bus = HookBus()
    assert bus.listened == frozenset()
    d1 = bus.on("on_message", noop)
    d2 = bus.on("pre_tool_call", noop, guard=True)
    assert bus.listened == {"on_message", "pre_tool_call"}
    d1()
    assert bus.listened == {"pre_tool_call"}
    d2()
    assert bus.listened == frozenset()


async def test_a_handler_on_on_event_makes_every_event_listened() -> None:
    bus = HookBus()
    dispose = bus.on("on_event", noop)
    assert bus.listened == frozenset(CATALOG)
    dispose()
    assert bus.listened == frozenset()


async def test_zero_handler_emissions_return_at_once() -> None:
    bus = HookBus()
    bus.on("on_message", noop)  # another event has a handler
    ctx = StopContext(reason="max_turns")
    assert await bus.emit("on_stop", ctx) is None
    assert await bus.intercept("pre_request", ctx) is None
    assert await bus.check("should_stop", ctx) is False
    assert "on_stop" not in bus.listened


async def test_the_runtime_check_skips_building_a_context() -> None:
    bus = HookBus()
    built: list[str] = []

    def build() -> MessageContext:
        built.append("ctx")
        return message()

    async def emit_message() -> None:
        if "on_message" in bus.listened:
            await bus.emit("on_message", build())

    await emit_message()
    assert built == []
    bus.on("on_message", noop)
    await emit_message()
    assert built == ["ctx"]
