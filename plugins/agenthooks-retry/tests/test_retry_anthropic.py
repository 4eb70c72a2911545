"""The retry plugin with the core's AnthropicProvider against a real loopback Anthropic
server: it reads the provider's typed errors (what is transient, ``Retry-After``) and retries
them as it retries the OpenAI provider's."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from agenthooks_retry import RetryMiddleware, is_transient, retry_after
from anthropic_server import (
    AnthropicServer,
    error_body,
    error_reply,
    events_of,
    message,
    message_reply,
    sse,
    stream_reply,
    text,
)

from agenthooks import Agent, AnthropicProvider, HookBus, ProviderError, ProviderHTTPError
from agenthooks.messages import ChatMessage, ProviderRequest

pytestmark = pytest.mark.server

GUARD = 10.0
ASK = ProviderRequest(messages=[ChatMessage(role="user", content="hi")])


@pytest.fixture
def anthropic() -> Iterator[AnthropicServer]:
    with AnthropicServer() as running:
        yield running


@pytest.fixture
async def provider(anthropic: AnthropicServer) -> AsyncIterator[AnthropicProvider]:
    async with AnthropicProvider("claude-test", base_url=anthropic.base_url, timeout=2.0) as client:
        yield client


def opening_events() -> list[Any]:
    """message_start and a ping: what a stream sends before its content."""
    return list(events_of(message(text("never")))[:2])


def retrying_agent(provider: AnthropicProvider, waits: list[float]) -> Agent:
    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    bus = HookBus()
    bus.use(RetryMiddleware(attempts=3, initial=5.0, max_backoff=8.0, jitter=0.0, sleep=sleep))
    return Agent("claude", provider=provider, bus=bus)


@pytest.mark.parametrize(
    ("status", "kind", "transient"),
    [
        (529, "overloaded_error", True),
        (429, "rate_limit_error", True),
        (500, "api_error", True),
        (400, "invalid_request_error", False),
        (401, "authentication_error", False),
    ],
)
async def test_an_anthropic_error_is_transient_as_the_provider_says(
    anthropic: AnthropicServer,
    provider: AnthropicProvider,
    status: int,
    kind: str,
    transient: bool,
) -> None:
    anthropic.reply(error_reply(status, kind, "the error's text"))

    with pytest.raises(ProviderError) as caught:
        await asyncio.wait_for(provider.complete(ASK), GUARD)

    assert type(caught.value) is ProviderHTTPError
    assert caught.value.retryable is transient
    assert is_transient(caught.value) is transient


async def test_retry_after_of_an_anthropic_error_is_read(
    anthropic: AnthropicServer, provider: AnthropicProvider
) -> None:
    anthropic.reply(error_reply(429, "rate_limit_error", "slow down", headers={"Retry-After": "7"}))

    with pytest.raises(ProviderHTTPError) as caught:
        await asyncio.wait_for(provider.complete(ASK), GUARD)

    assert retry_after(caught.value) == 7.0


async def test_429_is_retried_after_retry_after_and_529_with_backoff(
    anthropic: AnthropicServer, provider: AnthropicProvider
) -> None:
    anthropic.reply(
        error_reply(429, "rate_limit_error", "slow down", headers={"retry-after": "2"}),
        error_reply(529, "overloaded_error", "Overloaded"),
        message_reply(message(text("made it"))),
    )
    waits: list[float] = []

    response = await asyncio.wait_for(retrying_agent(provider, waits).chat("hi"), GUARD)

    assert response.content == "made it"
    assert waits == [2.0, 8.0]  # Retry-After honoured, then the backoff (5 * 2, capped at 8)
    assert len(anthropic.received) == 3


async def test_an_overloaded_stream_that_sent_no_text_is_retried(
    anthropic: AnthropicServer, provider: AnthropicProvider
) -> None:
    failure = error_body("overloaded_error", "Overloaded")
    anthropic.reply(sse([*opening_events(), failure]), stream_reply(message(text("second try"))))
    waits: list[float] = []

    chunks = [
        event.text
        async for event in retrying_agent(provider, waits).chat_stream("hi")
        if hasattr(event, "text")
    ]

    assert chunks == ["second ", "try"]
    assert waits == [5.0]
    assert len(anthropic.received) == 2


async def test_a_stream_that_already_sent_text_is_left_to_fail(
    anthropic: AnthropicServer, provider: AnthropicProvider
) -> None:
    events = list(events_of(message(text("half an"))))[:5]
    anthropic.reply(sse([*events, error_body("overloaded_error", "Overloaded")]))
    waits: list[float] = []

    with pytest.raises(ProviderHTTPError) as caught:
        async for _ in retrying_agent(provider, waits).chat_stream("hi"):
            pass

    assert caught.value.error_type == "overloaded_error"
    assert waits == []
    assert len(anthropic.received) == 1
