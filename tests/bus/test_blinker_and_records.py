"""blinker receivers connected straight to ``bus.signal(name)``, strong references, and the
uniform ``on_event`` records."""

from __future__ import annotations

import asyncio
import gc
from typing import Any

import blinker
import pytest
import structlog

from agenthooks import Deny, HookBus
from agenthooks.events import (
    CATALOG,
    ChatErrorContext,
    EventRecord,
    MessageContext,
    PreToolCallContext,
    StopContext,
    ToolErrorContext,
    ToolResultContext,
    TurnContext,
)
from agenthooks.messages import ChatMessage, ToolCall, Usage


def message(text: str = "hi") -> MessageContext:
    return MessageContext(
        run_id="r1",
        agent="writer",
        branch="root/writer",
        message=ChatMessage(role="user", content=text),
    )


def tool_ctx(name: str = "search") -> PreToolCallContext:
    return PreToolCallContext(
        run_id="r1",
        agent="a",
        branch="a",
        call=ToolCall(id="c9", name=name, arguments={"q": "x"}),
        tool_call_id="c9",
    )


# blinker ------------------------------------------------------------------------------------


def test_signal_is_a_real_named_blinker_signal() -> None:
    bus = HookBus()
    sig = bus.signal("PreToolUse")
    assert isinstance(sig, blinker.Signal)
    assert isinstance(sig, blinker.NamedSignal)
    assert sig.name == "pre_tool_call"
    assert bus.signal("pre_tool_call") is sig
    assert HookBus().signal("pre_tool_call") is not sig  # one namespace per bus


async def test_receiver_runs_after_the_chain_and_before_on_event() -> None:
    bus = HookBus()
    calls: list[str] = []
    received: list[tuple[Any, Any]] = []
    bus.on("on_event", lambda rec: calls.append(f"on_event:{rec.type}"))
    bus.on("on_message", lambda ctx: calls.append("handler"), guard=True)
    bus.on("on_message", lambda ctx: calls.append("first"), priority=5)
    bus.signal("on_message").connect(
        lambda sender, ctx: (calls.append("receiver"), received.append((sender, ctx))), weak=False
    )
    ctx = message()
    await bus.emit("on_message", ctx)
    assert calls == ["first", "handler", "receiver", "on_event:on_message"]
    assert received == [(bus, ctx)]
    assert received[0][0] is bus and received[0][1] is ctx


async def test_receiver_is_called_with_ctx_as_a_keyword() -> None:
    bus = HookBus()
    seen: list[Any] = []

    def receiver(sender: Any, *, ctx: Any) -> None:  # keyword-only: fails if passed by position
        seen.append(ctx)

    bus.signal("on_loop_start").connect(receiver)
    ctx = CATALOG["on_loop_start"].context(iteration=3)
    await bus.emit("on_loop_start", ctx)
    assert seen == [ctx]


async def test_async_receivers_are_awaited() -> None:
    bus = HookBus()
    calls: list[str] = []

    async def receiver(sender: Any, ctx: Any) -> None:
        await asyncio.sleep(0)
        calls.append("async receiver done")

    bus.signal("on_message").connect(receiver)
    bus.on("on_event", lambda rec: calls.append("record"))
    await bus.emit("on_message", message())
    assert calls == ["async receiver done", "record"]


async def test_receivers_run_after_an_interceptor_fold_and_see_the_final_value() -> None:
    bus = HookBus()
    seen: list[Any] = []
    bus.on("pre_tool_call", lambda ctx: {"result": "short"})
    bus.on("pre_tool_call", lambda ctx: seen.append(("guard", ctx.result)), guard=True)
    bus.signal("BeforeTool").connect(
        lambda sender, ctx: seen.append(("receiver", ctx.result)) or Deny("ignored"), weak=False
    )
    assert await bus.intercept("pre_tool_call", tool_ctx()) is None  # a receiver cannot deny
    assert seen == [("guard", "short"), ("receiver", "short")]


