"""HookBus registration: order, decorators, once/off/disposers, names, aliases, matchers."""

from __future__ import annotations

import re

import pytest

from agenthooks import Disposer, HookBus, RegistrationError, UnknownEventError
from agenthooks.events import (
    CATALOG,
    HandoffContext,
    MessageContext,
    PreToolCallContext,
    SubagentContext,
)
from agenthooks.messages import ChatMessage, ToolCall


def message() -> MessageContext:
    return MessageContext(message=ChatMessage(role="user", content="hi"))


def tool_ctx(name: str) -> PreToolCallContext:
    return PreToolCallContext(call=ToolCall(id="c1", name=name), tool_call_id="c1")


def recorder(calls: list[str], label: str):
    def handler(ctx: object) -> None:
        calls.append(label)

    handler.__qualname__ = f"handler_{label}"
    return handler


# order ------------------------------------------------------------------------------------


async def test_registration_order_is_fifo() -> None:
    bus = HookBus()
    calls: list[str] = []
    # blinker's receiver set ran 12 handlers as 0,4,3,2,1,5,...; our list keeps FIFO
    for i in range(12):
        bus.on("on_message", recorder(calls, str(i)))
    await bus.emit("on_message", message())
    assert calls == [str(i) for i in range(12)]


async def test_priority_first_then_registration_order() -> None:
    bus = HookBus()
    calls: list[str] = []
    bus.on("on_message", recorder(calls, "a0"))
    bus.on("on_message", recorder(calls, "b-5"), priority=-5)
    bus.on("on_message", recorder(calls, "c10"), priority=10)
    bus.on("on_message", recorder(calls, "d0"))
    bus.on("on_message", recorder(calls, "e10"), priority=10)
    bus.on("on_message", recorder(calls, "f-5"), priority=-5)
    await bus.emit("on_message", message())
    assert calls == ["c10", "e10", "a0", "d0", "b-5", "f-5"]


async def test_handlers_lists_the_run_order_with_guards_last() -> None:
    bus = HookBus()

    def g(ctx: object) -> None: ...
    def a(ctx: object) -> None: ...
    def b(ctx: object) -> None: ...

    bus.on("pre_request", g, guard=True, priority=100)
    bus.on("pre_request", a)
    bus.on("preRequest", b, priority=1)
    assert bus.handlers("pre_request") == [b, a, g]
    assert bus.handlers("LlmCall") == [b, a, g]
    assert bus.handlers("on_message") == []


# registration forms ---------------------------------------------------------------------


async def test_decorator_form_returns_the_function_unchanged() -> None:
    bus = HookBus()
    calls: list[str] = []

    def original(ctx: object) -> None:
        calls.append("decorated")

    decorated = bus.on("on_message")(original)
    assert decorated is original
    assert bus.handlers("on_message") == [original]

    @bus.on("pre_tool_call", match="search", priority=3, errors="isolate", guard=True)
    async def guard(ctx: object) -> None:
        calls.append("guard")

    assert callable(guard) and guard.__name__ == "guard"
    assert bus.handlers("pre_tool_call") == [guard]
    await bus.emit("on_message", message())
    await bus.intercept("pre_tool_call", tool_ctx("search"))
    assert calls == ["decorated", "guard"]


async def test_on_returns_a_disposer() -> None:
    bus = HookBus()
    calls: list[str] = []
    dispose = bus.on("on_message", recorder(calls, "x"))
    assert isinstance(dispose, Disposer)
    assert dispose.active
    await bus.emit("on_message", message())
    dispose()
    assert not dispose.active
    await bus.emit("on_message", message())
    assert calls == ["x"]
    assert "on_message" not in bus.listened


async def test_second_disposer_call_is_a_no_op() -> None:
    bus = HookBus()
    calls: list[str] = []
    h = recorder(calls, "h")
    first = bus.on("on_message", h)
    first()
    second = bus.on("on_message", h)  # the same function, registered again
    first()  # must not remove the new registration
    await bus.emit("on_message", message())
    assert calls == ["h"]
    second()
    second()
    assert bus.handlers("on_message") == []


