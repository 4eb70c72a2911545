"""Interceptor folds, short-circuits, recovery, predicates, Deny and the guard tier."""

from __future__ import annotations

from typing import Any

import pytest
import structlog

from agenthooks import BadReturnError, Deny, HookBus
from agenthooks.events import (
    CATALOG,
    ChatStartContext,
    ModelErrorContext,
    PreRequestContext,
    PreToolCallContext,
    ResponseContext,
    ToolErrorContext,
    TransformContextContext,
    TurnContext,
    UserMessageContext,
)
from agenthooks.messages import ChatMessage, ProviderRequest, ProviderResponse, ToolCall


def response_ctx(content: str) -> ResponseContext:
    return ResponseContext(response=ProviderResponse(content=content))


def tool_ctx(name: str = "search", **arguments: Any) -> PreToolCallContext:
    return PreToolCallContext(
        call=ToolCall(id="c1", name=name, arguments=arguments), tool_call_id="c1"
    )


def error_ctx(source: str = "handler") -> ToolErrorContext:
    return ToolErrorContext(
        call=ToolCall(id="c1", name="search"),
        tool_call_id="c1",
        error=ValueError("tool failed"),
        source=source,
    )


# composition ------------------------------------------------------------------------------


async def test_seed_000_trim_then_uppercase() -> None:
    bus = HookBus()

    def trim(ctx: ResponseContext) -> dict[str, Any]:
        return {"response": {**ctx.response.model_dump(), "content": ctx.response.content.strip()}}

    async def upper(ctx: ResponseContext) -> dict[str, Any]:
        # runs after the trim hook, sees the trimmed content
        return {
            "response": ctx.response.model_copy(update={"content": ctx.response.content.upper()})
        }

    bus.on("onResponse", trim)
    bus.on("onResponse", upper)
    ctx = response_ctx("  hello world \n")
    assert await bus.intercept("on_response", ctx) is None
    assert isinstance(ctx.response, ProviderResponse)
    assert ctx.response.content == "HELLO WORLD"


async def test_each_handler_sees_what_the_previous_returned() -> None:
    bus = HookBus()
    seen: list[list[str | None]] = []

    def snapshot(ctx: TransformContextContext) -> None:
        seen.append([m.content for m in ctx.messages])

    def add(text: str):
        def handler(ctx: TransformContextContext) -> dict[str, Any]:
            return {"messages": [*ctx.messages, ChatMessage(role="user", content=text)]}

        return handler

    bus.on("transform_context", add("b"))
    bus.on("transform_context", snapshot)
    bus.on("transform_context", add("c"))
    bus.on("transform_context", snapshot)
    bus.on("transform_context", add("z"), priority=1)
    history = [ChatMessage(role="user", content="a")]
    ctx = TransformContextContext(messages=list(history))
    await bus.intercept("transform_context", ctx)
    assert seen == [["a", "z", "b"], ["a", "z", "b", "c"]]
    assert [m.content for m in ctx.messages] == ["a", "z", "b", "c"]
    assert [m.content for m in history] == ["a"]


async def test_none_means_unchanged_and_falsy_values_still_count() -> None:
    bus = HookBus()
    bus.on("on_user_message", lambda ctx: None)
    bus.on("on_user_message", lambda ctx: {})  # an empty mapping changes nothing
    ctx = UserMessageContext(message="hello")
    await bus.intercept("on_user_message", ctx)
    assert ctx.message == "hello"
    bus.on("on_user_message", lambda ctx: {"message": ""})  # "" is a value, not "no change"
    await bus.intercept("on_user_message", ctx)
    assert ctx.message == ""


async def test_dict_values_are_validated_into_the_field_type() -> None:
    bus = HookBus()
    bus.on("pre_request", lambda ctx: {"request": {"model": "small", "system": "be brief"}})
    ctx = PreRequestContext(request=ProviderRequest(model="big"))
    await bus.intercept("pre_request", ctx)
    assert ctx.request == ProviderRequest(model="small", system="be brief")


async def test_interceptor_that_drains_is_not_stopped_by_a_value() -> None:
    bus = HookBus()
    calls: list[str] = []

    def first(ctx: ResponseContext) -> dict[str, Any]:
        calls.append("first")
        return {"response": ProviderResponse(content="one")}

    def second(ctx: ResponseContext) -> None:
        calls.append(f"second saw {ctx.response.content}")

    bus.on("on_response", first)
    bus.on("on_response", second)
    await bus.intercept("on_response", response_ctx("zero"))
    assert calls == ["first", "second saw one"]


