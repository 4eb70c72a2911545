"""RetryMiddleware on real agents: predicates, backoff, Retry-After, the tool stack, callbacks."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime
from typing import Any

import pytest
import structlog
from agenthooks_retry import RetryAttempt, RetryMiddleware, RetryPlugin, is_transient, retry_after

from agenthooks import (
    Agent,
    HookBus,
    ProviderConnectionError,
    ProviderHTTPError,
    ProviderResponse,
    ProviderResponseError,
    ProviderTimeout,
    ScriptedProvider,
    ToolCall,
    tool,
)

FAST = {"initial": 0, "max_backoff": 0, "jitter": 0}


class Sleeps:
    """A ``sleep`` that records the waits and yields to the loop without waiting."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)
        await asyncio.sleep(0)


def http(status: int, message: str = "failed", **extra: Any) -> ProviderHTTPError:
    error = ProviderHTTPError(f"HTTP {status}: {message}", status=status)
    for name, value in extra.items():
        setattr(error, name, value)
    return error


@pytest.mark.parametrize(
    ("error", "transient"),
    [
        (ProviderConnectionError("dropped"), True),
        (ProviderTimeout("slow"), True),
        (http(429), True),
        (http(408), True),
        (http(409), True),
        (http(500), True),
        (http(502), True),
        (http(503), True),
        (http(400), False),
        (http(401), False),
        (http(404), False),
        (ProviderHTTPError("no status"), False),
        (ProviderResponseError("bad json"), False),
        (ConnectionResetError("reset"), True),
        (TimeoutError("tool timed out"), True),
        (ValueError("bad input"), False),
        (KeyError("missing"), False),
    ],
)
def test_the_default_predicate(error: BaseException, transient: bool) -> None:
    assert is_transient(error) is transient


def test_retry_after_sources() -> None:
    now = datetime(2030, 1, 1, tzinfo=timezone.utc)
    assert retry_after(http(429, retry_after=2)) == 2.0
    assert retry_after(http(429, headers={"Retry-After": "3"})) == 3.0
    assert retry_after(http(429, headers={"retry-after": "1.5"})) == 1.5
    assert retry_after(http(429, headers={"Retry-After-Ms": "250", "Retry-After": "9"})) == 0.25
    later = format_datetime(now + timedelta(seconds=7), usegmt=True)
    assert retry_after(http(429, headers={"Retry-After": later}), now=now.timestamp()) == 7.0
    earlier = format_datetime(now - timedelta(seconds=7), usegmt=True)
    assert retry_after(http(429, headers={"Retry-After": earlier}), now=now.timestamp()) == 0.0
    assert retry_after(http(429, headers={"Retry-After": "soon"})) is None
    assert retry_after(http(429, retry_after=61)) is None  # beyond 60 s: the backoff applies
    assert retry_after(http(429, retry_after=-1)) is None
    assert retry_after(http(429)) is None


async def test_backoff_doubles_up_to_the_cap() -> None:
    sleeps = Sleeps()
    bus = HookBus()
    bus.use(RetryMiddleware(attempts=6, initial=1, max_backoff=8, jitter=0, sleep=sleeps))
    provider = ScriptedProvider([ProviderConnectionError(f"drop {i}") for i in range(5)] + ["ok"])
    response = await Agent("a", provider=provider, bus=bus).chat("hi")
    assert response.content == "ok"
    assert sleeps.waits == [1.0, 2.0, 4.0, 8.0, 8.0]
    assert len(provider.requests) == 6
    assert response.iterations == 1  # retries inside the stack are not turns


async def test_jitter_adds_at_most_its_amount() -> None:
    middleware = RetryMiddleware(initial=1, max_backoff=100, jitter=0.5)
    for attempt, base in ((1, 1.0), (2, 2.0), (3, 4.0)):
        waits = {middleware.backoff(attempt) for _ in range(200)}
        assert all(base <= w <= base + 0.5 for w in waits)
        assert len(waits) > 1


async def test_max_time_stops_before_a_wait_that_would_pass_it() -> None:
    sleeps = Sleeps()
    bus = HookBus()
    bus.use(
        RetryMiddleware(attempts=10, max_time=2.5, initial=1, max_backoff=8, jitter=0, sleep=sleeps)
    )
    provider = ScriptedProvider([ProviderTimeout(f"slow {i}") for i in range(10)])
    with pytest.raises(ProviderTimeout, match="slow 2"):
        await Agent("a", provider=provider, bus=bus).chat("hi")
    assert sleeps.waits == [1.0, 2.0]  # the next wait (4 s) would end after 2.5 s
    assert len(provider.requests) == 3