async def test_disposer_is_a_context_manager() -> None:
    bus = HookBus()
    calls: list[str] = []
    with bus.on("on_message", recorder(calls, "inside")) as dispose:
        assert isinstance(dispose, Disposer)
        await bus.emit("on_message", message())
    await bus.emit("on_message", message())
    assert calls == ["inside"]
    assert not dispose.active


async def test_disposer_context_manager_removes_on_exception() -> None:
    bus = HookBus()
    with pytest.raises(KeyError), bus.on("on_message", recorder([], "h")):
        raise KeyError("x")
    assert bus.handlers("on_message") == []


async def test_connected_helper_registers_for_the_block() -> None:
    bus = HookBus()
    calls: list[str] = []
    h = recorder(calls, "h")
    with bus.connected("onMessage", h, priority=2) as got:
        assert got is h
        await bus.emit("on_message", message())
    await bus.emit("on_message", message())
    assert calls == ["h"]


async def test_once_runs_a_single_time() -> None:
    bus = HookBus()
    calls: list[str] = []
    bus.once("on_message", recorder(calls, "once"))
    bus.on("on_message", recorder(calls, "always"))
    await bus.emit("on_message", message())
    await bus.emit("on_message", message())
    assert calls == ["once", "always", "always"]
    assert len(bus.handlers("on_message")) == 1


async def test_once_is_removed_before_its_call_so_reentry_does_not_rerun_it() -> None:
    bus = HookBus()
    calls: list[str] = []

    async def reenter(ctx: MessageContext) -> None:
        calls.append("once")
        await bus.emit("on_message", ctx)

    bus.once("on_message", reenter)
    await bus.emit("on_message", message())
    assert calls == ["once"]


async def test_once_decorator_and_disposer() -> None:
    bus = HookBus()
    calls: list[str] = []

    @bus.once("on_message")
    def first(ctx: object) -> None:
        calls.append("first")

    dispose = bus.once("on_message", recorder(calls, "never"))
    dispose()
    dispose()
    await bus.emit("on_message", message())
    await bus.emit("on_message", message())
    assert calls == ["first"]


async def test_once_with_a_matcher_waits_for_a_match() -> None:
    bus = HookBus()
    calls: list[str] = []
    bus.once("pre_tool_call", recorder(calls, "hit"), match="search")
    await bus.intercept("pre_tool_call", tool_ctx("fetch"))
    await bus.intercept("pre_tool_call", tool_ctx("search"))
    await bus.intercept("pre_tool_call", tool_ctx("search"))
    assert calls == ["hit"]


async def test_once_on_interceptor_and_predicate_events() -> None:
    bus = HookBus()
    from agenthooks.events import TurnContext

    bus.once("should_stop", lambda ctx: True)
    assert await bus.check("should_stop", TurnContext()) is True
    assert await bus.check("should_stop", TurnContext()) is False


async def test_off_removes_every_registration_of_the_handler() -> None:
    bus = HookBus()
    calls: list[str] = []
    h = recorder(calls, "h")
    other = recorder(calls, "other")
    bus.on("on_message", h)
    bus.on("on_message", other)
    bus.on("on_message", h, priority=5)
    assert bus.off("onMessage", h) is True
    assert bus.off("on_message", h) is False
    await bus.emit("on_message", message())
    assert calls == ["other"]


async def test_off_unknown_event_raises() -> None:
    with pytest.raises(UnknownEventError):
        HookBus().off("on_mesage", print)


# changes during dispatch ----------------------------------------------------------------


async def test_registration_during_dispatch_applies_from_the_next_emission() -> None:
    bus = HookBus()
    calls: list[str] = []
    late = recorder(calls, "late")

    def adder(ctx: object) -> None:
        calls.append("adder")
        if late not in bus.handlers("on_message"):
            bus.on("on_message", late, priority=100)  # would sort first next time

    bus.on("on_message", adder)
    bus.on("on_message", recorder(calls, "tail"))
    await bus.emit("on_message", message())
    assert calls == ["adder", "tail"]
    calls.clear()
    await bus.emit("on_message", message())
    assert calls == ["late", "adder", "tail"]


