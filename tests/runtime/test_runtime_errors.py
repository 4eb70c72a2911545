"""Handler errors in real runs: errors="raise" and "isolate", gates that never fail open,
guards that fail closed, bad returns, terminal handlers, and tool errors the model reads."""

from __future__ import annotations

from typing import Any

import pytest
import structlog

from agenthooks import (
    Agent,
    BadReturnError,
    ChatMessage,
    HookBus,
    ProviderResponse,
    ScriptedProvider,
    ToolCall,
    tool,
)
from agenthooks.bus import handler_label
from agenthooks.runtime.chat_run import CUT_SHORT

RAN: list[str] = []


class QuotaError(Exception):
    """A handler's own exception type: it must reach the caller unchanged."""


@tool
def fetch(url: str) -> str:
    """Fetch a URL."""
    RAN.append(url)
    if url == "bad":
        raise ConnectionError(f"cannot reach {url}")
    return f"<{url}>"


def ask(*urls: str) -> ProviderResponse:
    calls = [
        ToolCall(id=f"c{i}", name="fetch", arguments={"url": u}) for i, u in enumerate(urls, 1)
    ]
    return ProviderResponse(content=None, tool_calls=calls, finish_reason="tool_calls")


def make_agent(*script: Any, bus: HookBus | None = None) -> tuple[Agent, ScriptedProvider]:
    RAN.clear()
    provider = ScriptedProvider(list(script))
    return Agent("net", "Browse.", provider=provider, tools=[fetch], bus=bus), provider


def tool_msg(id: str, content: str, is_error: bool = False) -> ChatMessage:
    return ChatMessage(
        role="tool", content=content, tool_call_id=id, name="fetch", is_error=is_error
    )


def terminal(names: list[str]) -> list[str]:
    return [n for n in names if n in ("on_chat_done", "on_chat_abort", "on_chat_error")]


# errors="raise" ---------------------------------------------------------------------------


async def test_raise_policy_ends_the_run_with_the_original_exception(recorder: Any) -> None:
    agent, provider = make_agent(ask("a", "b"), "never")
    recorder.attach(agent)

    def quota(ctx: Any) -> None:
        raise QuotaError("quota used up")

    agent.on("pre_tool_call", quota)

    with pytest.raises(QuotaError) as caught:
        await agent.chat("go")

    error = caught.value
    assert str(error) == "quota used up"
    assert error.__notes__ == [f"raised by handler {handler_label(quota)} of event 'pre_tool_call'"]
    assert RAN == []
    assert len(provider.requests) == 1  # the model never sees the exception
    assert recorder.of("on_chat_error")[0].error is error
    end = recorder.of("on_chat_end")[0]
    assert (end.response, end.error) == (None, error)
    # both open calls were answered before the terminal event, the hook's error left out
    assert agent.history[2:] == [
        tool_msg("c1", CUT_SHORT, is_error=True),
        tool_msg("c2", CUT_SHORT, is_error=True),
    ]
    assert recorder.names[-6:] == [
        "on_message",
        "pre_tool_call",
        "on_message",
        "on_message",
        "on_chat_error",
        "on_chat_end",
    ]
    assert terminal(recorder.names) == ["on_chat_error"]


async def test_an_observer_raise_ends_the_run_too(recorder: Any) -> None:
    agent, _ = make_agent(ask("a"), "never")
    recorder.attach(agent)
    agent.on("on_loop_end", lambda ctx: 1 / 0)

    with pytest.raises(ZeroDivisionError) as caught:
        await agent.chat("go")

    assert caught.value.__notes__[0].endswith("of event 'on_loop_end'")
    assert RAN == ["a"]
    assert recorder.names[-3:] == ["on_loop_end", "on_chat_error", "on_chat_end"]
    assert agent.history[-1] == tool_msg("c1", "<a>")