# short-circuits ---------------------------------------------------------------------------


async def test_pre_request_response_skips_later_ordinary_handlers_but_not_guards() -> None:
    bus = HookBus()
    calls: list[str] = []
    cached = ProviderResponse(content="cached")

    def cache(ctx: PreRequestContext) -> dict[str, Any]:
        calls.append("cache")
        return {"response": cached}

    def later(ctx: PreRequestContext) -> None:
        calls.append("later")

    def guard(ctx: PreRequestContext) -> None:
        calls.append(f"guard saw {ctx.response.content} via {ctx.short_circuit}")

    bus.on("pre_request", guard, guard=True, priority=10)
    bus.on("pre_request", cache)
    bus.on("pre_request", later)
    ctx = PreRequestContext()
    assert await bus.intercept("pre_request", ctx) is None
    assert calls == ["cache", "guard saw cached via response"]
    assert ctx.response is cached
    assert ctx.short_circuit == "response"


async def test_pre_request_without_short_circuit_leaves_the_marker_unset() -> None:
    bus = HookBus()
    bus.on("pre_request", lambda ctx: {"request": ProviderRequest(model="m")})
    ctx = PreRequestContext()
    await bus.intercept("pre_request", ctx)
    assert ctx.short_circuit is None
    assert ctx.response is None


@pytest.mark.parametrize(("key", "value"), [("result", {"hits": 3}), ("error", "no network")])
async def test_pre_tool_call_result_or_error_short_circuits(key: str, value: Any) -> None:
    bus = HookBus()
    calls: list[str] = []

    def first(ctx: PreToolCallContext) -> dict[str, Any]:
        calls.append("first")
        return {key: value}

    def guard(ctx: PreToolCallContext) -> None:
        calls.append(f"guard saw {ctx.short_circuit}={getattr(ctx, key)!r}")

    bus.on("pre_tool_call", first)
    bus.on("pre_tool_call", lambda ctx: calls.append("skipped"))
    bus.on("pre_tool_call", guard, guard=True)
    ctx = tool_ctx()
    assert await bus.intercept("pre_tool_call", ctx) is None
    assert calls == ["first", f"guard saw {key}={value!r}"]
    assert getattr(ctx, key) == value


async def test_pre_agent_response_short_circuits() -> None:
    from agenthooks.events import PreAgentContext
    from agenthooks.messages import AgentResponse

    bus = HookBus()
    calls: list[str] = []
    bus.on("pre_agent", lambda ctx: {"response": AgentResponse(content="canned")})
    bus.on("pre_agent", lambda ctx: calls.append("skipped"))
    ctx = PreAgentContext(input="q")
    await bus.intercept("pre_agent", ctx)
    assert calls == []
    assert ctx.response == AgentResponse(content="canned")
    assert ctx.short_circuit == "response"


async def test_short_circuit_keys_exclude_each_other() -> None:
    bus = HookBus()

    def both(ctx: PreToolCallContext) -> dict[str, Any]:
        return {"result": 1, "error": "x"}

    bus.on("pre_tool_call", both)
    ctx = tool_ctx()
    with pytest.raises(BadReturnError) as info:
        await bus.intercept("pre_tool_call", ctx)
    assert str(info.value) == (
        f"handler {both.__module__}.{both.__qualname__} of 'pre_tool_call' returned "
        "['error', 'result']: short-circuit keys exclude each other"
    )
    assert ctx.result is None and ctx.error is None and ctx.short_circuit is None


async def test_call_changes_arguments_and_composes() -> None:
    bus = HookBus()
    seen: list[dict[str, Any]] = []

    def add_limit(ctx: PreToolCallContext) -> dict[str, Any]:
        return {
            "call": ctx.call.model_copy(update={"arguments": {**ctx.call.arguments, "limit": 5}})
        }

    def as_dict(ctx: PreToolCallContext) -> dict[str, Any]:
        seen.append(dict(ctx.call.arguments))
        return {"call": {"id": "c1", "name": "search", "arguments": {"q": "B", "limit": 5}}}

    bus.on("pre_tool_call", add_limit)
    bus.on("pre_tool_call", as_dict)
    bus.on("pre_tool_call", lambda ctx: seen.append(dict(ctx.call.arguments)))
    ctx = tool_ctx(q="a")
    original = ctx.call
    assert await bus.intercept("pre_tool_call", ctx) is None
    assert seen == [{"q": "a", "limit": 5}, {"q": "B", "limit": 5}]
    assert ctx.call == ToolCall(id="c1", name="search", arguments={"q": "B", "limit": 5})
    assert ctx.short_circuit is None
    assert original.arguments == {"q": "a"}