async def test_receivers_run_after_a_predicate() -> None:
    bus = HookBus()
    seen: list[str] = []
    bus.on("should_stop", lambda ctx: True)
    bus.signal("should_stop").connect(
        lambda sender, ctx: seen.append("receiver") or False, weak=False
    )
    assert await bus.check("should_stop", TurnContext()) is True
    assert seen == ["receiver"]


async def test_a_direct_connection_makes_the_event_listened() -> None:
    bus = HookBus()
    calls: list[str] = []

    def receiver(sender: Any, ctx: Any) -> None:
        calls.append("receiver")

    sig = bus.signal("on_stop")
    assert "on_stop" not in bus.listened
    sig.connect(receiver)
    assert bus.listened == {"on_stop"}
    if "on_stop" in bus.listened:  # the runtime's check
        await bus.emit("on_stop", StopContext(reason="max_turns"))
    assert calls == ["receiver"]
    sig.disconnect(receiver)
    assert bus.listened == frozenset()
    await bus.emit("on_stop", StopContext(reason="max_turns"))
    assert calls == ["receiver"]


async def test_connected_to_and_connect_via_keep_listened_in_sync() -> None:
    bus = HookBus()
    calls: list[str] = []
    sig = bus.signal("on_stop")

    def receiver(sender: Any, ctx: Any) -> None:
        calls.append(ctx.reason)

    with sig.connected_to(receiver):
        assert "on_stop" in bus.listened
        await bus.emit("on_stop", StopContext(reason="a"))
    assert "on_stop" not in bus.listened

    @sig.connect_via(bus)  # a receiver for this bus as sender only
    def via(sender: Any, ctx: Any) -> None:
        calls.append(f"via:{ctx.reason}")

    assert "on_stop" in bus.listened
    await bus.emit("on_stop", StopContext(reason="b"))
    assert calls == ["a", "via:b"]


async def test_a_receiver_for_another_sender_is_not_called() -> None:
    bus = HookBus()
    calls: list[str] = []
    other = object()
    bus.signal("on_stop").connect(lambda sender, ctx: calls.append("x"), sender=other, weak=False)
    await bus.emit("on_stop", StopContext())
    assert calls == []


async def test_a_third_party_send_reaches_only_blinker_receivers() -> None:
    bus = HookBus()
    calls: list[str] = []
    bus.on("on_message", lambda ctx: calls.append("bus handler"))
    bus.on("on_event", lambda rec: calls.append("record"))
    sig = bus.signal("on_message")
    sig.connect(lambda sender, ctx: calls.append(f"receiver from {sender}"), weak=False)
    results = sig.send("third-party", ctx=message())
    assert calls == ["receiver from third-party"]
    assert len(results) == 1


async def test_a_receiver_connected_inside_a_function_stays_connected() -> None:
    bus = HookBus()
    calls: list[str] = []

    def connect() -> None:
        bus.signal("on_stop").connect(lambda sender, ctx: calls.append("kept"))

    connect()
    gc.collect()
    assert "on_stop" in bus.listened
    await bus.emit("on_stop", StopContext())
    assert calls == ["kept"]


async def test_a_receiver_asked_to_be_weak_is_dropped_and_no_longer_listened() -> None:
    bus = HookBus()
    calls: list[str] = []
    bus.signal("on_stop").connect(lambda sender, ctx: calls.append("gone"), weak=True)
    gc.collect()
    assert "on_stop" not in bus.listened
    await bus.emit("on_stop", StopContext())
    assert calls == []


async def test_bus_handlers_are_strong_references() -> None:
    bus = HookBus()
    calls: list[str] = []

    def register() -> None:
        bus.on("on_message", lambda ctx: calls.append("lambda"))

        class Local:
            def handle(self, ctx: Any) -> None:
                calls.append("bound method")

        bus.on("on_message", Local().handle)

    register()
    gc.collect()
    await bus.emit("on_message", message())
    assert calls == ["lambda", "bound method"]