async def test_a_bad_return_under_raise_is_a_bad_return_error(recorder: Any) -> None:
    agent, _ = make_agent("hello")
    recorder.attach(agent)

    def typo(ctx: Any) -> dict[str, Any]:
        return {"respones": ctx.response}

    agent.on("on_response", typo)

    with pytest.raises(BadReturnError) as caught:
        await agent.chat("go")

    assert str(caught.value) == (
        f"handler {handler_label(typo)} of 'on_response' returned key 'respones', which "
        "on_response does not accept; did you mean 'response'? It may return {\"response\"}, "
        "Deny(reason)"
    )
    assert terminal(recorder.names) == ["on_chat_error"]
    assert agent.history == [ChatMessage(role="user", content="go")]


async def test_a_tool_exception_is_a_tool_message_not_a_run_error(recorder: Any) -> None:
    agent, provider = make_agent(ask("bad", "ok"), "partly")
    recorder.attach(agent)

    response = await agent.chat("go")

    assert response.content == "partly"
    assert provider.requests[1].messages[2:] == [
        tool_msg("c1", "ConnectionError: cannot reach bad", is_error=True),
        tool_msg("c2", "<ok>"),
    ]
    (error,) = recorder.of("on_tool_call_error")
    assert (error.source, type(error.error)) == ("handler", ConnectionError)
    assert terminal(recorder.names) == ["on_chat_done"]


# terminal handlers -----------------------------------------------------------------------


async def test_an_on_chat_done_raise_does_not_fire_on_chat_error(recorder: Any) -> None:
    agent, _ = make_agent("hello")
    recorder.attach(agent)

    def broken_metrics(ctx: Any) -> None:
        raise QuotaError("metrics down")

    agent.on("on_chat_done", broken_metrics)

    with pytest.raises(QuotaError, match="metrics down"):
        await agent.chat("go")

    assert terminal(recorder.names) == ["on_chat_done"]
    end = recorder.of("on_chat_end")[0]
    assert end.response is not None and end.response.content == "hello"
    assert end.error is None  # the outcome did not change
    assert recorder.names[-2:] == ["on_chat_done", "on_chat_end"]
    assert agent.history[-1] == ChatMessage(role="assistant", content="hello")


async def test_errors_in_error_and_end_handlers_are_logged_and_ignored(recorder: Any) -> None:
    agent, _ = make_agent(ask("a"))  # the script runs out on turn 2
    recorder.attach(agent)

    def fail(ctx: Any) -> None:
        raise QuotaError("teardown handler failed")

    agent.on("on_chat_error", fail)
    agent.on("on_chat_end", fail)
    seen: list[str] = []
    agent.on("on_chat_end", lambda ctx: seen.append(type(ctx.error).__name__))

    with structlog.testing.capture_logs() as logs, pytest.raises(Exception) as caught:
        await agent.chat("go")

    assert type(caught.value).__name__ == "ScriptExhausted"
    assert seen == ["ScriptExhausted"]
    assert [(e["hook_event"], e["error"]) for e in logs if e["event"] == "hook_error_isolated"] == [
        ("on_chat_error", "QuotaError: teardown handler failed"),
        ("on_chat_end", "QuotaError: teardown handler failed"),
    ]


# errors="isolate" -------------------------------------------------------------------------


async def test_isolate_per_handler_lets_the_run_go_on(recorder: Any) -> None:
    agent, _ = make_agent(ask("a"), "done")
    recorder.attach(agent)

    def flaky(ctx: Any) -> None:
        raise QuotaError("analytics down")

    agent.on("on_response", flaky, errors="isolate")
    agent.on("on_tool_call_result", flaky, errors="isolate")  # an after-event: counts as None

    with structlog.testing.capture_logs() as logs:
        response = await agent.chat("go")

    assert response.content == "done"
    assert agent.history[2] == tool_msg("c1", "<a>")
    assert [(e["hook_event"], e["handler"], e["error"]) for e in logs] == [
        ("on_response", handler_label(flaky), "QuotaError: analytics down"),
        ("on_tool_call_result", handler_label(flaky), "QuotaError: analytics down"),
        ("on_response", handler_label(flaky), "QuotaError: analytics down"),
    ]
    assert terminal(recorder.names) == ["on_chat_done"]