@pytest.mark.parametrize("field", ["id", "name"])
async def test_call_with_a_changed_id_or_name_is_a_bad_return(field: str) -> None:
    bus = HookBus()

    def rename(ctx: PreToolCallContext) -> dict[str, Any]:
        return {"call": ctx.call.model_copy(update={field: "other"})}

    bus.on("pre_tool_call", rename)
    ctx = tool_ctx(q="a")
    with pytest.raises(BadReturnError) as info:
        await bus.intercept("pre_tool_call", ctx)
    assert str(info.value) == (
        f"handler {rename.__module__}.{rename.__qualname__} of 'pre_tool_call' returned 'call' "
        "with a changed id or name: only arguments may change"
    )
    assert ctx.call == ToolCall(id="c1", name="search", arguments={"q": "a"})


# recovery ---------------------------------------------------------------------------------


async def test_on_model_error_first_recovery_wins() -> None:
    bus = HookBus()
    calls: list[str] = []
    replacement = TimeoutError("replaced")

    def replace(ctx: ModelErrorContext) -> dict[str, Any]:
        calls.append(f"replace saw {ctx.error}")
        return {"error": replacement}

    def recover(ctx: ModelErrorContext) -> dict[str, Any]:
        calls.append(f"recover saw {ctx.error}")
        return {"response": ProviderResponse(content="fallback")}

    def guard(ctx: ModelErrorContext) -> None:
        calls.append(f"guard saw {ctx.response.content} recovered={ctx.recovered}")

    bus.on("on_model_error", replace)
    bus.on("on_model_error", recover)
    bus.on("on_model_error", lambda ctx: calls.append("skipped"))
    bus.on("on_model_error", guard, guard=True)
    ctx = ModelErrorContext(error=ConnectionError("down"))
    assert await bus.intercept("on_model_error", ctx) is None
    assert calls == [
        "replace saw down",
        "recover saw replaced",
        "guard saw fallback recovered=True",
    ]
    assert ctx.response == ProviderResponse(content="fallback")
    assert ctx.error is replacement


async def test_error_replacements_keep_draining() -> None:
    bus = HookBus()
    errors = [KeyError("a"), ValueError("b"), TypeError("c")]
    seen: list[BaseException | None] = []
    for err in errors:

        def handler(ctx: ModelErrorContext, err: BaseException = err) -> dict[str, Any]:
            seen.append(ctx.error)
            return {"error": err}

        bus.on("on_model_error", handler)
    original = ConnectionError("down")
    ctx = ModelErrorContext(error=original)
    await bus.intercept("on_model_error", ctx)
    assert seen == [original, errors[0], errors[1]]
    assert ctx.error is errors[2]
    assert ctx.recovered is False and ctx.response is None


async def test_on_tool_call_error_first_recovery_wins() -> None:
    bus = HookBus()
    calls: list[str] = []
    bus.on("on_tool_call_error", lambda ctx: {"error": "rewritten"})
    bus.on("on_tool_call_error", lambda ctx: {"result": "fallback", "terminate": True})
    bus.on("on_tool_call_error", lambda ctx: calls.append("skipped"))
    bus.on("on_tool_call_error", lambda ctx: calls.append(f"guard:{ctx.result}"), guard=True)
    ctx = error_ctx()
    await bus.intercept("on_tool_call_error", ctx)
    assert calls == ["guard:fallback"]
    assert (ctx.result, ctx.recovered, ctx.terminate, ctx.error) == (
        "fallback",
        True,
        True,
        "rewritten",
    )