async def test_receiver_errors_follow_the_bus_policy() -> None:
    def failing(sender: Any, ctx: Any) -> None:
        raise LookupError("receiver broke")

    bus = HookBus()
    bus.signal("on_message").connect(failing)
    with pytest.raises(LookupError) as info:
        await bus.emit("on_message", message())
    assert info.value.__notes__ == [
        f"raised by handler {failing.__module__}.{failing.__qualname__} of event 'on_message'"
    ]

    calls: list[str] = []
    isolating = HookBus(errors="isolate")
    isolating.signal("pre_request").connect(failing)
    isolating.on("on_event", lambda rec: calls.append(f"record denied={rec.denied}"))
    with structlog.testing.capture_logs() as logs:
        # an isolated receiver error is observer semantics: logged, never a Deny
        assert await isolating.intercept("pre_request", CATALOG["pre_request"].context()) is None
    assert calls == ["record denied=None"]
    assert [(e["hook_event"], e["error"]) for e in logs] == [
        ("pre_request", "LookupError: receiver broke")
    ]


async def test_receiver_errors_in_teardown_events_are_logged() -> None:
    bus = HookBus()

    def failing(sender: Any, ctx: Any) -> None:
        raise LookupError("broke")

    bus.signal("on_chat_end").connect(failing)
    with structlog.testing.capture_logs() as logs:
        await bus.emit("on_chat_end", CATALOG["on_chat_end"].context())
    assert len(logs) == 1


# on_event records -------------------------------------------------------------------------


async def test_one_record_per_emission_of_every_other_event() -> None:
    bus = HookBus()
    records: list[EventRecord] = []
    bus.on("OnEvent", records.append)
    await bus.emit("on_message", message())
    await bus.intercept("pre_request", CATALOG["pre_request"].context())  # no handlers of its own
    await bus.check("should_stop", TurnContext())
    await bus.emit("on_loop_end", CATALOG["on_loop_end"].context())
    assert [r.type for r in records] == ["on_message", "pre_request", "should_stop", "on_loop_end"]
    assert all(isinstance(r, EventRecord) for r in records)


async def test_no_record_for_on_event_itself() -> None:
    bus = HookBus()
    records: list[EventRecord] = []
    bus.on("on_event", records.append)
    bus.on("on_event", lambda rec: None)
    bus.signal("on_event").connect(lambda sender, ctx: records.append(ctx), weak=False)
    await bus.emit("on_message", message())
    assert [r.type for r in records] == ["on_message", "on_message"]
    assert records[0] is records[1]


async def test_no_records_without_an_on_event_handler() -> None:
    bus = HookBus()
    seen: list[Any] = []
    bus.signal("on_event").connect(lambda sender, ctx: seen.append(ctx), weak=False)
    assert bus.listened == frozenset(CATALOG)  # a receiver on on_event counts too
    await bus.emit("on_message", message())
    assert [r.type for r in seen] == ["on_message"]


async def test_record_of_a_plain_observer() -> None:
    bus = HookBus()
    records: list[EventRecord] = []
    bus.on("on_event", records.append)
    ctx = message("hello")
    ctx.usage = Usage(input_tokens=3, output_tokens=4, total_tokens=7)
    await bus.emit("on_message", ctx)
    (rec,) = records
    assert rec.type == "on_message"
    assert rec.timestamp > 0
    assert (rec.run_id, rec.agent, rec.branch) == ("r1", "writer", "root/writer")
    assert (rec.tool_call_id, rec.tool_name) == (None, None)
    assert rec.input is None
    assert rec.output == ChatMessage(role="user", content="hello")
    assert (rec.is_error, rec.denied, rec.error) == (False, None, None)
    assert rec.usage.total_tokens == 7
    assert rec.model_fields_set == set(EventRecord.model_fields)
    dumped = rec.model_dump()
    assert list(dumped) == list(EventRecord.model_fields)
    assert (dumped["type"], dumped["output"]["content"]) == ("on_message", "hello")