async def test_a_gate_never_fails_open_under_isolate(recorder: Any) -> None:
    agent, provider = make_agent(ask("a"), "ok", bus=HookBus(errors="isolate"))
    recorder.attach(agent)

    def policy_service(ctx: Any) -> None:
        raise QuotaError("policy service unreachable")

    agent.on("pre_tool_call", policy_service)

    with structlog.testing.capture_logs():
        response = await agent.chat("go")

    assert RAN == []  # the gated step did not happen
    assert response.finish_reason == "stop"
    assert provider.requests[1].messages[2] == tool_msg(
        "c1", "policy service unreachable", is_error=True
    )
    assert recorder.of("on_tool_call_error")[0].source == "denied"


async def test_an_isolated_run_level_gate_denies_the_run(recorder: Any) -> None:
    agent, provider = make_agent("never", bus=HookBus(errors="isolate"))
    recorder.attach(agent)
    agent.on("pre_request", lambda ctx: {}["missing"])

    with structlog.testing.capture_logs():
        response = await agent.chat("go")

    assert (response.content, response.finish_reason) == ("'missing'", "denied")
    assert provider.requests == []
    assert terminal(recorder.names) == ["on_chat_done"]


async def test_an_isolated_on_chat_start_raise_counts_as_none() -> None:
    agent, _ = make_agent("hello", bus=HookBus(errors="isolate"))
    agent.on("on_chat_start", lambda ctx: 1 / 0)

    with structlog.testing.capture_logs():
        response = await agent.chat("go")

    assert (response.content, response.finish_reason) == ("hello", "stop")


async def test_a_bad_return_under_isolate_is_none_outside_gates_and_deny_in_them() -> None:
    agent, provider = make_agent(ask("a"), "ok", bus=HookBus(errors="isolate"))
    agent.on("on_tool_call_result", lambda ctx: "not a mapping")
    agent.on("pre_tool_call", lambda ctx: {"cal": ctx.call}, match="fetch")

    with structlog.testing.capture_logs() as logs:
        await agent.chat("go")

    assert RAN == []
    text = provider.requests[1].messages[2].content
    assert text is not None and text.startswith("handler ") and "returned key 'cal'" in text
    assert [e["hook_event"] for e in logs] == ["pre_tool_call"]


# guards -----------------------------------------------------------------------------------


async def test_a_raising_guard_denies_under_raise(recorder: Any) -> None:
    agent, provider = make_agent(ask("a"), "ok")
    recorder.attach(agent)

    def scanner(ctx: Any) -> None:
        raise QuotaError("scanner crashed")

    agent.on("on_tool_call_result", scanner, guard=True)

    with structlog.testing.capture_logs() as logs:
        response = await agent.chat("go")

    assert response.finish_reason == "stop"  # not a run error: the step is refused
    assert RAN == ["a"]
    assert provider.requests[1].messages[2] == tool_msg("c1", "scanner crashed", is_error=True)
    assert [(e["hook_event"], e["guard"]) for e in logs] == [("on_tool_call_result", True)]
    assert recorder.of("on_tool_call_error") == []


async def test_a_raising_guard_denies_the_run_under_isolate() -> None:
    agent, provider = make_agent("never", bus=HookBus(errors="isolate"))

    def budget_guard(ctx: Any) -> None:
        raise QuotaError("budget service down")

    agent.on("pre_request", budget_guard, guard=True)
    with structlog.testing.capture_logs():
        response = await agent.chat("go")

    assert (response.content, response.finish_reason) == ("budget service down", "denied")
    assert provider.requests == []


async def test_a_guard_with_a_bad_return_denies() -> None:
    agent, _ = make_agent("secret stuff")
    agent.on("post_agent", lambda ctx: ["not", "valid"], guard=True)

    with structlog.testing.capture_logs():
        response = await agent.chat("go")

    assert response.finish_reason == "denied"
    assert response.content is not None and "returned list" in response.content
    assert agent.history == [ChatMessage(role="user", content="go")]