async def test_removal_during_dispatch_applies_from_the_next_emission() -> None:
    bus = HookBus()
    calls: list[str] = []
    disposers: dict[str, Disposer] = {}

    def remover(ctx: object) -> None:
        calls.append("remover")
        disposers["victim"]()
        disposers["self"]()

    disposers["self"] = bus.on("on_message", remover)
    disposers["victim"] = bus.on("on_message", recorder(calls, "victim"))
    bus.on("on_message", recorder(calls, "tail"))
    await bus.emit("on_message", message())
    assert calls == ["remover", "victim", "tail"]
    calls.clear()
    await bus.emit("on_message", message())
    assert calls == ["tail"]


async def test_changes_during_an_interceptor_fold_apply_next_time() -> None:
    bus = HookBus()
    calls: list[str] = []
    guard = recorder(calls, "new-guard")

    def first(ctx: object) -> None:
        calls.append("first")
        bus.on("pre_tool_call", guard, guard=True)
        bus.off("pre_tool_call", second)

    def second(ctx: object) -> None:
        calls.append("second")

    bus.on("pre_tool_call", first)
    bus.on("pre_tool_call", second)
    await bus.intercept("pre_tool_call", tool_ctx("t"))
    assert calls == ["first", "second"]
    calls.clear()
    bus.off("pre_tool_call", first)
    await bus.intercept("pre_tool_call", tool_ctx("t"))
    assert calls == ["new-guard"]


# names and aliases ----------------------------------------------------------------------


def test_unknown_event_names_the_closest_events() -> None:
    bus = HookBus()
    with pytest.raises(UnknownEventError) as info:
        bus.on("pre_tool_cal", print)
    assert str(info.value) == (
        "unknown event 'pre_tool_cal'; did you mean 'pre_tool_call', 'pre_model_call', "
        "'pre_tool_use'?"
    )
    assert info.value.suggestions == ["pre_tool_call", "pre_model_call", "pre_tool_use"]
    assert isinstance(info.value, RegistrationError)
    assert isinstance(info.value, KeyError)
    assert bus.listened == frozenset()


@pytest.mark.parametrize(
    ("name", "text"),
    [
        (
            "on_mesage",
            "unknown event 'on_mesage'; did you mean 'on_message', 'onMessage', 'on_user_message'?",
        ),
        (
            "PRE_REQUEST",
            (
                "unknown event 'PRE_REQUEST'; did you mean 'pre_request', 'pre_agent', "
                "'prepare_next_turn'?"
            ),
        ),
        (
            "aftertool",
            "unknown event 'aftertool'; did you mean 'AfterTool', 'afterToolCall', 'AfterToolCall'?",
        ),
        ("xyz", "unknown event 'xyz'"),
    ],
)
def test_unknown_event_messages(name: str, text: str) -> None:
    with pytest.raises(UnknownEventError) as info:
        HookBus().once(name, print)
    assert str(info.value) == text


def test_unknown_event_in_decorator_form_fails_at_the_decorator_call() -> None:
    with pytest.raises(UnknownEventError):
        HookBus().on("onToolcall")


def test_unknown_event_in_signal_and_handlers() -> None:
    bus = HookBus()
    with pytest.raises(UnknownEventError):
        bus.signal("on_chat_strat")
    with pytest.raises(UnknownEventError):
        bus.handlers("nope")