async def test_record_of_a_tool_call_after_its_chain() -> None:
    bus = HookBus()
    records: list[EventRecord] = []
    bus.on("on_event", records.append)
    bus.on("on_tool_call_result", lambda ctx: {"result": "final"})
    ctx = ToolResultContext(
        run_id="r1",
        agent="a",
        branch="a",
        call=ToolCall(id="c9", name="search", arguments={"q": "x"}),
        tool_call_id="c9",
        result="raw",
        duration=0.25,
    )
    await bus.intercept("on_tool_call_result", ctx)
    (rec,) = records
    assert (rec.type, rec.tool_call_id, rec.tool_name) == ("on_tool_call_result", "c9", "search")
    assert (rec.input, rec.output) == ({"q": "x"}, "final")  # the value after the chain
    assert (rec.is_error, rec.denied, rec.error, rec.duration) == (False, None, None, 0.25)


@pytest.mark.parametrize(
    ("deny", "text"), [(Deny("policy"), "policy"), (Deny(), 'Tool call "search" was denied')]
)
async def test_record_of_a_denied_tool_call(deny: Deny, text: str) -> None:
    bus = HookBus()
    records: list[EventRecord] = []
    bus.on("on_event", records.append)
    bus.on("pre_tool_call", lambda ctx: deny)
    await bus.intercept("pre_tool_call", tool_ctx())
    (rec,) = records
    assert (rec.type, rec.tool_call_id, rec.tool_name) == ("pre_tool_call", "c9", "search")
    assert (rec.is_error, rec.denied, rec.error) == (True, text, None)


async def test_record_of_an_isolated_gate_failure_is_denied() -> None:
    bus = HookBus(errors="isolate")
    records: list[EventRecord] = []
    bus.on("on_event", records.append)

    def broken(ctx: Any) -> None:
        raise RuntimeError("policy server down")

    bus.on("pre_tool_call", broken)
    with structlog.testing.capture_logs():
        assert await bus.intercept("pre_tool_call", tool_ctx()) == Deny("policy server down")
    assert (records[0].is_error, records[0].denied) == (True, "policy server down")


async def test_record_of_errors() -> None:
    bus = HookBus()
    records: list[EventRecord] = []
    bus.on("on_event", records.append)
    await bus.intercept(
        "on_tool_call_error",
        ToolErrorContext(
            call=ToolCall(id="c1", name="fetch"), tool_call_id="c1", error=TimeoutError("slow")
        ),
    )
    await bus.emit("on_chat_error", ChatErrorContext(error=KeyError("k")))
    await bus.emit("on_chat_error", ChatErrorContext(error=RuntimeError()))
    await bus.intercept("pre_tool_call", tool_ctx())
    assert [(r.type, r.tool_name, r.is_error, r.error) for r in records] == [
        ("on_tool_call_error", "fetch", True, "TimeoutError: slow"),  # an error keeps its type
        ("on_chat_error", None, True, "KeyError: 'k'"),
        ("on_chat_error", None, True, "RuntimeError"),
        ("pre_tool_call", "search", False, None),
    ]


async def test_records_for_every_event_of_the_catalog() -> None:
    bus = HookBus()
    records: list[EventRecord] = []
    bus.on("on_event", records.append)
    for name, spec in CATALOG.items():
        if name == "on_event":
            continue
        if spec.kind == "observer":
            await bus.emit(name, spec.context())
        elif spec.kind == "predicate":
            await bus.check(name, spec.context())
        else:
            await bus.intercept(name, spec.context())
    assert [r.type for r in records] == [n for n in CATALOG if n != "on_event"]


async def test_no_record_when_the_chain_raised() -> None:
    bus = HookBus()
    records: list[EventRecord] = []
    bus.on("on_event", records.append)

    def boom(ctx: Any) -> None:
        raise ValueError("x")

    bus.on("on_message", boom)
    with pytest.raises(ValueError):
        await bus.emit("on_message", message())
    assert records == []