async def test_a_retry_after_wins_over_the_backoff() -> None:
    sleeps = Sleeps()
    seen: list[RetryAttempt] = []
    bus = HookBus()
    bus.use(
        RetryMiddleware(
            initial=5,
            max_backoff=8,
            jitter=0,
            sleep=sleeps,
            on_retry=lambda ctx, retry: seen.append(retry),
        )
    )
    provider = ScriptedProvider(
        [http(429, retry_after=0.25), http(503, headers={"Retry-After": "1"}), http(503), "ok"]
    )
    with pytest.raises(ProviderHTTPError, match="HTTP 503"):
        await Agent("a", provider=provider, bus=bus).chat("hi")
    assert sleeps.waits == [0.25, 1.0]
    assert [(r.attempt, r.wait) for r in seen] == [(1, 0.25), (2, 1.0)]


async def test_a_custom_predicate_replaces_the_default() -> None:
    bus = HookBus()
    bus.use(RetryMiddleware(retry_on=lambda exc: isinstance(exc, ProviderResponseError), **FAST))
    provider = ScriptedProvider([ProviderResponseError("no finish_reason"), "ok"])
    assert (await Agent("a", provider=provider, bus=bus).chat("hi")).content == "ok"

    provider = ScriptedProvider([ProviderConnectionError("dropped"), "never"])
    with pytest.raises(ProviderConnectionError):
        await Agent("b", provider=provider, bus=bus).chat("hi")
    assert len(provider.requests) == 1


async def test_cancellation_is_never_retried_even_by_a_catch_all_predicate() -> None:
    bus = HookBus()
    bus.use(RetryMiddleware(retry_on=lambda exc: True, **FAST))
    provider = ScriptedProvider([asyncio.CancelledError(), "never"])
    with pytest.raises(asyncio.CancelledError):
        await Agent("a", provider=provider, bus=bus).chat("hi")
    assert len(provider.requests) == 1


async def test_an_async_on_retry_is_awaited_and_a_failing_one_is_only_logged() -> None:
    seen: list[tuple[str, int]] = []

    async def report(ctx: Any, retry: RetryAttempt) -> None:
        await asyncio.sleep(0)
        seen.append((ctx.agent, retry.attempt))

    bus = HookBus()
    bus.use(RetryMiddleware(on_retry=report, **FAST))
    provider = ScriptedProvider([ProviderConnectionError("a"), ProviderConnectionError("b"), "ok"])
    assert (await Agent("asyncy", provider=provider, bus=bus).chat("hi")).content == "ok"
    assert seen == [("asyncy", 1), ("asyncy", 2)]

    def broken(ctx: Any, retry: RetryAttempt) -> None:
        raise RuntimeError("reporting is down")

    bus = HookBus()
    bus.use(RetryMiddleware(on_retry=broken, **FAST))
    provider = ScriptedProvider([ProviderConnectionError("a"), "ok"])
    with structlog.testing.capture_logs() as logs:
        assert (await Agent("b", provider=provider, bus=bus).chat("hi")).content == "ok"
    [failure] = [e for e in logs if e["event"] == "retry_callback_failed"]
    assert failure["error"] == "RuntimeError: reporting is down"
    assert failure["log_level"] == "warning"


async def test_a_streamed_call_failing_before_a_chunk_is_retried() -> None:
    bus = HookBus()
    stream_errors: list[str] = []
    bus.on("on_stream_error", lambda ctx: stream_errors.append(str(ctx.error)))
    bus.use(RetryMiddleware(**FAST))
    provider = ScriptedProvider([ProviderConnectionError("refused"), "one two"])
    items = [i async for i in Agent("a", provider=provider, bus=bus).chat_stream("hi")]
    assert [getattr(i, "text", None) for i in items[:-1]] == ["one ", "two"]
    assert stream_errors == ["refused"]


# the tool stack ------------------------------------------------------------------------------


def flaky_tools() -> tuple[Any, Any, list[str]]:
    calls: list[str] = []
    failures = {"flaky": 2, "other": 1}

    @tool
    async def flaky(x: int) -> int:
        """Fails twice, then works."""
        calls.append("flaky")
        if failures["flaky"]:
            failures["flaky"] -= 1
            raise ConnectionResetError("peer reset")
        return x * 2

    @tool
    async def other(x: int) -> int:
        """Fails once, then works."""
        calls.append("other")
        if failures["other"]:
            failures["other"] -= 1
            raise ConnectionResetError("peer reset")
        return x + 1

    return flaky, other, calls


