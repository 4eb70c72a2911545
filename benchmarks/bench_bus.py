"""The bus against its floors: what a hook costs beyond the code it replaces.

Run alone with ``python benchmarks/bench_bus.py`` or with every benchmark via
``python benchmarks/run.py`` (``make bench``). Every case runs in one asyncio loop; numbers
are ns per operation, best of N, with the empty loop subtracted (see ``_harness.py``).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import blinker
import pluggy

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import Row, measure, table

from agenthooks import HookBus, Middleware, Stack
from agenthooks.events import MessageContext, PreToolCallContext, ResponseContext
from agenthooks.messages import ChatMessage, ProviderResponse, ToolCall

hookspec = pluggy.HookspecMarker("bench")
hookimpl = pluggy.HookimplMarker("bench")


class Spec:
    @hookspec
    def on_message(self, ctx: Any) -> None: ...

    @hookspec
    def on_stop(self, ctx: Any) -> None: ...


class PluggyPlugin:
    @hookimpl
    def on_message(self, ctx: Any) -> None:
        return None


def observer() -> Any:
    """A trivial observer callable the bus (``h(ctx)``) and blinker (``h(sender, ctx=ctx)``)
    both can call, so all three dispatchers run the same amount of handler code."""

    def handler(arg: Any, ctx: Any = None) -> None:
        return None

    return handler


def noop(ctx: Any) -> None:
    return None


async def anoop(ctx: Any) -> None:
    return None


async def hand_emit(ctx: Any, handlers: tuple[Any, ...]) -> None:
    for h in handlers:
        h(ctx)


async def hand_pipeline(ctx: Any, handlers: tuple[Any, ...]) -> None:
    for h in handlers:
        result = h(ctx)
        if result is not None:
            ctx.response = result["response"]


def interceptor(i: int) -> Any:
    value = ProviderResponse(content=f"v{i}")

    def handler(ctx: ResponseContext) -> dict[str, Any]:
        return {"response": value}  # a new value for the next handler

    return handler


class PassThrough(Middleware):
    async def wrap(self, ctx: Any, call_next: Any) -> Any:
        return await call_next(ctx)


async def endpoint(ctx: Any) -> Any:
    return ctx


def hand_onion(call: Any) -> Any:
    """Five hand-nested async closures around ``call`` (built per call, as a runtime whose
    endpoint changes per call would have to)."""

    async def l5(ctx: Any) -> Any:
        return await call(ctx)

    async def l4(ctx: Any) -> Any:
        return await l5(ctx)

    async def l3(ctx: Any) -> Any:
        return await l4(ctx)

    async def l2(ctx: Any) -> Any:
        return await l3(ctx)

    async def l1(ctx: Any) -> Any:
        return await l2(ctx)

    return l1


def plugin_manager(count: int) -> pluggy.PluginManager:
    pm = pluggy.PluginManager("bench")
    pm.add_hookspecs(Spec)
    for _ in range(count):
        pm.register(PluggyPlugin())
    return pm


async def bench() -> list[Row]:
    rows: list[Row] = []
    message = MessageContext(message=ChatMessage(role="user", content="hi"))
    tool_ctx = PreToolCallContext(call=ToolCall(id="c", name="t"), tool_call_id="c")

    # (1) the zero-handler path ---------------------------------------------------------------
    bus = HookBus()
    bus.on("on_message", observer())  # another event is listened; these are not
    ours, floor = await measure(
        ('if "pre_tool_call" in bus.listened: pass', {"bus": bus}),
        ("f(ctx)", {"f": noop, "ctx": tool_ctx}),
    )
    rows.append(
        Row('no handlers: `if "pre_tool_call" in bus.listened` vs `f(ctx)`', ours, floor, target=3)
    )
    ours, floor, bl, pl = await measure(
        ('await bus.emit("on_stop", ctx)', {"bus": bus, "ctx": tool_ctx}),
        ("await f(ctx)", {"f": anoop, "ctx": tool_ctx}),
        ("sig.send(bus, ctx=ctx)", {"sig": blinker.Signal(), "bus": bus, "ctx": tool_ctx}),
        ("hook.on_stop(ctx=ctx)", {"hook": plugin_manager(0).hook, "ctx": tool_ctx}),
    )
    rows.append(
        Row(
            "no handlers: `await bus.emit(...)` vs `await async_noop(ctx)`",
            ours,
            floor,
            bl,
            pl,
            target=3,
        )
    )
    ours, floor = await measure(
        ('await bus.intercept("pre_tool_call", ctx)', {"bus": bus, "ctx": tool_ctx}),
        ("await f(ctx)", {"f": anoop, "ctx": tool_ctx}),
    )
    rows.append(
        Row(
            'no handlers: `await bus.intercept("pre_tool_call", ...)` vs `await async_noop(ctx)`',
            ours,
            floor,
            target=3,
        )
    )

    # (2) sync observers ----------------------------------------------------------------------
    for count in (1, 10):
        bus = HookBus()
        handlers = tuple(observer() for _ in range(count))
        signal = blinker.Signal()
        for h in handlers:
            bus.on("on_message", h)
            signal.connect(h, weak=False)
        ours, floor, bl, pl = await measure(
            ('await bus.emit("on_message", ctx)', {"bus": bus, "ctx": message}),
            ("await hand(ctx, hs)", {"hand": hand_emit, "hs": handlers, "ctx": message}),
            ("sig.send(bus, ctx=ctx)", {"sig": signal, "bus": bus, "ctx": message}),
            ("hook.on_message(ctx=ctx)", {"hook": plugin_manager(count).hook, "ctx": message}),
        )
        plural = "s" if count > 1 else ""
        rows.append(
            Row(
                f"{count} sync observer{plural}: `await bus.emit` vs hand loop", ours, floor, bl, pl
            )
        )

    # (3) interceptor chain -------------------------------------------------------------------
    bus = HookBus()
    chain = tuple(interceptor(i) for i in range(10))
    for h in chain:
        bus.on("on_response", h)
    response_ctx = ResponseContext(response=ProviderResponse(content="start"))
    ours, floor = await measure(
        ('await bus.intercept("on_response", ctx)', {"bus": bus, "ctx": response_ctx}),
        ("await hand(ctx, hs)", {"hand": hand_pipeline, "hs": chain, "ctx": response_ctx}),
    )
    rows.append(
        Row(
            "10 interceptors returning a new value: `await bus.intercept` vs hand pipeline",
            ours,
            floor,
            target=2,
        )
    )

    # (4) middleware onion --------------------------------------------------------------------
    stack = Stack(PassThrough() for _ in range(5))
    ours, floor = await measure(
        ("await app(ctx)", {"app": stack.compose(endpoint), "ctx": tool_ctx}),
        ("await app(ctx)", {"app": hand_onion(endpoint), "ctx": tool_ctx}),
    )
    rows.append(
        Row(
            "5 pass-through wrap middleware, built once: `await app(ctx)` vs 5 nested closures",
            ours,
            floor,
            target=1.5,
        )
    )
    ours, floor = await measure(
        ("await stack.compose(call)(ctx)", {"stack": stack, "call": endpoint, "ctx": tool_ctx}),
        ("await onion(call)(ctx)", {"onion": hand_onion, "call": endpoint, "ctx": tool_ctx}),
    )
    rows.append(
        Row(
            "5 pass-through wrap middleware, built per call: "
            "`await stack.compose(call)(ctx)` vs 5 nested closures built per call",
            ours,
            floor,
            target=1.5,
        )
    )
    return rows


def main() -> list[Row]:
    """Run the bus benchmarks and print their table."""
    rows = asyncio.run(bench())
    print("## bench_bus: the hook bus against hand-written code, blinker and pluggy\n")
    print(table(rows))
    print()
    return rows


if __name__ == "__main__":
    main()
