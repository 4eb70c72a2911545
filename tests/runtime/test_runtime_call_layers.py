"""The hook layer of the provider and tool calls, composed with middleware around plain async
callables as the runtime composes them.

The hook layer is outermost: pre_request / pre_tool_call hooks run before every middleware,
on_response / on_tool_call_result hooks after every middleware, and the error events see only
what the middleware gave up on.
"""

from __future__ import annotations

from typing import Any

import pytest
import structlog

from agenthooks import Deny, HookBus, Middleware
from agenthooks.events import (
    ModelErrorContext,
    PreRequestContext,
    PreToolCallContext,
    ResponseContext,
    ToolErrorContext,
    ToolResultContext,
)
from agenthooks.messages import ProviderRequest, ProviderResponse, ToolCall
from agenthooks.middleware import CallNext, Stack
from agenthooks.runtime.model_call import ModelHooks
from agenthooks.runtime.tool_call import ToolHooks, ToolOutcome


async def call_provider(bus: HookBus, ctx: Any, endpoint: CallNext, stack: Stack) -> Any:
    """One provider call through the hook layer (outermost) and ``stack``."""
    return await Stack((ModelHooks(bus), *stack.layers)).compose(endpoint)(ctx)


async def call_tool(bus: HookBus, ctx: Any, endpoint: CallNext, stack: Stack) -> ToolOutcome:
    """One tool call through the hook layer (outermost) and ``stack``."""
    outcome: ToolOutcome = await Stack((ToolHooks(bus), *stack.layers)).compose(endpoint)(ctx)
    return outcome


class Trace(Middleware):
    def __init__(self, name: str, calls: list[str]) -> None:
        self.label, self.calls = name, calls

    def before(self, ctx: Any) -> None:
        self.calls.append(f"{self.label}.before")

    def after(self, ctx: Any, value: Any) -> None:
        self.calls.append(f"{self.label}.after")


class Retry(Middleware):
    """Retries ConnectionError up to ``times`` attempts, then gives up with the last error."""

    def __init__(self, calls: list[str], times: int = 3) -> None:
        self.calls, self.times = calls, times

    async def wrap(self, ctx: Any, call_next: CallNext) -> Any:
        for attempt in range(1, self.times + 1):
            try:
                return await call_next(ctx)
            except ConnectionError:
                self.calls.append(f"retry.failed#{attempt}")
                if attempt == self.times:
                    raise
        raise AssertionError("unreachable")


def hook(calls: list[str], label: str, result: Any = None):
    def handler(ctx: Any) -> Any:
        calls.append(label)
        return result

    return handler


def provider(
    calls: list[str], content: str = "answer", fail: int = 0, exc: Exception | None = None
) -> CallNext:
    state = {"n": 0}

    async def call(ctx: PreRequestContext) -> ProviderResponse:
        state["n"] += 1
        calls.append(f"call({ctx.request.model})")
        if exc is not None and (fail == 0 or state["n"] <= fail):
            raise exc
        return ProviderResponse(content=content)

    return call


def request_ctx() -> PreRequestContext:
    return PreRequestContext(run_id="r1", agent="a", request=ProviderRequest(model="m"))


# provider stack -----------------------------------------------------------------------------


async def test_full_provider_chain_order() -> None:
    bus = HookBus()
    calls: list[str] = []
    bus.on("pre_request", hook(calls, "pre_request#1"))
    bus.on("pre_request", hook(calls, "pre_request#2"))
    bus.on("on_response", hook(calls, "on_response#1"))
    bus.on("on_response", hook(calls, "on_response#2"))
    bus.use(Trace("mw1", calls))
    bus.use(Trace("mw2", calls))
    result = await call_provider(bus, request_ctx(), provider(calls), bus.provider_stack)
    assert result == ProviderResponse(content="answer")
    assert calls == [
        "pre_request#1",
        "pre_request#2",
        "mw1.before",
        "mw2.before",
        "call(m)",
        "mw2.after",
        "mw1.after",
        "on_response#1",
        "on_response#2",
    ]


async def test_a_pre_request_cache_hit_skips_the_middleware_and_the_call() -> None:
    bus = HookBus()
    calls: list[str] = []
    cached = ProviderResponse(content="cached")
    bus.on("pre_request", hook(calls, "cache", {"response": cached}))
    bus.on("pre_request", hook(calls, "skipped"))
    bus.on("on_response", lambda ctx: calls.append(f"on_response saw {ctx.response.content}"))
    bus.use(Trace("mw", calls))
    bus.use(Retry(calls))
    result = await call_provider(bus, request_ctx(), provider(calls), bus.provider_stack)
    assert result is cached
    assert calls == ["cache", "on_response saw cached"]