# The list under "Aliases, exactly" in spec/events.md, typed out.
SPEC_ALIASES: list[tuple[str, str]] = [
    # 000
    ("onChatStart", "on_chat_start"),
    ("onChatDone", "on_chat_done"),
    ("onChatAbort", "on_chat_abort"),
    ("onChatError", "on_chat_error"),
    ("preRequest", "pre_request"),
    ("onResponse", "on_response"),
    ("onMessage", "on_message"),
    ("preToolCall", "pre_tool_call"),
    ("onToolCallResult", "on_tool_call_result"),
    ("onToolCallError", "on_tool_call_error"),
    ("onScopeRegister", "on_scope_register"),
    ("onScopeUnregister", "on_scope_unregister"),
    # 001
    ("AgentStart", "on_chat_start"),
    ("AgentEnd", "on_chat_end"),
    ("LoopStart", "on_loop_start"),
    ("LoopEnd", "on_loop_end"),
    ("LlmCall", "pre_request"),
    ("LlmResponse", "on_response"),
    ("ThinkEnd", "on_response"),
    ("BeforeTool", "pre_tool_call"),
    ("AfterTool", "on_tool_call_result"),
    ("ToolError", "on_tool_call_error"),
    ("MemoryRead", "on_memory_read"),
    ("MemoryWrite", "on_memory_write"),
    ("MemoryError", "on_memory_error"),
    ("StreamStart", "on_stream_start"),
    ("StreamChunk", "on_stream_chunk"),
    ("StreamEnd", "on_stream_end"),
    ("StreamError", "on_stream_error"),
    # 002
    ("TransformContext", "transform_context"),
    ("BeforeToolCall", "pre_tool_call"),
    ("AfterToolCall", "on_tool_call_result"),
    ("PrepareNextTurn", "prepare_next_turn"),
    ("ShouldStopAfterTurn", "should_stop"),
    # 003
    ("PreToolUse", "pre_tool_call"),
    ("PostToolUse", "on_tool_call_result"),
    ("PreModelCall", "pre_request"),
    ("PostModelCall", "on_response"),
    ("OnSubagentStart", "on_subagent_start"),
    ("OnSubagentStop", "on_subagent_stop"),
    ("OnToolError", "on_tool_call_error"),
    ("OnModelError", "on_model_error"),
    ("BeforeAgent", "pre_agent"),
    ("AfterAgent", "post_agent"),
    ("BeforeRun", "on_chat_start"),
    ("AfterRun", "on_chat_end"),
    ("OnUserMessage", "on_user_message"),
    ("OnEvent", "on_event"),
    ("pre_tool_use", "pre_tool_call"),
    ("post_tool_use", "on_tool_call_result"),
    ("pre_model_call", "pre_request"),
    ("post_model_call", "on_response"),
    ("subagent_start", "on_subagent_start"),
    ("subagent_stop", "on_subagent_stop"),
    ("tool_error", "on_tool_call_error"),
    ("model_error", "on_model_error"),
    ("before_agent", "pre_agent"),
    ("after_agent", "post_agent"),
    ("before_run", "on_chat_start"),
    ("after_run", "on_chat_end"),
    ("user_message", "on_user_message"),
    # 004
    ("beforeRun", "on_chat_start"),
    ("afterRun", "on_chat_done"),
    ("beforeToolCall", "pre_tool_call"),
    ("afterToolCall", "on_tool_call_result"),
    ("beforeHandoff", "pre_handoff"),
    ("onStop", "on_stop"),
    ("onSubagentStart", "on_subagent_start"),
    ("onSubagentStop", "on_subagent_stop"),
    ("onSessionStart", "on_session_start"),
    ("onSessionEnd", "on_session_end"),
    ("onLlmStart", "pre_request"),
    ("onLlmEnd", "on_response"),
    ("onAgentStart", "pre_agent"),
    ("onAgentEnd", "post_agent"),
    ("onHandoff", "on_handoff"),
    ("onToolStart", "pre_tool_call"),
    ("onToolEnd", "on_tool_call_result"),
]


@pytest.mark.parametrize(("alias", "canonical"), SPEC_ALIASES)
def test_alias_registers_on_its_canonical_event(alias: str, canonical: str) -> None:
    bus = HookBus()

    def handler(ctx: object) -> None: ...

    bus.on(alias, handler)
    assert bus.handlers(canonical) == [handler]
    # a handler on on_event makes every event listened (each emission yields a record)
    assert bus.listened == (frozenset(CATALOG) if canonical == "on_event" else {canonical})
    assert bus.signal(alias) is bus.signal(canonical)
    assert bus.off(alias, handler) is True
    assert bus.listened == frozenset()