def tool_script(*names: str) -> ScriptedProvider:
    return ScriptedProvider(
        [
            ProviderResponse(
                tool_calls=[
                    ToolCall(id=f"c{i}", name=name, arguments={"x": 5})
                    for i, name in enumerate(names)
                ]
            ),
            "done",
        ]
    )


async def test_tool_calls_are_retried_on_the_tool_stack() -> None:
    flaky, other, calls = flaky_tools()
    bus = HookBus()
    tool_errors: list[str] = []
    bus.on("on_tool_call_error", lambda ctx: tool_errors.append(str(ctx.error)))
    seen: list[RetryAttempt] = []
    bus.use(RetryMiddleware(stacks=("tool",), on_retry=lambda ctx, r: seen.append(r), **FAST))
    provider = tool_script("flaky")
    agent = Agent("a", provider=provider, tools=[flaky, other], bus=bus)
    with structlog.testing.capture_logs() as logs:
        await agent.chat("go")
    assert calls == ["flaky", "flaky", "flaky"]
    tool_message = provider.requests[1].messages[-1]
    assert (tool_message.content, tool_message.is_error) == ("10", False)
    assert tool_errors == []
    assert [(r.stack, r.attempt) for r in seen] == [("tool", 1), ("tool", 2)]
    lines = [e for e in logs if e["event"] == "retry"]
    assert [(e["kind"], e["tool_name"], e["tool_call_id"]) for e in lines] == [
        ("tool", "flaky", "c0"),
        ("tool", "flaky", "c0"),
    ]


async def test_only_the_named_tools_are_retried() -> None:
    flaky, other, calls = flaky_tools()
    bus = HookBus()
    bus.use(RetryMiddleware(stacks="tool", tools=["flaky"], **FAST))
    provider = tool_script("flaky", "other")
    await Agent("a", provider=provider, tools=[flaky, other], bus=bus).chat("go")
    assert calls == ["flaky", "flaky", "flaky", "other"]
    flaky_msg, other_msg = provider.requests[1].messages[-2:]
    assert (flaky_msg.content, flaky_msg.is_error) == ("10", False)
    assert (other_msg.content, other_msg.is_error) == ("ConnectionResetError: peer reset", True)


async def test_the_default_provider_stack_leaves_tools_alone() -> None:
    flaky, other, calls = flaky_tools()
    bus = HookBus()
    bus.use(RetryMiddleware(**FAST))
    assert bus.tool_stack.layers == ()
    provider = tool_script("flaky")
    await Agent("a", provider=provider, tools=[flaky, other], bus=bus).chat("go")
    assert calls == ["flaky"]
    assert provider.requests[1].messages[-1].is_error is True


async def test_a_tool_error_outside_the_predicate_fails_at_once() -> None:
    attempts: list[int] = []

    @tool
    async def picky(x: int) -> int:
        """Always rejects."""
        attempts.append(x)
        raise ValueError("x must be even")

    bus = HookBus()
    bus.use(RetryMiddleware(stacks=("tool",), **FAST))
    provider = ScriptedProvider(
        [ProviderResponse(tool_calls=[ToolCall(id="c1", name="picky", arguments={"x": 5})]), "done"]
    )
    await Agent("a", provider=provider, tools=[picky], bus=bus).chat("go")
    assert attempts == [5]
    assert provider.requests[1].messages[-1].content == "ValueError: x must be even"


async def test_the_plugin_registers_only_middleware() -> None:
    bus = HookBus()
    plugin = RetryPlugin(stacks=("provider", "tool"), **FAST)
    dispose = bus.use(plugin)
    assert bus.provider_stack.layers == (plugin.retry,)
    assert bus.tool_stack.layers == (plugin.retry,)
    assert bus.listened == frozenset()
    assert bus.plugins["retry"].plugin is plugin
    provider = ScriptedProvider([ProviderConnectionError("drop"), "ok"])
    assert (await Agent("a", provider=provider, bus=bus).chat("hi")).content == "ok"
    dispose()
    assert (bus.provider_stack.layers, bus.tool_stack.layers) == ((), ())


async def test_agent_level_middleware_works_too() -> None:
    provider = ScriptedProvider([ProviderConnectionError("drop"), "ok"])
    agent = Agent("a", provider=provider, middleware=[RetryMiddleware(**FAST)])
    assert (await agent.chat("hi")).content == "ok"
    assert len(provider.requests) == 2