async def test_a_changed_request_reaches_the_call_and_on_response() -> None:
    bus = HookBus()
    calls: list[str] = []
    bus.on("pre_request", lambda ctx: {"request": ctx.request.model_copy(update={"model": "x"})})
    seen: list[ResponseContext] = []
    bus.on("on_response", seen.append)
    await call_provider(bus, request_ctx(), provider(calls), bus.provider_stack)
    assert calls == ["call(x)"]
    assert seen[0].request.model == "x"
    assert (seen[0].run_id, seen[0].agent) == ("r1", "a")  # common fields carried over


async def test_pre_request_deny_skips_everything_after_it() -> None:
    bus = HookBus()
    calls: list[str] = []
    bus.on("pre_request", lambda ctx: Deny("over budget"))
    bus.on("on_response", hook(calls, "on_response"))
    bus.use(Trace("mw", calls))
    assert await call_provider(bus, request_ctx(), provider(calls), bus.provider_stack) == Deny(
        "over budget"
    )
    assert calls == []


async def test_on_response_deny_is_returned() -> None:
    bus = HookBus()
    calls: list[str] = []
    bus.on("on_response", lambda ctx: Deny("unsafe") if ctx.response.content == "answer" else None)
    assert await call_provider(bus, request_ctx(), provider(calls), bus.provider_stack) == Deny(
        "unsafe"
    )
    assert calls == ["call(m)"]


async def test_on_response_replacement_is_returned() -> None:
    bus = HookBus()
    bus.on("on_response", lambda ctx: {"response": ProviderResponse(content="edited")})
    result = await call_provider(bus, request_ctx(), provider([]), bus.provider_stack)
    assert result == ProviderResponse(content="edited")


async def test_on_model_error_does_not_see_what_the_retry_middleware_absorbed() -> None:
    bus = HookBus()
    calls: list[str] = []
    bus.on("on_model_error", hook(calls, "on_model_error"))
    bus.on("on_response", lambda ctx: calls.append(f"on_response saw {ctx.response.content}"))
    bus.use(Retry(calls))
    result = await call_provider(
        bus, request_ctx(), provider(calls, fail=2, exc=ConnectionError("blip")), bus.provider_stack
    )
    assert result == ProviderResponse(content="answer")
    assert calls == [
        "call(m)",
        "retry.failed#1",
        "call(m)",
        "retry.failed#2",
        "call(m)",
        "on_response saw answer",
    ]


async def test_on_model_error_sees_what_the_middleware_gave_up_on() -> None:
    bus = HookBus()
    calls: list[str] = []
    exc = ConnectionError("down")
    seen: list[ModelErrorContext] = []

    def recover(ctx: ModelErrorContext) -> dict[str, Any]:
        seen.append(ctx)
        calls.append("on_model_error")
        return {"response": ProviderResponse(content="fallback")}

    bus.on("on_model_error", recover)
    bus.on("on_model_error", hook(calls, "skipped"))
    bus.on("on_response", lambda ctx: calls.append(f"on_response saw {ctx.response.content}"))
    bus.use(Retry(calls, times=2))
    result = await call_provider(bus, request_ctx(), provider(calls, exc=exc), bus.provider_stack)
    assert result == ProviderResponse(content="fallback")
    assert calls == [
        "call(m)",
        "retry.failed#1",
        "call(m)",
        "retry.failed#2",
        "on_model_error",
        "on_response saw fallback",
    ]
    assert seen[0].error is exc
    assert seen[0].request.model == "m"


async def test_on_model_error_replacement_is_raised_from_the_original() -> None:
    bus = HookBus()
    original = ConnectionError("down")
    replacement = RuntimeError("provider unavailable")
    bus.on("on_model_error", lambda ctx: {"error": replacement})
    with pytest.raises(RuntimeError) as info:
        await call_provider(bus, request_ctx(), provider([], exc=original), bus.provider_stack)
    assert info.value is replacement
    assert info.value.__cause__ is original