async def test_recovery_is_ignored_for_denied_calls() -> None:
    bus = HookBus()
    calls: list[str] = []
    bus.on("on_tool_call_error", lambda ctx: {"result": "sneaky", "terminate": True})
    bus.on("on_tool_call_error", lambda ctx: calls.append(f"next saw {ctx.result!r}"))
    bus.on("on_tool_call_error", lambda ctx: {"error": "Denied: policy"})
    ctx = error_ctx(source="denied")
    with structlog.testing.capture_logs() as logs:
        assert await bus.intercept("on_tool_call_error", ctx) is None
    assert calls == ["next saw None"]  # the chain went on: the recovery counted as None
    assert (ctx.result, ctx.recovered, ctx.error) == (None, False, "Denied: policy")
    assert ctx.terminate is True  # the other keys of that return still apply
    assert [e["event"] for e in logs] == ["denied_recovery_ignored"]
    assert logs[0]["hook_event"] == "on_tool_call_error"
    assert logs[0]["tool_call_id"] == "c1"
    assert logs[0]["log_level"] == "info"


# predicates -------------------------------------------------------------------------------


async def test_should_stop_any_true_wins_and_stops_at_the_first_true() -> None:
    bus = HookBus()
    calls: list[str] = []

    def vote(label: str, value: bool | None):
        async def handler(ctx: TurnContext) -> bool | None:
            calls.append(label)
            return value

        return handler

    bus.on("should_stop", vote("none", None))
    bus.on("should_stop", vote("false", False))
    bus.on("should_stop", vote("true", True))
    bus.on("should_stop", vote("after", False))
    bus.on("should_stop", vote("guard", False), guard=True)
    assert await bus.check("should_stop", TurnContext()) is True
    assert calls == ["none", "false", "true"]


async def test_should_stop_all_false_is_false() -> None:
    bus = HookBus()
    calls: list[str] = []
    bus.on("should_stop", lambda ctx: calls.append("a"))
    bus.on("should_stop", lambda ctx: False)
    bus.on("should_stop", lambda ctx: calls.append("guard") and None, guard=True)
    assert await bus.check("ShouldStopAfterTurn", TurnContext()) is False
    assert calls == ["a", "guard"]


async def test_should_stop_non_bool_is_a_bad_return() -> None:
    bus = HookBus()

    def maybe(ctx: TurnContext) -> str:
        return "yes"

    bus.on("should_stop", maybe)
    with pytest.raises(BadReturnError) as info:
        await bus.check("should_stop", TurnContext())
    assert str(info.value) == (
        f"should_stop handlers return True, False or None, not str "
        f"(handler {maybe.__module__}.{maybe.__qualname__})"
    )


# Deny ---------------------------------------------------------------------------------------

DENY_EVENTS = sorted(n for n, s in CATALOG.items() if s.deny)
NO_DENY_INTERCEPTORS = sorted(
    n for n, s in CATALOG.items() if s.kind == "interceptor" and not s.deny
)


def test_the_events_that_can_deny() -> None:
    assert (
        sorted(
            [
                "on_chat_start",
                "on_user_message",
                "pre_agent",
                "post_agent",
                "on_session_start",
                "pre_request",
                "on_response",
                "on_output",
                "pre_tool_call",
                "on_tool_call_result",
                "pre_handoff",
            ]
        )
        == DENY_EVENTS
    )
    assert (
        sorted(["transform_context", "on_model_error", "on_tool_call_error", "prepare_next_turn"])
        == NO_DENY_INTERCEPTORS
    )


@pytest.mark.parametrize("event", DENY_EVENTS)
async def test_deny_is_returned_and_final(event: str) -> None:
    bus = HookBus()
    calls: list[str] = []
    deny = Deny("not allowed")
    bus.on(event, lambda ctx: calls.append("first"))
    bus.on(event, lambda ctx: deny)
    bus.on(event, lambda ctx: calls.append("later"))
    bus.on(event, lambda ctx: calls.append("guard"), guard=True)
    assert await bus.intercept(event, CATALOG[event].context()) is deny
    assert calls == ["first"]


@pytest.mark.parametrize("event", DENY_EVENTS)
async def test_a_guard_may_deny(event: str) -> None:
    bus = HookBus()
    calls: list[str] = []
    bus.on(event, lambda ctx: Deny(), guard=True)
    bus.on(event, lambda ctx: calls.append("second guard"), guard=True)
    bus.on(event, lambda ctx: calls.append("ordinary"))
    assert await bus.intercept(event, CATALOG[event].context()) == Deny()
    assert calls == ["ordinary"]