def test_the_after_run_trap() -> None:
    bus = HookBus()

    def success_only(ctx: object) -> None: ...
    def always(ctx: object) -> None: ...

    bus.on("afterRun", success_only)  # 004: success only
    bus.on("AfterRun", always)  # 003: always
    assert bus.handlers("on_chat_done") == [success_only]
    assert bus.handlers("on_chat_end") == [always]


def test_the_alias_list_is_complete() -> None:
    """The catalog accepts exactly the spec's aliases: none missing, none invented."""
    from agenthooks.events import ALIASES

    assert dict(SPEC_ALIASES) == ALIASES
    assert len(SPEC_ALIASES) == len(dict(SPEC_ALIASES))


@pytest.mark.parametrize("name", ["onchatstart", "AFTERRUN", "aftertool", "Pretooluse"])
def test_aliases_are_case_sensitive(name: str) -> None:
    with pytest.raises(UnknownEventError):
        HookBus().on(name, print)


@pytest.mark.parametrize("name", list(CATALOG))
def test_every_canonical_event_registers(name: str) -> None:
    bus = HookBus()
    bus.on(name, print)
    assert bus.handlers(name) == [print]


# matchers -------------------------------------------------------------------------------


async def test_match_exact_string() -> None:
    bus = HookBus()
    calls: list[str] = []
    bus.on("pre_tool_call", lambda ctx: calls.append(ctx.call.name), match="search")
    for name in ["search", "web_search", "searcher", "fetch"]:
        await bus.intercept("pre_tool_call", tool_ctx(name))
    assert calls == ["search"]


async def test_match_compiled_regex_uses_search() -> None:
    bus = HookBus()
    calls: list[str] = []
    bus.on(
        "on_tool_call_result", lambda ctx: calls.append(ctx.call.name), match=re.compile(r"search")
    )
    from agenthooks.events import ToolResultContext

    for name in ["search", "web_search", "searcher", "fetch"]:
        await bus.intercept(
            "on_tool_call_result",
            ToolResultContext(call=ToolCall(id="c", name=name), tool_call_id="c"),
        )
    assert calls == ["search", "web_search", "searcher"]


async def test_match_list_of_strings_and_regexes() -> None:
    bus = HookBus()
    calls: list[str] = []
    bus.on(
        "pre_tool_call",
        lambda ctx: calls.append(ctx.call.name),
        match=["fetch", re.compile(r"^db_")],
    )
    for name in ["search", "fetch", "db_read", "read_db", "fetcher"]:
        await bus.intercept("pre_tool_call", tool_ctx(name))
    assert calls == ["fetch", "db_read"]


async def test_match_on_subagent_and_handoff_events() -> None:
    bus = HookBus()
    calls: list[str] = []
    bus.on("on_subagent_start", lambda ctx: calls.append(f"sub:{ctx.subagent}"), match="researcher")
    bus.on(
        "pre_handoff", lambda ctx: calls.append(f"to:{ctx.to_agent}"), match=re.compile("^billing")
    )
    await bus.emit("on_subagent_start", SubagentContext(subagent="researcher", task="t"))
    await bus.emit("on_subagent_start", SubagentContext(subagent="writer", task="t"))
    await bus.intercept("pre_handoff", HandoffContext(from_agent="billing", to_agent="triage"))
    await bus.intercept("pre_handoff", HandoffContext(from_agent="triage", to_agent="billing_eu"))
    assert calls == ["sub:researcher", "to:billing_eu"]


async def test_unmatched_handlers_do_not_run_but_others_do() -> None:
    bus = HookBus()
    calls: list[str] = []
    bus.on("pre_tool_call", recorder(calls, "only-fetch"), match="fetch")
    bus.on("pre_tool_call", recorder(calls, "all"))
    bus.on("pre_tool_call", recorder(calls, "guard-fetch"), match="fetch", guard=True)
    await bus.intercept("pre_tool_call", tool_ctx("search"))
    assert calls == ["all"]