@pytest.mark.parametrize("with_hook", [False, True])
async def test_unrecovered_provider_error_keeps_its_identity(with_hook: bool) -> None:
    exc = ConnectionError("down")
    bus = HookBus()
    if with_hook:
        bus.on("on_model_error", lambda ctx: None)
    with pytest.raises(ConnectionError) as info:
        await call_provider(bus, request_ctx(), provider([], exc=exc), bus.provider_stack)
    assert info.value is exc
    assert info.value.__cause__ is None


# tool stack ---------------------------------------------------------------------------------


def tool_ctx(**arguments: Any) -> PreToolCallContext:
    call = ToolCall(id="c1", name="search", arguments=arguments or {"q": "x"})
    return PreToolCallContext(run_id="r1", call=call, tool_call_id="c1")


def tool_fn(calls: list[str], result: Any = "found", exc: Exception | None = None) -> CallNext:
    async def run(ctx: PreToolCallContext) -> Any:
        calls.append(f"tool({ctx.call.arguments})")
        if exc is not None:
            raise exc
        return result

    return run


async def test_full_tool_chain_order() -> None:
    bus = HookBus()
    calls: list[str] = []
    bus.on("pre_tool_call", hook(calls, "pre_tool_call"))
    bus.on("on_tool_call_result", lambda ctx: calls.append(f"result hook saw {ctx.result}"))
    bus.on("on_tool_call_error", hook(calls, "never"))
    bus.use(Trace("mw1", calls))
    bus.use(Trace("mw2", calls))
    outcome = await call_tool(bus, tool_ctx(), tool_fn(calls), bus.tool_stack)
    assert calls == [
        "pre_tool_call",
        "mw1.before",
        "mw2.before",
        "tool({'q': 'x'})",
        "mw2.after",
        "mw1.after",
        "result hook saw found",
    ]
    assert (outcome.result, outcome.error, outcome.denied) == ("found", None, False)
    assert outcome.duration >= 0


async def test_changed_arguments_reach_the_tool() -> None:
    bus = HookBus()
    calls: list[str] = []
    bus.on(
        "pre_tool_call",
        lambda ctx: {"call": ctx.call.model_copy(update={"arguments": {"q": "rewritten"}})},
    )
    outcome = await call_tool(bus, tool_ctx(), tool_fn(calls), bus.tool_stack)
    assert calls == ["tool({'q': 'rewritten'})"]
    assert outcome.call.arguments == {"q": "rewritten"}


async def test_pre_tool_call_result_short_circuits_the_tool_and_middleware() -> None:
    bus = HookBus()
    calls: list[str] = []
    bus.on("pre_tool_call", hook(calls, "cache", {"result": "cached"}))
    bus.on("on_tool_call_result", lambda ctx: calls.append(f"result hook saw {ctx.result}"))
    bus.use(Trace("mw", calls))
    outcome = await call_tool(bus, tool_ctx(), tool_fn(calls), bus.tool_stack)
    assert calls == ["cache", "result hook saw cached"]
    assert (outcome.result, outcome.short_circuit, outcome.is_error) == ("cached", True, False)


@pytest.mark.parametrize("refusal", [Deny(), Deny("not today"), {"error": "quota exceeded"}])
async def test_a_refusal_in_pre_tool_call_is_denied_and_cannot_be_recovered(refusal: Any) -> None:
    bus = HookBus()
    calls: list[str] = []
    seen: list[ToolErrorContext] = []
    bus.on("pre_tool_call", lambda ctx: refusal)
    bus.on("on_tool_call_error", lambda ctx: seen.append(ctx) or {"result": "sneaky"})
    bus.on("on_tool_call_result", hook(calls, "never"))
    bus.use(Trace("mw", calls))
    with structlog.testing.capture_logs() as logs:
        outcome = await call_tool(bus, tool_ctx(), tool_fn(calls), bus.tool_stack)
    expected = (
        {"error": "quota exceeded"}.get("error")
        if isinstance(refusal, dict)
        else (refusal.text("search"))
    )
    assert calls == []
    assert seen[0].source == "denied" and seen[0].error == expected
    assert outcome.is_error and outcome.error == expected and outcome.result is None
    assert outcome.error_text() == expected
    assert [e["event"] for e in logs] == ["denied_recovery_ignored"]