@pytest.mark.parametrize("event", NO_DENY_INTERCEPTORS)
async def test_deny_on_an_event_that_cannot_deny_is_a_bad_return(event: str) -> None:
    bus = HookBus()

    def refuse(ctx: object) -> Deny:
        return Deny("no")

    bus.on(event, refuse)
    with pytest.raises(BadReturnError) as info:
        await bus.intercept(event, CATALOG[event].context())
    assert str(info.value) == (
        f"handler {refuse.__module__}.{refuse.__qualname__} returned Deny on {event!r}, "
        f"which cannot deny; it may return {CATALOG[event].may_return}"
    )


def test_deny_text() -> None:
    assert Deny("policy").text("search") == "policy"
    assert Deny().text("search") == 'Tool call "search" was denied'
    assert Deny().text() == "denied"
    assert Deny("").text() == "denied"


async def test_deny_after_a_short_circuit_wins() -> None:
    bus = HookBus()
    bus.on("pre_request", lambda ctx: {"response": ProviderResponse(content="cached")})
    bus.on("pre_request", lambda ctx: Deny("cache poisoned") if ctx.response else None, guard=True)
    assert await bus.intercept("pre_request", PreRequestContext()) == Deny("cache poisoned")


# the guard tier ---------------------------------------------------------------------------


async def test_guards_run_after_every_ordinary_handler_in_their_own_order() -> None:
    bus = HookBus()
    calls: list[str] = []
    bus.on("on_chat_start", lambda ctx: calls.append("g-low"), guard=True, priority=-1)
    bus.on("on_chat_start", lambda ctx: calls.append("g-high"), guard=True, priority=50)
    bus.on("on_chat_start", lambda ctx: calls.append("o-low"), priority=-100)
    bus.on("on_chat_start", lambda ctx: calls.append("g-0"), guard=True)
    bus.on("on_chat_start", lambda ctx: calls.append("o-0"))
    await bus.intercept("on_chat_start", ChatStartContext(message="hi"))
    assert calls == ["o-0", "o-low", "g-high", "g-0", "g-low"]


async def test_guards_see_the_final_value_and_may_change_it() -> None:
    bus = HookBus()
    seen: list[str | None] = []

    def redact(ctx: ResponseContext) -> dict[str, Any]:
        seen.append(ctx.response.content)
        return {
            "response": ctx.response.model_copy(
                update={"content": ctx.response.content.replace("secret", "[redacted]")}
            )
        }

    bus.on("on_response", redact, guard=True)
    bus.on("on_response", lambda ctx: {"response": ProviderResponse(content="the secret")})
    bus.on(
        "on_response", lambda ctx: seen.append(f"last guard: {ctx.response.content}"), guard=True
    )
    ctx = response_ctx("x")
    await bus.intercept("on_response", ctx)
    assert seen == ["the secret", "last guard: the [redacted]"]
    assert ctx.response.content == "the [redacted]"


async def test_guards_run_after_a_recovery() -> None:
    bus = HookBus()
    calls: list[str] = []
    bus.on("on_tool_call_error", lambda ctx: {"result": 1})
    bus.on("on_tool_call_error", lambda ctx: calls.append(f"guard:{ctx.result}"), guard=True)
    await bus.intercept("on_tool_call_error", error_ctx())
    assert calls == ["guard:1"]


async def test_guards_on_observers_run_last() -> None:
    from agenthooks.events import MessageContext

    bus = HookBus()
    calls: list[str] = []
    bus.on("on_message", lambda ctx: calls.append("guard"), guard=True, priority=9)
    bus.on("on_message", lambda ctx: calls.append("observer"))
    await bus.emit("on_message", MessageContext(message=ChatMessage(role="user")))
    assert calls == ["observer", "guard"]


# bad returns --------------------------------------------------------------------------------


async def test_unknown_key_names_the_closest_key() -> None:
    bus = HookBus()

    def typo(ctx: ResponseContext) -> dict[str, Any]:
        return {"respons": ProviderResponse(content="x")}

    bus.on("on_response", typo)
    ctx = response_ctx("kept")
    with pytest.raises(BadReturnError) as info:
        await bus.intercept("on_response", ctx)
    label = f"{typo.__module__}.{typo.__qualname__}"
    assert str(info.value) == (
        f"handler {label} of 'on_response' returned key 'respons', which on_response does not "
        "accept; did you mean 'response'? It may return {\"response\"}, Deny(reason)"
    )
    assert ctx.response.content == "kept"


