"""Middleware and stacks: phase order, short-circuit, recovery, wrap, bus.use and stacks=."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agenthooks import Disposer, HookBus, Middleware, Stack
from agenthooks.middleware import CallNext


class Trace(Middleware):
    """Records its phases; optionally short-circuits, replaces or recovers."""

    def __init__(
        self,
        name: str,
        calls: list[str],
        *,
        early: Any = None,
        replace: Any = None,
        recover: Any = None,
    ) -> None:
        self.label, self.calls = name, calls
        self.early, self.replace, self.recover = early, replace, recover

    def before(self, ctx: Any) -> Any:
        self.calls.append(f"{self.label}.before")
        return self.early

    def after(self, ctx: Any, value: Any) -> Any:
        self.calls.append(f"{self.label}.after({value})")
        return self.replace

    def on_error(self, ctx: Any, exc: Exception) -> Any:
        self.calls.append(f"{self.label}.on_error({exc})")
        return self.recover


def endpoint(calls: list[str], value: Any = "v") -> CallNext:
    async def call(ctx: Any) -> Any:
        calls.append("call")
        return value

    return call


def failing(calls: list[str], exc: Exception) -> CallNext:
    async def call(ctx: Any) -> Any:
        calls.append("call")
        raise exc

    return call


async def test_before_in_stack_order_after_in_reverse() -> None:
    calls: list[str] = []
    stack = Stack([Trace("m1", calls), Trace("m2", calls), Trace("m3", calls)])
    assert await stack.compose(endpoint(calls))(object()) == "v"
    assert calls == [
        "m1.before",
        "m2.before",
        "m3.before",
        "call",
        "m3.after(v)",
        "m2.after(v)",
        "m1.after(v)",
    ]


async def test_before_short_circuit_skips_inner_layers_and_the_call() -> None:
    calls: list[str] = []
    stack = Stack([Trace("m1", calls), Trace("m2", calls, early="cached"), Trace("m3", calls)])
    assert await stack.compose(endpoint(calls))(object()) == "cached"
    # the short-circuiting layer's own after does not run; the outer layers see the value
    assert calls == ["m1.before", "m2.before", "m1.after(cached)"]


async def test_after_replaces_and_outer_layers_see_the_replacement() -> None:
    calls: list[str] = []
    stack = Stack([Trace("m1", calls), Trace("m2", calls, replace="v2")])
    assert await stack.compose(endpoint(calls))(object()) == "v2"
    assert calls == ["m1.before", "m2.before", "call", "m2.after(v)", "m1.after(v2)"]


async def test_on_error_runs_in_reverse_and_the_first_recovery_wins() -> None:
    calls: list[str] = []
    stack = Stack([Trace("m1", calls), Trace("m2", calls, recover="saved"), Trace("m3", calls)])
    assert await stack.compose(failing(calls, ConnectionError("down")))(object()) == "saved"
    # after a recovery the recovering layer's after and the outer afters see the value
    assert calls == [
        "m1.before",
        "m2.before",
        "m3.before",
        "call",
        "m3.on_error(down)",
        "m2.on_error(down)",
        "m2.after(saved)",
        "m1.after(saved)",
    ]


async def test_unrecovered_error_keeps_its_identity() -> None:
    calls: list[str] = []
    exc = ConnectionError("down")
    stack = Stack([Trace("m1", calls), Trace("m2", calls)])
    with pytest.raises(ConnectionError) as info:
        await stack.compose(failing(calls, exc))(object())
    assert info.value is exc
    assert calls == ["m1.before", "m2.before", "call", "m2.on_error(down)", "m1.on_error(down)"]


async def test_an_error_in_after_goes_to_the_outer_on_error() -> None:
    calls: list[str] = []

    class BadAfter(Trace):
        def after(self, ctx: Any, value: Any) -> Any:
            calls.append("bad.after")
            raise ValueError("after failed")

    stack = Stack([Trace("outer", calls, recover="fixed"), BadAfter("bad", calls)])
    assert await stack.compose(endpoint(calls))(object()) == "fixed"
    assert calls == [
        "outer.before",
        "bad.before",
        "call",
        "bad.after",
        "outer.on_error(after failed)",
        "outer.after(fixed)",
    ]


async def test_sync_and_async_phases_mix() -> None:
    calls: list[str] = []

    class Async(Middleware):
        async def before(self, ctx: Any) -> None:
            await asyncio.sleep(0)
            calls.append("async.before")

        async def after(self, ctx: Any, value: Any) -> Any:
            await asyncio.sleep(0)
            calls.append("async.after")
            return value + 1

    class Sync(Middleware):
        def before(self, ctx: Any) -> None:
            calls.append("sync.before")

        def after(self, ctx: Any, value: Any) -> Any:
            calls.append("sync.after")
            return value * 10

    stack = Stack([Async(), Sync()])
    assert await stack.compose(endpoint(calls, 1))(object()) == 11
    assert calls == ["async.before", "sync.before", "call", "sync.after", "async.after"]


async def test_async_on_error_recovers() -> None:
    class Fallback(Middleware):
        async def on_error(self, ctx: Any, exc: Exception) -> Any:
            await asyncio.sleep(0)
            return f"fallback after {type(exc).__name__}"

    app = Stack([Fallback()]).compose(failing([], TimeoutError()))
    assert await app(object()) == "fallback after TimeoutError"


async def test_a_middleware_without_phases_passes_through() -> None:
    calls: list[str] = []
    assert await Stack([Middleware(), Middleware()]).compose(endpoint(calls))(object()) == "v"
    assert calls == ["call"]


async def test_wrap_style_retry_and_context_replacement() -> None:
    calls: list[str] = []
    attempts = {"n": 0}

    class Retry(Middleware):
        async def wrap(self, ctx: Any, call_next: CallNext) -> Any:
            for attempt in range(3):
                try:
                    return await call_next(ctx)
                except ConnectionError:
                    calls.append(f"retry {attempt}")
            raise RuntimeError("gave up")

    class Rewrite(Middleware):
        async def wrap(self, ctx: Any, call_next: CallNext) -> Any:
            value = await call_next({**ctx, "rewritten": True})
            return f"<{value}>"

    async def flaky(ctx: dict[str, Any]) -> str:
        attempts["n"] += 1
        calls.append(f"call {ctx}")
        if attempts["n"] < 3:
            raise ConnectionError
        return "ok"

    app = Stack([Retry(), Trace("t", calls), Rewrite()]).compose(flaky)
    assert await app({"q": 1}) == "<ok>"
    assert calls == [
        "t.before",
        "call {'q': 1, 'rewritten': True}",
        "t.on_error()",
        "retry 0",
        "t.before",
        "call {'q': 1, 'rewritten': True}",
        "t.on_error()",
        "retry 1",
        "t.before",
        "call {'q': 1, 'rewritten': True}",
        "t.after(<ok>)",
    ]


async def test_wrap_may_short_circuit_without_calling_next() -> None:
    calls: list[str] = []

    class Cache(Middleware):
        async def wrap(self, ctx: Any, call_next: CallNext) -> Any:
            return "hit"

    assert await Stack([Trace("t", calls), Cache()]).compose(endpoint(calls))(1) == "hit"
    assert calls == ["t.before", "t.after(hit)"]


async def test_cancellation_is_not_an_error_to_recover_from() -> None:
    calls: list[str] = []
    app = Stack([Trace("t", calls, recover="nope")]).compose(
        failing(calls, asyncio.CancelledError())
    )  # type: ignore[arg-type]
    with pytest.raises(asyncio.CancelledError):
        await app(object())
    assert calls == ["t.before", "call"]


def test_stack_is_an_immutable_snapshot() -> None:
    a, b = Middleware(), Middleware()
    empty = Stack()
    assert not empty and len(empty) == 0
    s1 = Stack([a])
    s2 = s1 + [b]
    assert s1.layers == (a,) and s2.layers == (a, b)
    assert s1 + [] is s1
    assert (s1 + Stack([b])).layers == (a, b)
    assert bool(s2) and len(s2) == 2


# bus.use ------------------------------------------------------------------------------------


class ProviderOnly(Middleware):
    stacks = ("provider",)


class ToolOnly(Middleware):
    stacks = ("tool",)


def test_use_returns_a_disposer_and_routes_by_declared_stacks() -> None:
    bus = HookBus()
    both, prov, tool = Middleware(), ProviderOnly(), ToolOnly()
    d_both = bus.use(both)
    d_prov = bus.use(prov)
    d_tool = bus.use(tool)
    assert all(isinstance(d, Disposer) for d in (d_both, d_prov, d_tool))
    assert bus.provider_stack.layers == (both, prov)
    assert bus.tool_stack.layers == (both, tool)
    d_both()
    d_both()  # idempotent
    assert bus.provider_stack.layers == (prov,)
    assert bus.tool_stack.layers == (tool,)
    with d_prov:
        pass
    assert bus.provider_stack.layers == ()
    d_tool()
    assert not bus.tool_stack


async def test_use_rebuilds_the_stack_and_a_call_keeps_its_snapshot() -> None:
    bus = HookBus()
    calls: list[str] = []
    bus.use(Trace("first", calls))
    snapshot = bus.provider_stack
    app = snapshot.compose(endpoint(calls))
    dispose = bus.use(Trace("second", calls))
    assert bus.provider_stack is not snapshot
    assert len(snapshot) == 1 and len(bus.provider_stack) == 2
    await app(None)
    assert calls == ["first.before", "call", "first.after(v)"]
    calls.clear()
    await bus.provider_stack.compose(endpoint(calls))(None)
    assert calls == ["first.before", "second.before", "call", "second.after(v)", "first.after(v)"]
    dispose()
    calls.clear()
    await bus.tool_stack.compose(endpoint(calls))(None)
    assert calls == ["first.before", "call", "first.after(v)"]
