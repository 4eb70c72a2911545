"""FallbackMiddleware: the next provider takes over a failed call, layered with retries."""

from __future__ import annotations

from typing import Any

import pytest
import structlog
from agenthooks_retry import FallbackMiddleware, RetryMiddleware, RetryPlugin
from wire_server import WireServer, chunk, completion, error_reply, json_reply, sse_reply

from agenthooks import (
    Agent,
    HookBus,
    OpenAIChatProvider,
    ProviderConnectionError,
    ProviderHTTPError,
    ProviderResponseError,
    ScriptedProvider,
    TextDelta,
)

pytestmark = pytest.mark.server

FAST = {"initial": 0, "max_backoff": 0, "jitter": 0}


def openai(server: WireServer, name: str) -> OpenAIChatProvider:
    return OpenAIChatProvider("test-model", base_url=server.url, timeout=5, name=name)


async def test_each_provider_gets_its_retries_then_the_next_takes_over(
    server: WireServer, backup_server: WireServer
) -> None:
    server.reply(error_reply(500, "down 1"), error_reply(500, "down 2"))
    backup_server.reply(json_reply(completion("from the backup")))
    primary, backup = openai(server, "primary"), openai(backup_server, "backup")
    bus = HookBus()
    model_errors: list[Any] = []
    bus.on("on_model_error", lambda ctx: model_errors.append(ctx.error))
    bus.use(FallbackMiddleware([backup]))  # added first: outermost
    bus.use(RetryMiddleware(attempts=2, **FAST))
    agent = Agent("a", "Answer.", provider=primary, bus=bus)
    async with primary, backup:
        with structlog.testing.capture_logs() as logs:
            response = await agent.chat("hi")
    assert response.content == "from the backup"
    assert (len(server.requests), len(backup_server.requests)) == (2, 1)
    assert backup_server.requests[0]["messages"] == server.requests[0]["messages"]
    assert model_errors == []
    assert agent.provider is primary  # the next call starts from the primary again
    [switch] = [e for e in logs if e["event"] == "fallback"]
    assert (switch["from_provider"], switch["to_provider"], switch["log_level"]) == (
        "primary",
        "backup",
        "warning",
    )
    assert switch["error"].endswith("HTTP 500: down 2")


async def test_a_fallback_entry_may_change_the_model(
    server: WireServer, backup_server: WireServer
) -> None:
    server.reply(error_reply(503, "busy"))
    backup_server.reply(json_reply(completion("small but there")))
    primary, backup = openai(server, "primary"), openai(backup_server, "backup")
    bus = HookBus()
    requests: list[str] = []
    bus.on("on_response", lambda ctx: requests.append(ctx.request.model))
    bus.use(FallbackMiddleware([(backup, "backup-mini")]))
    agent = Agent("a", provider=primary, model="big-model", bus=bus)
    async with primary, backup:
        response = await agent.chat("hi")
    assert response.content == "small but there"
    assert server.requests[0]["model"] == "big-model"
    assert backup_server.requests[0]["model"] == "backup-mini"
    assert requests == ["big-model"]  # hooks outside the stack see the request they built


async def test_when_every_provider_fails_on_model_error_sees_the_last_error() -> None:
    first = ScriptedProvider([ProviderConnectionError("first is down")], name="first")
    second = ScriptedProvider(
        [ProviderHTTPError("HTTP 502: second too", status=502)], name="second"
    )
    third = ScriptedProvider([ProviderHTTPError("HTTP 503: and third", status=503)], name="third")
    bus = HookBus()
    model_errors: list[Any] = []
    bus.on("on_model_error", lambda ctx: model_errors.append(ctx.error))
    bus.use(FallbackMiddleware([second, third]))
    with pytest.raises(ProviderHTTPError, match="and third") as caught:
        await Agent("a", provider=first, bus=bus).chat("hi")
    assert model_errors == [caught.value]
    assert [len(p.requests) for p in (first, second, third)] == [1, 1, 1]


