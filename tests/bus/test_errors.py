"""Errors raised inside handlers: raise / isolate policies, gates, guards, teardown events."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import structlog

from agenthooks import BadReturnError, Deny, HookBus, StopRun
from agenthooks.events import CATALOG, ScopeContext
from agenthooks.messages import ProviderResponse

GATES = ["on_user_message", "pre_agent", "pre_request", "pre_tool_call", "pre_handoff"]
NON_GATE_DENY = [
    "on_chat_start",
    "on_session_start",
    "post_agent",
    "on_output",
    "on_response",
    "on_tool_call_result",
]
DENY_EVENTS = GATES + NON_GATE_DENY
TEARDOWN = ["on_chat_error", "on_chat_abort", "on_chat_end", "on_session_end"]
NO_DENY_INTERCEPTORS = [
    "transform_context",
    "on_model_error",
    "on_tool_call_error",
    "prepare_next_turn",
]


class Boom(Exception):
    """A handler's own exception type."""


def label(fn: Any) -> str:
    return f"{fn.__module__}.{fn.__qualname__}"


def ctx_for(event: str) -> Any:
    return CATALOG[event].context()


async def dispatch(bus: HookBus, event: str) -> Any:
    """Fire ``event`` the way the runtime does for its kind."""
    spec = CATALOG[event]
    if spec.kind == "observer":
        return await bus.emit(event, ctx_for(event))
    if spec.kind == "predicate":
        return await bus.check(event, ctx_for(event))
    return await bus.intercept(event, ctx_for(event))


def boom(ctx: object) -> None:
    raise Boom("boom")


def test_the_event_groups_match_the_catalog() -> None:
    assert sorted(n for n, s in CATALOG.items() if s.gate) == sorted(GATES)
    assert sorted(n for n, s in CATALOG.items() if s.deny) == sorted(DENY_EVENTS)
    assert sorted(n for n, s in CATALOG.items() if s.teardown) == sorted(TEARDOWN)


# errors="raise" (default) -------------------------------------------------------------------

NOT_TEARDOWN = [n for n in CATALOG if n not in TEARDOWN]


@pytest.mark.parametrize("event", NOT_TEARDOWN)
async def test_raise_policy_keeps_the_type_and_adds_a_note(event: str) -> None:
    bus = HookBus()
    raised = Boom("boom")
    calls: list[str] = []

    def handler(ctx: object) -> None:
        raise raised

    bus.on(event, handler)
    bus.on(event, lambda ctx: calls.append("after"))
    with pytest.raises(Boom) as info:
        await dispatch(bus, event)
    assert info.value is raised
    assert info.value.__notes__ == [f"raised by handler {label(handler)} of event {event!r}"]
    assert calls == []


async def test_async_handler_exception_keeps_its_type() -> None:
    bus = HookBus()

    async def failing(ctx: object) -> None:
        await asyncio.sleep(0)
        raise KeyError("missing")

    bus.on("pre_request", failing)
    with pytest.raises(KeyError) as info:
        await bus.intercept("pre_request", ctx_for("pre_request"))
    assert info.value.args == ("missing",)
    assert info.value.__notes__ == [f"raised by handler {label(failing)} of event 'pre_request'"]


async def test_scope_event_errors_reach_the_caller() -> None:
    bus = HookBus(errors="raise")
    bus.on("onScopeRegister", boom)
    with pytest.raises(Boom):
        await bus.emit("on_scope_register", ScopeContext())


async def test_a_bad_return_raises_under_the_raise_policy_with_a_note() -> None:
    bus = HookBus()

    def bad(ctx: object) -> dict[str, Any]:
        return {"reponse": 1}

    bus.on("on_response", bad)
    with pytest.raises(BadReturnError) as info:
        await bus.intercept("on_response", ctx_for("on_response"))
    assert info.value.__notes__ == [f"raised by handler {label(bad)} of event 'on_response'"]


# errors="isolate" -------------------------------------------------------------------------


async def test_isolate_per_bus_logs_and_goes_on() -> None:
    bus = HookBus(errors="isolate")
    calls: list[str] = []
    bus.on("on_message", boom)
    bus.on("on_message", lambda ctx: calls.append("next"))
    with structlog.testing.capture_logs() as logs:
        assert await bus.emit("on_message", ctx_for("on_message")) is None
    assert calls == ["next"]
    assert logs == [
        {
            "event": "hook_error_isolated",
            "hook_event": "on_message",
            "handler": label(boom),
            "error": "Boom: boom",
            "guard": False,
            "counted_as": "None: the run goes on; register policy with guard=True to make it "
            "fail closed",
            "log_level": "warning",
        }
    ]