@pytest.mark.parametrize(
    "event", ["on_message", "onMessage", "pre_request", "on_chat_end", "should_stop", "on_event"]
)
def test_match_on_an_event_without_a_name_is_a_registration_error(event: str) -> None:
    bus = HookBus()
    canonical = bus.signal(event).name
    with pytest.raises(RegistrationError) as info:
        bus.on(event, print, match="search")
    assert str(info.value) == (
        f"match= is not supported on {canonical!r}: only tool, sub-agent and handoff events "
        "match a name"
    )
    assert bus.handlers(event) == []


def test_bad_matchers_are_registration_errors() -> None:
    bus = HookBus()
    with pytest.raises(RegistrationError) as info:
        bus.on("pre_tool_call", print, match=[])
    assert str(info.value) == "match= on 'pre_tool_call' is an empty list: it would never match"
    with pytest.raises(RegistrationError) as info:
        bus.on("pre_tool_call", print, match=[re.compile("x"), 5])  # type: ignore[list-item]
    assert str(info.value) == (
        "match= on 'pre_tool_call' takes a name, a compiled regex or a list of those, not int"
    )
    assert bus.handlers("pre_tool_call") == []


def test_other_registration_errors() -> None:
    bus = HookBus()
    with pytest.raises(RegistrationError) as info:
        bus.on("on_message", "not callable")  # type: ignore[call-overload]
    assert str(info.value) == "handler for 'on_message' must be callable, not 'not callable'"
    with pytest.raises(RegistrationError) as info:
        bus.on("on_message", print, errors="ignore")  # type: ignore[call-overload]
    assert str(info.value) == "errors= must be 'raise', 'isolate' or None, not 'ignore'"
    with pytest.raises(RegistrationError) as info:
        bus.on("on_message", print, priority=1.5)  # type: ignore[call-overload]
    assert str(info.value) == "priority= must be an int, not float"
    with pytest.raises(RegistrationError) as info:
        HookBus(errors="log")  # type: ignore[arg-type]
    assert str(info.value) == "errors= must be 'raise' or 'isolate', not 'log'"
    with pytest.raises(RegistrationError):
        bus.on("on_message")("not callable")  # type: ignore[arg-type]
    assert bus.handlers("on_message") == []


async def test_off_finds_an_equal_bound_method() -> None:
    bus = HookBus()
    calls: list[str] = []

    class Plugin:
        def on_message(self, ctx: object) -> None:
            calls.append("plugin")

    plugin = Plugin()
    bus.on("on_message", plugin.on_message)
    assert plugin.on_message is not plugin.on_message  # a new bound method each access
    assert bus.off("on_message", plugin.on_message) is True
    await bus.emit("on_message", message())
    assert calls == []


async def test_once_runs_once_across_concurrent_emissions() -> None:
    import asyncio

    bus = HookBus()
    calls: list[str] = []

    async def slow(ctx: MessageContext) -> None:
        await asyncio.sleep(0.01)  # both emissions hold their snapshot past this point

    bus.on("on_message", slow)
    bus.once("on_message", lambda ctx: calls.append(ctx.run_id))
    await asyncio.gather(
        bus.emit("on_message", MessageContext(run_id="a", message=ChatMessage(role="user"))),
        bus.emit("on_message", MessageContext(run_id="b", message=ChatMessage(role="user"))),
    )
    assert calls == ["a"]


async def test_once_interceptor_runs_once_across_concurrent_folds() -> None:
    import asyncio

    bus = HookBus()
    calls: list[str] = []

    async def slow(ctx: object) -> None:
        await asyncio.sleep(0.01)

    bus.on("pre_tool_call", slow)
    bus.once("pre_tool_call", lambda ctx: calls.append(ctx.call.name))
    await asyncio.gather(
        bus.intercept("pre_tool_call", tool_ctx("a")), bus.intercept("pre_tool_call", tool_ctx("b"))
    )
    assert calls == ["a"]