async def test_unknown_key_without_a_close_match() -> None:
    bus = HookBus()

    def odd(ctx: object) -> dict[str, Any]:
        return {"zzz": 1}

    bus.on("on_tool_call_result", odd)
    with pytest.raises(BadReturnError) as info:
        await bus.intercept("on_tool_call_result", CATALOG["on_tool_call_result"].context())
    assert str(info.value) == (
        f"handler {odd.__module__}.{odd.__qualname__} of 'on_tool_call_result' returned key "
        "'zzz', which on_tool_call_result does not accept. It may return {\"result\"}, "
        '{"terminate"}, Deny(reason)'
    )


async def test_a_non_mapping_return_is_a_bad_return() -> None:
    bus = HookBus()

    def text(ctx: object) -> str:
        return "HELLO"

    bus.on("on_response", text)
    with pytest.raises(BadReturnError) as info:
        await bus.intercept("on_response", response_ctx("x"))
    assert str(info.value) == (
        f"handler {text.__module__}.{text.__qualname__} of 'on_response' returned str; it may "
        'return None or {"response"}, Deny(reason)'
    )


async def test_a_value_of_the_wrong_type_is_a_bad_return_and_changes_nothing() -> None:
    bus = HookBus()

    def wrong(ctx: object) -> dict[str, Any]:
        return {"message": 42}

    bus.on("on_user_message", wrong)
    ctx = UserMessageContext(message="hi")
    with pytest.raises(BadReturnError) as info:
        await bus.intercept("on_user_message", ctx)
    assert str(info.value) == (
        f"handler {wrong.__module__}.{wrong.__qualname__} of 'on_user_message' returned "
        "'message' as int: give a str"
    )
    assert ctx.message == "hi"


async def test_all_keys_are_validated_before_any_is_applied() -> None:
    bus = HookBus()
    bus.on("pre_request", lambda ctx: {"request": ProviderRequest(model="new"), "response": 5})
    ctx = PreRequestContext(request=ProviderRequest(model="old"))
    with pytest.raises(BadReturnError):
        await bus.intercept("pre_request", ctx)
    assert ctx.request.model == "old"
    assert ctx.response is None and ctx.short_circuit is None


async def test_on_model_error_error_must_be_an_exception() -> None:
    bus = HookBus()

    def text(ctx: ModelErrorContext) -> dict[str, Any]:
        return {"error": "try later"}

    bus.on("on_model_error", text)
    original = ConnectionError("down")
    ctx = ModelErrorContext(error=original)
    with pytest.raises(BadReturnError) as info:
        await bus.intercept("on_model_error", ctx)
    assert str(info.value) == (
        f"handler {text.__module__}.{text.__qualname__} of 'on_model_error' returned 'error' "
        "as str: give an exception"
    )
    assert ctx.error is original


@pytest.mark.parametrize("event", ["pre_tool_call", "on_tool_call_error"])
async def test_tool_error_may_be_an_exception_or_text(event: str) -> None:
    bus = HookBus()
    exc = PermissionError("no")
    bus.on(event, lambda ctx: {"error": exc})
    ctx = CATALOG[event].context()
    await bus.intercept(event, ctx)
    assert ctx.error is exc
    bus2 = HookBus()
    bus2.on(event, lambda ctx: {"error": 404})
    with pytest.raises(BadReturnError) as info:
        await bus2.intercept(event, CATALOG[event].context())
    assert str(info.value).endswith("returned 'error' as int: give an exception or a str")


async def test_a_guard_short_circuit_does_not_skip_later_guards() -> None:
    bus = HookBus()
    calls: list[str] = []
    cached = ProviderResponse(content="from guard")
    bus.on("pre_request", lambda ctx: calls.append("ordinary"))
    bus.on("pre_request", lambda ctx: {"response": cached}, guard=True)
    bus.on(
        "pre_request", lambda ctx: calls.append(f"guard 2 saw {ctx.response.content}"), guard=True
    )
    ctx = PreRequestContext()
    assert await bus.intercept("pre_request", ctx) is None
    assert calls == ["ordinary", "guard 2 saw from guard"]
    assert ctx.short_circuit == "response" and ctx.response is cached


async def test_a_subclass_instance_is_kept_as_returned() -> None:
    class Tagged(ProviderResponse):
        tag: str = "t"

    bus = HookBus()
    value = Tagged(content="x")
    bus.on("on_response", lambda ctx: {"response": value})
    ctx = response_ctx("old")
    await bus.intercept("on_response", ctx)
    assert ctx.response is value