async def test_isolate_per_handler() -> None:
    bus = HookBus()  # raise by default
    calls: list[str] = []
    bus.on("on_loop_start", boom, errors="isolate")
    bus.on("on_loop_start", lambda ctx: calls.append("next"))
    with structlog.testing.capture_logs() as logs:
        await bus.emit("on_loop_start", ctx_for("on_loop_start"))
    assert calls == ["next"]
    assert [(e["hook_event"], e["handler"]) for e in logs] == [("on_loop_start", label(boom))]
    bus.on("on_loop_start", boom)  # this one follows the bus: raise
    with pytest.raises(Boom):
        await bus.emit("on_loop_start", ctx_for("on_loop_start"))


async def test_a_handler_may_insist_on_raise_on_an_isolating_bus() -> None:
    bus = HookBus(errors="isolate")
    bus.on("on_message", boom, errors="raise")
    with pytest.raises(Boom):
        await bus.emit("on_message", ctx_for("on_message"))


@pytest.mark.parametrize("event", GATES)
async def test_isolated_exception_in_a_gate_is_a_deny_with_its_text(event: str) -> None:
    bus = HookBus(errors="isolate")
    calls: list[str] = []
    bus.on(event, boom)
    bus.on(event, lambda ctx: calls.append("skipped"))
    bus.on(event, lambda ctx: calls.append("guard skipped"), guard=True)
    with structlog.testing.capture_logs() as logs:
        assert await bus.intercept(event, ctx_for(event)) == Deny("boom")
    assert calls == []
    assert [e["hook_event"] for e in logs] == [event]


async def test_isolated_exception_without_text_denies_with_its_type_name() -> None:
    bus = HookBus(errors="isolate")

    def silent(ctx: object) -> None:
        raise PermissionError

    bus.on("pre_tool_call", silent)
    with structlog.testing.capture_logs():
        assert await bus.intercept("pre_tool_call", ctx_for("pre_tool_call")) == Deny(
            "PermissionError"
        )


@pytest.mark.parametrize("event", NON_GATE_DENY + NO_DENY_INTERCEPTORS)
async def test_isolated_exception_elsewhere_counts_as_none(event: str) -> None:
    bus = HookBus(errors="isolate")
    calls: list[str] = []
    bus.on(event, boom)
    bus.on(event, lambda ctx: calls.append("next"))
    with structlog.testing.capture_logs() as logs:
        assert await bus.intercept(event, ctx_for(event)) is None
    assert calls == ["next"]
    assert len(logs) == 1


async def test_isolated_exception_in_a_predicate_counts_as_none() -> None:
    bus = HookBus(errors="isolate")
    bus.on("should_stop", boom)
    bus.on("should_stop", lambda ctx: True)
    with structlog.testing.capture_logs() as logs:
        assert await bus.check("should_stop", ctx_for("should_stop")) is True
    assert len(logs) == 1


async def test_isolated_bad_return_counts_as_none_and_changes_nothing() -> None:
    bus = HookBus(errors="isolate")
    seen: list[str | None] = []

    def bad(ctx: object) -> dict[str, Any]:
        return {"response": ProviderResponse(content="half"), "oops": 1}

    bus.on("on_response", bad)
    bus.on("on_response", lambda ctx: seen.append(ctx.response.content))
    ctx = ctx_for("on_response")
    ctx.response = ProviderResponse(content="original")
    with structlog.testing.capture_logs() as logs:
        assert await bus.intercept("on_response", ctx) is None
    assert seen == ["original"]
    assert ctx.response.content == "original"
    assert logs[0]["error"].startswith(
        f"BadReturnError: handler {label(bad)} of 'on_response' returned key 'oops'"
    )


async def test_isolated_bad_return_in_a_gate_is_a_deny() -> None:
    bus = HookBus(errors="isolate")

    def bad(ctx: object) -> str:
        return "allow"

    bus.on("pre_tool_call", bad)
    with structlog.testing.capture_logs():
        deny = await bus.intercept("pre_tool_call", ctx_for("pre_tool_call"))
    assert deny == Deny(
        f"handler {label(bad)} of 'pre_tool_call' returned str; it may return None or "
        '{"call"}, {"error"}, {"result"}, Deny(reason), Ask(reason)'
    )


async def test_isolated_deny_on_an_event_that_cannot_deny_counts_as_none() -> None:
    bus = HookBus(errors="isolate")
    calls: list[str] = []
    bus.on("transform_context", lambda ctx: Deny("no"))
    bus.on("transform_context", lambda ctx: calls.append("next"))
    with structlog.testing.capture_logs() as logs:
        assert await bus.intercept("transform_context", ctx_for("transform_context")) is None
    assert calls == ["next"]
    assert logs[0]["error"].startswith("BadReturnError: ")


# guards fail closed -----------------------------------------------------------------------