async def test_errors_outside_fallback_on_do_not_move_on() -> None:
    primary = ScriptedProvider([ProviderResponseError("bad json")], name="primary")
    backup = ScriptedProvider(["unused"], name="backup")
    bus = HookBus()
    bus.use(
        FallbackMiddleware(
            [backup], fallback_on=lambda exc: isinstance(exc, ProviderConnectionError)
        )
    )
    with pytest.raises(ProviderResponseError):
        await Agent("a", provider=primary, bus=bus).chat("hi")
    assert len(backup.requests) == 0

    bus = HookBus()
    bus.use(FallbackMiddleware([backup]))  # default: any ProviderError
    primary = ScriptedProvider([ValueError("a bug, not an outage")], name="primary")
    with pytest.raises(ValueError, match="a bug"):
        await Agent("a", provider=primary, bus=bus).chat("hi")
    assert len(backup.requests) == 0


async def test_a_streamed_fallback_streams_the_backup_once() -> None:
    primary = ScriptedProvider([ProviderConnectionError("refused")], name="primary")
    backup = ScriptedProvider(["backup speaks now"], name="backup")
    bus = HookBus()
    bus.use(FallbackMiddleware([backup]))
    items = [i async for i in Agent("a", provider=primary, bus=bus).chat_stream("hi")]
    assert [i.text for i in items if isinstance(i, TextDelta)] == ["backup ", "speaks ", "now"]


async def test_a_streamed_call_does_not_fall_back_after_chunks_went_out(server: WireServer) -> None:
    server.reply(sse_reply([chunk("half ", role="assistant")], done=False, end="drop"))
    primary = openai(server, "primary")
    backup = ScriptedProvider(["must not speak"], name="backup")
    bus = HookBus()
    bus.use(RetryMiddleware(**FAST))  # outermost here: it must see the copy's chunk count
    bus.use(FallbackMiddleware([backup]))
    received: list[str] = []
    async with primary:
        with pytest.raises(ProviderConnectionError, match="mid-stream after 1 chunks"):
            async for item in Agent("a", provider=primary, bus=bus).chat_stream("hi"):
                if isinstance(item, TextDelta):
                    received.append(item.text)
    assert received == ["half "]
    assert len(backup.requests) == 0
    assert len(server.requests) == 1


async def test_retry_outside_fallback_does_not_retry_after_the_backup_streamed() -> None:
    primary = ScriptedProvider(
        [ProviderConnectionError("refused"), "primary again"], name="primary"
    )

    class Breaks:
        """A backup that streams one chunk, then loses the connection."""

        name = "breaking"

        async def complete(self, request: Any) -> Any:
            raise AssertionError("streamed calls only")

        async def stream(self, request: Any) -> Any:
            from agenthooks import StreamDelta

            yield StreamDelta("partial ")
            raise ProviderConnectionError("backup dropped")

    bus = HookBus()
    bus.use(RetryMiddleware(**FAST))
    bus.use(FallbackMiddleware([Breaks()]))
    received: list[str] = []
    with pytest.raises(ProviderConnectionError, match="backup dropped"):
        async for item in Agent("a", provider=primary, bus=bus).chat_stream("hi"):
            if isinstance(item, TextDelta):
                received.append(item.text)
    assert received == ["partial "]
    assert len(primary.requests) == 1  # no retry of the whole fallback chain


async def test_the_plugin_puts_the_fallback_outside_the_retry() -> None:
    primary = ScriptedProvider(
        [ProviderConnectionError("x"), ProviderConnectionError("y")], name="primary"
    )
    backup = ScriptedProvider(["backup"], name="backup")
    plugin = RetryPlugin(attempts=2, fallbacks=[backup], **FAST)
    bus = HookBus()
    bus.use(plugin)
    assert bus.provider_stack.layers == (plugin.fallback, plugin.retry)
    response = await Agent("a", provider=primary, bus=bus).chat("hi")
    assert response.content == "backup"
    assert (len(primary.requests), len(backup.requests)) == (2, 1)
