"""RetryMiddleware against a real loopback OpenAI-compatible server."""

from __future__ import annotations

from typing import Any

import pytest
import structlog
from agenthooks_retry import RetryAttempt, RetryMiddleware
from wire_server import (
    Reply,
    WireServer,
    chunk,
    completion,
    error_reply,
    hang,
    json_reply,
    sse_reply,
    text_stream,
)

from agenthooks import (
    Agent,
    FinalResponse,
    HookBus,
    OpenAIChatProvider,
    ProviderConnectionError,
    ProviderHTTPError,
    ProviderTimeout,
    TextDelta,
)

pytestmark = pytest.mark.server

FAST = {"initial": 0, "max_backoff": 0, "jitter": 0}


class Recorder:
    """The bus's view of a run: model errors and retries."""

    def __init__(self, bus: HookBus) -> None:
        self.model_errors: list[BaseException | None] = []
        self.retries: list[RetryAttempt] = []
        bus.on("on_model_error", lambda ctx: self.model_errors.append(ctx.error))

    def on_retry(self, ctx: Any, retry: RetryAttempt) -> None:
        self.retries.append(retry)


def agent_on(server: WireServer, bus: HookBus, timeout: float = 5) -> tuple[Agent, Any]:
    provider = OpenAIChatProvider("test-model", base_url=server.url, timeout=timeout)
    return Agent("caller", "Answer.", provider=provider, bus=bus), provider


async def test_429_then_200_is_retried_once(server: WireServer) -> None:
    server.reply(error_reply(429, "slow down", "rate_limit"), json_reply(completion("hello")))
    bus = HookBus()
    seen = Recorder(bus)
    bus.use(RetryMiddleware(on_retry=seen.on_retry, **FAST))
    agent, provider = agent_on(server, bus)
    async with provider:
        with structlog.testing.capture_logs() as logs:
            response = await agent.chat("hi")
    assert (response.content, response.iterations) == ("hello", 1)
    assert len(server.requests) == 2
    assert server.requests[0] == server.requests[1]
    assert seen.model_errors == []
    [retry] = seen.retries
    assert (retry.stack, retry.attempt, retry.wait) == ("provider", 1, 0.0)
    assert isinstance(retry.error, ProviderHTTPError) and retry.error.status == 429
    [line] = [entry for entry in logs if entry["event"] == "retry"]
    assert line == {
        "event": "retry",
        "log_level": "info",
        "kind": "provider",
        "attempt": 1,
        "attempts": 3,
        "wait": 0.0,
        "run_id": line["run_id"],
        "agent": "caller",
        "error": f"ProviderHTTPError: openai (POST {server.url}/chat/completions): "
        "HTTP 429: slow down",
    }
    assert line["run_id"]


async def test_three_500s_give_up_and_on_model_error_sees_the_last(server: WireServer) -> None:
    server.reply(
        error_reply(500, "boom 1"),
        error_reply(500, "boom 2"),
        error_reply(500, "boom 3"),
        json_reply(completion("never reached")),
    )
    bus = HookBus()
    seen = Recorder(bus)
    bus.use(RetryMiddleware(attempts=3, on_retry=seen.on_retry, **FAST))
    agent, provider = agent_on(server, bus)
    async with provider:
        with pytest.raises(ProviderHTTPError) as caught:
            await agent.chat("hi")
    assert str(caught.value).endswith("HTTP 500: boom 3")
    assert len(server.requests) == 3
    [error] = seen.model_errors
    assert error is caught.value
    assert [(r.attempt, str(r.error).split(": ")[-1]) for r in seen.retries] == [
        (1, "boom 1"),
        (2, "boom 2"),
    ]


async def test_a_dropped_connection_then_success(server: WireServer) -> None:
    server.reply(
        Reply(parts=[b'{"choi'], end="drop", chunked=True), json_reply(completion("recovered"))
    )
    bus = HookBus()
    seen = Recorder(bus)
    bus.use(RetryMiddleware(on_retry=seen.on_retry, **FAST))
    agent, provider = agent_on(server, bus)
    async with provider:
        response = await agent.chat("hi")
    assert response.content == "recovered"
    assert len(server.requests) == 2
    assert [type(r.error) for r in seen.retries] == [ProviderConnectionError]
    assert "connection dropped" in str(seen.retries[0].error)


async def test_a_timeout_then_success(server: WireServer) -> None:
    server.reply(hang(), json_reply(completion("late but fine")))
    bus = HookBus()
    seen = Recorder(bus)
    bus.use(RetryMiddleware(on_retry=seen.on_retry, **FAST))
    agent, provider = agent_on(server, bus, timeout=0.3)
    async with provider:
        response = await agent.chat("hi")
    assert response.content == "late but fine"
    assert [type(r.error) for r in seen.retries] == [ProviderTimeout]


@pytest.mark.parametrize("status", [400, 401, 404, 422])
async def test_client_errors_are_not_retried(server: WireServer, status: int) -> None:
    server.reply(
        error_reply(status, "your fault", "invalid_request_error"), json_reply(completion("no"))
    )
    bus = HookBus()
    seen = Recorder(bus)
    bus.use(RetryMiddleware(on_retry=seen.on_retry, **FAST))
    agent, provider = agent_on(server, bus)
    async with provider:
        with pytest.raises(ProviderHTTPError, match=f"HTTP {status}: your fault"):
            await agent.chat("hi")
    assert len(server.requests) == 1
    assert seen.retries == []
    assert len(seen.model_errors) == 1


async def test_a_stream_failing_before_its_first_chunk_is_retried(server: WireServer) -> None:
    server.reply(error_reply(503, "warming up"), text_stream("fresh answer"))
    bus = HookBus()
    seen = Recorder(bus)
    bus.use(RetryMiddleware(on_retry=seen.on_retry, **FAST))
    agent, provider = agent_on(server, bus)
    async with provider:
        items = [item async for item in agent.chat_stream("hi")]
    assert [i.text for i in items if isinstance(i, TextDelta)] == ["fresh ", "answer"]
    assert isinstance(items[-1], FinalResponse)
    assert items[-1].response.content == "fresh answer"
    assert len(server.requests) == 2
    assert all(body["stream"] is True for body in server.requests)
    assert [r.error.status for r in seen.retries] == [503]  # type: ignore[attr-defined]


async def test_a_stream_is_never_retried_once_a_chunk_reached_the_caller(
    server: WireServer,
) -> None:
    server.reply(
        sse_reply([chunk("partial ", role="assistant"), chunk("answer")], done=False, end="drop"),
        text_stream("must not be asked for"),
    )
    bus = HookBus()
    seen = Recorder(bus)
    bus.use(RetryMiddleware(on_retry=seen.on_retry, **FAST))
    agent, provider = agent_on(server, bus)
    received: list[str] = []
    async with provider:
        with pytest.raises(ProviderConnectionError, match="dropped mid-stream after 2 chunks"):
            async for item in agent.chat_stream("hi"):
                if isinstance(item, TextDelta):
                    received.append(item.text)
    assert received == ["partial ", "answer"]
    assert len(server.requests) == 1
    assert seen.retries == []
    assert [type(e) for e in seen.model_errors] == [ProviderConnectionError]