@pytest.mark.parametrize("policy", ["raise", "isolate"])
@pytest.mark.parametrize("event", DENY_EVENTS)
async def test_a_guard_exception_is_a_deny_under_both_policies(event: str, policy: str) -> None:
    bus = HookBus(errors=policy)  # type: ignore[arg-type]
    calls: list[str] = []
    bus.on(event, lambda ctx: calls.append("ordinary"))
    bus.on(event, boom, guard=True, errors="raise")
    bus.on(event, lambda ctx: calls.append("later guard"), guard=True)
    with structlog.testing.capture_logs() as logs:
        assert await bus.intercept(event, ctx_for(event)) == Deny("boom")
    assert calls == ["ordinary"]
    assert logs == [
        {
            "event": "hook_error_isolated",
            "hook_event": event,
            "handler": label(boom),
            "error": "Boom: boom",
            "guard": True,
            "counted_as": "Deny: this event fails closed",
            "log_level": "warning",
        }
    ]


@pytest.mark.parametrize("policy", ["raise", "isolate"])
async def test_a_guard_bad_return_is_a_deny_under_both_policies(policy: str) -> None:
    bus = HookBus(errors=policy)  # type: ignore[arg-type]

    def sloppy(ctx: object) -> dict[str, Any]:
        return {"result": "x"}

    bus.on("on_response", sloppy, guard=True)
    with structlog.testing.capture_logs():
        deny = await bus.intercept("on_response", ctx_for("on_response"))
    assert deny == Deny(
        f"handler {label(sloppy)} of 'on_response' returned key 'result', which on_response "
        'does not accept. It may return {"response"}, Deny(reason)'
    )


@pytest.mark.parametrize("policy", ["raise", "isolate"])
@pytest.mark.parametrize(
    "event", NO_DENY_INTERCEPTORS + ["on_message", "on_loop_end", "should_stop", "on_chat_done"]
)
async def test_a_guard_on_an_event_that_cannot_deny_raises(event: str, policy: str) -> None:
    bus = HookBus(errors=policy)  # type: ignore[arg-type]
    bus.on(event, boom, guard=True)
    with pytest.raises(Boom) as info:
        await dispatch(bus, event)
    assert info.value.__notes__ == [f"raised by handler {label(boom)} of event {event!r}"]


async def test_a_guard_bad_return_on_an_event_that_cannot_deny_raises() -> None:
    bus = HookBus(errors="isolate")
    bus.on("transform_context", lambda ctx: {"messages": "not a list"}, guard=True)
    with pytest.raises(BadReturnError):
        await bus.intercept("transform_context", ctx_for("transform_context"))


# teardown events --------------------------------------------------------------------------


@pytest.mark.parametrize("policy", ["raise", "isolate"])
@pytest.mark.parametrize("event", TEARDOWN)
async def test_teardown_handlers_exceptions_are_logged_and_ignored(event: str, policy: str) -> None:
    bus = HookBus(errors=policy)  # type: ignore[arg-type]
    calls: list[str] = []

    async def guard(ctx: object) -> None:
        calls.append("guard")
        raise Boom("guard boom")

    bus.on(event, boom, errors="raise")
    bus.on(event, lambda ctx: calls.append("next"))
    bus.on(event, guard, guard=True)
    bus.on(event, lambda ctx: calls.append("last guard"), guard=True)
    with structlog.testing.capture_logs() as logs:
        assert await bus.emit(event, ctx_for(event)) is None
    assert calls == ["next", "guard", "last guard"]
    assert [(e["hook_event"], e["handler"], e["error"], e["guard"]) for e in logs] == [
        (event, label(boom), "Boom: boom", False),
        (event, label(guard), "Boom: guard boom", True),
    ]


# never isolated ---------------------------------------------------------------------------


@pytest.mark.parametrize("exc_type", [asyncio.CancelledError, KeyboardInterrupt])
@pytest.mark.parametrize(
    ("event", "guard"),
    [
        ("on_message", False),
        ("pre_tool_call", False),
        ("pre_tool_call", True),
        ("on_chat_end", False),
        ("on_chat_abort", True),
    ],
)
async def test_base_exceptions_are_never_isolated(
    exc_type: type[BaseException], event: str, guard: bool
) -> None:
    bus = HookBus(errors="isolate")

    def cancel(ctx: object) -> None:
        raise exc_type()

    bus.on(event, cancel, guard=guard)
    with pytest.raises(exc_type):
        await dispatch(bus, event)


@pytest.mark.parametrize(
    ("event", "guard"),
    [
        ("on_message", False),
        ("pre_tool_call", False),
        ("pre_tool_call", True),
        ("on_response", True),
        ("should_stop", False),
    ],
)
async def test_stop_run_is_never_isolated(event: str, guard: bool) -> None:
    bus = HookBus(errors="isolate")

    def stop(ctx: object) -> None:
        raise StopRun("budget")

    bus.on(event, stop, guard=guard)
    with pytest.raises(StopRun) as info:
        await dispatch(bus, event)
    assert info.value.reason == "budget"