async def test_deny_without_reason_names_the_tool() -> None:
    bus = HookBus()
    bus.on("pre_tool_call", lambda ctx: Deny())
    outcome = await call_tool(bus, tool_ctx(), tool_fn([]), bus.tool_stack)
    assert outcome.error == 'Tool call "search" was denied'
    assert outcome.denied is True and outcome.source == "denied"


async def test_tool_error_recovery_then_on_tool_call_result_sees_the_result() -> None:
    bus = HookBus()
    calls: list[str] = []
    exc = ValueError("bad input")

    def recover(ctx: ToolErrorContext) -> dict[str, Any]:
        calls.append(f"error hook saw {ctx.error} from {ctx.source}")
        assert ctx.error is exc
        return {"result": "default"}

    def result_hook(ctx: ToolResultContext) -> dict[str, Any]:
        calls.append(f"result hook saw {ctx.result}")
        return {"result": ctx.result.upper()}

    bus.on("on_tool_call_error", recover)
    bus.on("on_tool_call_result", result_hook)
    outcome = await call_tool(bus, tool_ctx(), tool_fn(calls, exc=exc), bus.tool_stack)
    assert calls == [
        "tool({'q': 'x'})",
        "error hook saw bad input from handler",
        "result hook saw default",
    ]
    assert (outcome.result, outcome.error, outcome.source) == ("DEFAULT", None, None)


async def test_unrecovered_tool_error_with_replacement_and_terminate() -> None:
    bus = HookBus()
    calls: list[str] = []
    bus.on("on_tool_call_error", lambda ctx: {"error": "friendly text", "terminate": True})
    bus.on("on_tool_call_result", hook(calls, "never"))
    outcome = await call_tool(bus, tool_ctx(), tool_fn(calls, exc=KeyError("k")), bus.tool_stack)
    assert (outcome.error, outcome.source, outcome.terminate) == ("friendly text", "handler", True)
    assert calls == ["tool({'q': 'x'})"]


async def test_tool_error_without_hooks_is_an_error_outcome() -> None:
    bus = HookBus()
    exc = KeyError("k")
    outcome = await call_tool(bus, tool_ctx(), tool_fn([], exc=exc), bus.tool_stack)
    assert outcome.error is exc and outcome.source == "handler"
    assert outcome.error_text() == "KeyError: 'k'"


async def test_on_tool_call_result_deny_makes_an_error_and_skips_on_tool_call_error() -> None:
    bus = HookBus()
    calls: list[str] = []
    bus.on("on_tool_call_result", lambda ctx: Deny("leaks a secret"))
    bus.on("on_tool_call_error", hook(calls, "never"))
    outcome = await call_tool(bus, tool_ctx(), tool_fn(calls), bus.tool_stack)
    assert (outcome.result, outcome.error, outcome.source, outcome.denied) == (
        None,
        "leaks a secret",
        "denied",
        True,
    )
    assert calls == ["tool({'q': 'x'})"]


async def test_terminate_and_result_combine() -> None:
    bus = HookBus()
    bus.on("on_tool_call_result", lambda ctx: {"result": "final", "terminate": True})
    outcome = await call_tool(bus, tool_ctx(), tool_fn([]), bus.tool_stack)
    assert (outcome.result, outcome.terminate) == ("final", True)


async def test_on_tool_call_error_sees_only_what_the_tool_middleware_gave_up_on() -> None:
    bus = HookBus()
    calls: list[str] = []
    bus.on("on_tool_call_error", lambda ctx: calls.append(f"error hook: {ctx.error}"))
    bus.use(Retry(calls, times=2))
    outcome = await call_tool(
        bus, tool_ctx(), tool_fn(calls, exc=ConnectionError("net")), bus.tool_stack
    )
    assert calls == [
        "tool({'q': 'x'})",
        "retry.failed#1",
        "tool({'q': 'x'})",
        "retry.failed#2",
        "error hook: net",
    ]
    assert isinstance(outcome, ToolOutcome) and isinstance(outcome.error, ConnectionError)


async def test_provider_only_middleware_stays_out_of_tool_calls() -> None:
    bus = HookBus()
    calls: list[str] = []

    class ProviderTrace(Trace):
        stacks = ("provider",)

    bus.use(ProviderTrace("prov", calls))
    await call_tool(bus, tool_ctx(), tool_fn(calls), bus.tool_stack)
    await call_provider(bus, request_ctx(), provider(calls), bus.provider_stack)
    assert calls == ["tool({'q': 'x'})", "prov.before", "call(m)", "prov.after"]
