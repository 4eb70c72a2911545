"""The core of every bridge: a framework run reported to the bus through ``BridgeRun``.

A small loop written here plays the framework (its own model call and tool bodies), so these
tests pin what every bridge builds on: the event sequence, the hook layers and middleware
around the framework's calls, handlers that never overlap, and exactly one terminal event.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from agenthooks import (
    Ask,
    Deny,
    HookBus,
    Middleware,
    ProviderRequest,
    ProviderResponse,
    ToolCall,
)
from agenthooks.bridges import (
    BridgeRun,
    BridgeTool,
    Capabilities,
    UnsupportedReturnError,
    capability_table,
)
from agenthooks.cli import main as cli_main
from agenthooks.errors import ConfigError, ToolValidationError, UnknownEventError
from agenthooks.messages import AgentResponse, ChatMessage

EVERYTHING = Capabilities(
    framework="Loop",
    distribution="agenthooks-loop",
    setup="loop(bus)",
    fires=frozenset(
        {
            "on_chat_start",
            "on_user_message",
            "on_loop_start",
            "on_loop_end",
            "pre_request",
            "on_response",
            "on_model_error",
            "pre_tool_call",
            "on_tool_call_result",
            "on_tool_call_error",
            "on_message",
            "post_agent",
            "on_chat_done",
            "on_chat_error",
            "on_chat_abort",
            "on_chat_paused",
            "on_chat_end",
            "on_stream_chunk",
        }
    ),
    honours={
        "on_chat_start": frozenset({"deny"}),
        "on_user_message": frozenset({"message", "deny"}),
        "pre_request": frozenset({"request", "response", "deny"}),
        "on_response": frozenset({"response", "deny"}),
        "on_model_error": frozenset({"response", "error"}),
        "pre_tool_call": frozenset({"call", "result", "error", "deny", "ask"}),
        "on_tool_call_result": frozenset({"result", "deny"}),
        "on_tool_call_error": frozenset({"result", "error"}),
        "post_agent": frozenset({"response", "deny"}),
    },
)

CONVERSATION = [
    ProviderResponse(
        tool_calls=[
            ToolCall(id="call_1", name="delete_file", arguments={"path": "/tmp/a.txt"}),
            ToolCall(id="call_2", name="read_file", arguments={"path": "/tmp/b.txt"}),
        ]
    ),
    ProviderResponse(content="done"),
]


def file_tool(name: str) -> BridgeTool:
    def validate(arguments: dict[str, Any]) -> dict[str, Any]:
        if not isinstance(arguments.get("path"), str):
            raise ToolValidationError(f"invalid arguments for tool {name!r}: path: not a string")
        return {"path": arguments["path"]}

    return BridgeTool(
        name,
        f"{name} a file",
        {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
        validate=validate,
    )


TOOLS = {name: file_tool(name) for name in ("delete_file", "read_file")}


async def framework(
    bus: HookBus,
    message: str,
    script: list[ProviderResponse],
    *,
    capabilities: Capabilities = EVERYTHING,
    ran: list[tuple[str, dict[str, Any]]] | None = None,
    seen: list[ProviderRequest] | None = None,
) -> AgentResponse:
    """A framework's agent loop with the bridge calls a bridge adds: the model answers from
    ``script``; tools record what they ran with; tool calls of a turn run in parallel."""
    responses = iter(script)
    ran = [] if ran is None else ran

    async def model(request: ProviderRequest) -> ProviderResponse:
        if seen is not None:
            seen.append(request)
        return next(responses)

    def body(name: str) -> Any:
        async def run_tool(arguments: dict[str, Any]) -> str:
            await asyncio.sleep(0)
            ran.append((name, arguments))
            if arguments["path"].startswith("/missing"):
                raise FileNotFoundError(arguments["path"])
            return f"{name} {arguments['path']}"

        return run_tool

    async with BridgeRun(bus, capabilities, agent="assistant", run_id="run-1") as run:
        got = await run.start(message, tools=list(TOOLS))
        if isinstance(got, Deny):
            response = run.denied_response(got)
            await run.done(response)
            return response
        messages = [ChatMessage(role="user", content=got)]
        while True:
            await run.loop_start()
            answer = await run.model_call(ProviderRequest(messages=list(messages)), model)
            if isinstance(answer, Deny):
                response = run.denied_response(answer)
                await run.done(response)
                return response
            messages.append(
                ChatMessage(role="assistant", content=answer.content, tool_calls=answer.tool_calls)
            )
            if not answer.tool_calls:
                break
            outcomes = await asyncio.gather(
                *(
                    run.tool_call(call, TOOLS[call.name], body(call.name))
                    for call in answer.tool_calls
                )
            )
            for outcome in outcomes:
                text = outcome.error_text() if outcome.is_error else outcome.text
                messages.append(
                    ChatMessage(role="tool", content=text, tool_call_id=outcome.call.id)
                )
        await run.loop_end()
        final = await run.post_agent(AgentResponse(content=answer.content), input=got)
        response = run.denied_response(final) if isinstance(final, Deny) else final
        await run.done(response)
        return response


def recorder(bus: HookBus) -> list[str]:
    seen: list[str] = []
    bus.on("on_event", lambda r: seen.append(f"{r.type}:{r.tool_call_id or ''}".rstrip(":")))
    return seen


async def test_a_scripted_conversation_fires_the_events_of_our_runtime_in_order() -> None:
    bus = HookBus()
    seen = recorder(bus)
    response = await framework(bus, "Delete /tmp/a.txt and read /tmp/b.txt", CONVERSATION)
    assert response.content == "done"
    assert seen[:5] == [
        "on_chat_start",
        "on_user_message",
        "on_loop_start",
        "pre_request",
        "on_response",
    ]
    # the two calls run in parallel: their events interleave as the framework schedules
    # them, each call's pre_tool_call before its result
    calls = seen[5:9]
    assert sorted(calls) == [
        "on_tool_call_result:call_1",
        "on_tool_call_result:call_2",
        "pre_tool_call:call_1",
        "pre_tool_call:call_2",
    ]
    for call in ("call_1", "call_2"):
        assert calls.index(f"pre_tool_call:{call}") < calls.index(f"on_tool_call_result:{call}")
    assert seen[9:] == [
        "on_loop_end",
        "on_loop_start",
        "pre_request",
        "on_response",
        "on_loop_end",
        "post_agent",
        "on_chat_done",
        "on_chat_end",
    ]


async def test_every_context_carries_the_frameworks_run_id_and_the_turn() -> None:
    bus = HookBus()
    ids: list[tuple[str, str, int | None]] = []
    bus.on("on_event", lambda r: ids.append((r.type, r.run_id, r.iteration)))
    await framework(bus, "hi", CONVERSATION)
    assert {run_id for _, run_id, _ in ids} == {"run-1"}
    assert ("pre_request", "run-1", 1) in ids
    assert ids[0] == ("on_chat_start", "run-1", None)


async def test_a_deny_at_the_start_refuses_the_run_before_any_model_call() -> None:
    bus = HookBus()
    seen = recorder(bus)
    bus.on("on_chat_start", lambda ctx: Deny("no runs today"))
    requests: list[ProviderRequest] = []
    response = await framework(bus, "hi", CONVERSATION, seen=requests)
    assert (response.content, response.finish_reason) == ("no runs today", "denied")
    assert requests == []
    assert seen == ["on_chat_start", "on_chat_done", "on_chat_end"]


async def test_a_return_the_framework_cannot_carry_out_is_a_typed_error_naming_it() -> None:
    cannot = Capabilities(
        framework="Rigid",
        distribution="agenthooks-rigid",
        setup="rigid(bus)",
        fires=EVERYTHING.fires,
        honours={**EVERYTHING.honours, "on_user_message": frozenset({"deny"})},
        gaps={"on_user_message.message": "its input is read-only"},
    )
    bus = HookBus()
    bus.on("on_user_message", lambda ctx: {"message": "rewritten"})
    errors: list[BaseException | None] = []
    bus.on("on_chat_error", lambda ctx: errors.append(ctx.error))
    with pytest.raises(UnsupportedReturnError) as info:
        await framework(bus, "hi", CONVERSATION, capabilities=cannot)
    assert str(info.value) == (
        "a handler of 'on_user_message' returned {'message': ...}, which Rigid cannot carry "
        "out: its input is read-only"
    )
    assert (info.value.event, info.value.key, info.value.framework) == (
        "on_user_message",
        "message",
        "Rigid",
    )
    assert errors == [info.value]


async def test_tool_hooks_rewrite_deny_and_short_circuit_what_the_framework_runs() -> None:
    bus = HookBus()
    bus.on("pre_tool_call", lambda ctx: Deny("no deletes"), match="delete_file")
    bus.on(
        "pre_tool_call",
        lambda ctx: {"call": ctx.call.model_copy(update={"arguments": {"path": "/tmp/c.txt"}})},
        match="read_file",
    )
    bus.on("on_tool_call_result", lambda ctx: {"result": ctx.result.upper()})
    ran: list[tuple[str, dict[str, Any]]] = []
    requests: list[ProviderRequest] = []
    await framework(bus, "hi", CONVERSATION, ran=ran, seen=requests)
    assert ran == [("read_file", {"path": "/tmp/c.txt"})]
    tool_messages = [(m.tool_call_id, m.content) for m in requests[1].messages if m.role == "tool"]
    assert tool_messages == [("call_1", "no deletes"), ("call_2", "READ_FILE /TMP/C.TXT")]


async def test_a_rewrite_is_validated_with_the_tools_own_schema_before_guards_judge_it() -> None:
    bus = HookBus()
    bus.on(
        "pre_tool_call",
        lambda ctx: {"call": ctx.call.model_copy(update={"arguments": {"path": 7}})},
        match="read_file",
    )
    judged: list[dict[str, Any]] = []
    bus.on("pre_tool_call", lambda ctx: judged.append(ctx.call.arguments), guard=True)
    ran: list[tuple[str, dict[str, Any]]] = []
    requests: list[ProviderRequest] = []
    await framework(bus, "hi", CONVERSATION, ran=ran, seen=requests)
    assert ran == [("delete_file", {"path": "/tmp/a.txt"})]
    assert judged == [{"path": "/tmp/a.txt"}]  # the invalid rewrite never reached the guard
    read = next(m for m in requests[1].messages if m.tool_call_id == "call_2")
    assert read.content == "invalid arguments for tool 'read_file': path: not a string"


async def test_a_tool_error_keeps_its_type_and_a_hook_recovers_it() -> None:
    bus = HookBus()
    errors: list[tuple[str, str]] = []

    def recover(ctx: Any) -> dict[str, Any]:
        errors.append((type(ctx.error).__name__, ctx.source))
        return {"result": "no such file, carry on"}

    bus.on("on_tool_call_error", recover)
    script = [
        ProviderResponse(
            tool_calls=[ToolCall(id="c", name="read_file", arguments={"path": "/missing"})]
        ),
        ProviderResponse(content="ok"),
    ]
    requests: list[ProviderRequest] = []
    await framework(bus, "hi", script, seen=requests)
    assert errors == [("FileNotFoundError", "handler")]
    assert requests[1].messages[-1].content == "no such file, carry on"


async def test_model_hooks_short_circuit_rewrite_and_recover_the_frameworks_model() -> None:
    bus = HookBus()
    bus.on("pre_request", lambda ctx: {"response": ProviderResponse(content="cached")})
    bus.on("on_response", lambda ctx: {"response": ProviderResponse(content="rewritten")})
    requests: list[ProviderRequest] = []
    response = await framework(bus, "hi", CONVERSATION, seen=requests)
    assert requests == []  # the framework's model never ran
    assert response.content == "rewritten"

    bus = HookBus()
    bus.on("on_model_error", lambda ctx: {"response": ProviderResponse(content="recovered")})

    async def broken(request: ProviderRequest) -> ProviderResponse:
        raise ConnectionError("model down")

    async with BridgeRun(bus, EVERYTHING, agent="a") as run:
        assert (await run.model_call(ProviderRequest(), broken)).content == "recovered"  # type: ignore[union-attr]
        await run.done(AgentResponse(content="recovered"))


async def test_the_bus_middleware_wraps_the_frameworks_calls_inside_the_hook_layer() -> None:
    calls: list[str] = []

    class Around(Middleware):
        async def wrap(self, ctx: Any, call_next: Any) -> Any:
            calls.append(f"in:{type(ctx).__name__}")
            value = await call_next(ctx)
            calls.append("out")
            return value

    bus = HookBus()
    bus.use(Around())
    bus.on("pre_request", lambda ctx: calls.append("pre_request"))
    bus.on("pre_tool_call", lambda ctx: calls.append("pre_tool_call"), match="read_file")
    script = [
        ProviderResponse(
            tool_calls=[ToolCall(id="c", name="read_file", arguments={"path": "/tmp/b"})]
        ),
        ProviderResponse(content="ok"),
    ]
    await framework(bus, "hi", script)
    assert calls[:6] == [
        "pre_request",
        "in:PreRequestContext",
        "out",
        "pre_tool_call",
        "in:PreToolCallContext",
        "out",
    ]


async def test_handlers_of_one_run_never_overlap_when_the_framework_runs_tools_in_parallel() -> (
    None
):
    bus = HookBus()
    active, most = 0, 0

    async def slow(ctx: Any) -> None:
        nonlocal active, most
        active += 1
        most = max(most, active)
        await asyncio.sleep(0.01)
        active -= 1

    for event in ("pre_tool_call", "on_tool_call_result", "on_message"):
        bus.on(event, slow)
    ran: list[tuple[str, dict[str, Any]]] = []
    await framework(bus, "hi", CONVERSATION, ran=ran)
    assert len(ran) == 2 and most == 1


async def test_an_ask_pauses_the_call_and_an_approved_call_runs() -> None:
    bus = HookBus()
    bus.on("pre_tool_call", lambda ctx: Ask("a human decides"))
    ran: list[dict[str, Any]] = []

    async def body(arguments: dict[str, Any]) -> str:
        ran.append(arguments)
        return "deleted"

    call = ToolCall(id="c", name="delete_file", arguments={"path": "/tmp/a"})
    async with BridgeRun(bus, EVERYTHING, agent="a") as run:
        waiting = await run.tool_call(call, TOOLS["delete_file"], body)
        assert (waiting.asked, ran) == ("a human decides", [])
        approved = await run.tool_call(call, TOOLS["delete_file"], body, approved=True)
        assert (approved.result, ran) == ("deleted", [{"path": "/tmp/a"}])
        await run.done(AgentResponse(content="ok"))


async def test_exactly_one_terminal_event_for_an_error_and_for_a_cancellation() -> None:
    bus = HookBus()
    seen = recorder(bus)

    async def failing(request: ProviderRequest) -> ProviderResponse:
        raise KeyError("framework bug")

    with pytest.raises(KeyError):
        async with BridgeRun(bus, EVERYTHING, agent="a") as run:
            await run.loop_start()
            await run.model_call(ProviderRequest(), failing)
    assert seen == [
        "on_loop_start",
        "pre_request",
        "on_model_error",
        "on_loop_end",
        "on_chat_error",
        "on_chat_end",
    ]

    seen.clear()
    started = asyncio.Event()

    async def hanging(request: ProviderRequest) -> ProviderResponse:
        started.set()
        await asyncio.sleep(60)
        raise AssertionError("not reached")

    async def one_run() -> None:
        async with BridgeRun(bus, EVERYTHING, agent="a") as run:
            await run.model_call(ProviderRequest(), hanging)

    task = asyncio.create_task(one_run())
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert seen == ["pre_request", "on_chat_abort", "on_chat_end"]

    seen.clear()
    async with BridgeRun(bus, EVERYTHING, agent="a") as run:
        await run.done(AgentResponse(content="x"))
        await run.error(RuntimeError("late"))  # a second ending is ignored
    assert seen == ["on_chat_done", "on_chat_end"]


async def test_nobody_listening_means_the_frameworks_calls_run_as_they_are() -> None:
    bus = HookBus()
    ran: list[tuple[str, dict[str, Any]]] = []
    requests: list[ProviderRequest] = []
    response = await framework(bus, "hi", CONVERSATION, ran=ran, seen=requests)
    assert response.content == "done"
    assert sorted(ran) == [
        ("delete_file", {"path": "/tmp/a.txt"}),
        ("read_file", {"path": "/tmp/b.txt"}),
    ]
    assert [m.content for m in requests[1].messages if m.role == "tool"] == [
        "delete_file /tmp/a.txt",
        "read_file /tmp/b.txt",
    ]


def test_a_declaration_names_real_events_and_returns() -> None:
    with pytest.raises(UnknownEventError) as info:
        Capabilities(framework="X", distribution="x", setup="", fires=frozenset({"pre_tool_cal"}))
    assert "pre_tool_call" in str(info.value)
    with pytest.raises(ConfigError, match=r"'on_response' handlers cannot return \['call'\]"):
        Capabilities(
            framework="X",
            distribution="x",
            setup="",
            fires=frozenset({"on_response"}),
            honours={"on_response": frozenset({"call"})},
        )
    with pytest.raises(ConfigError, match="name the event 'pre_tool_call', not 'PreToolUse'"):
        Capabilities(framework="X", distribution="x", setup="", fires=frozenset({"PreToolUse"}))


def test_the_capability_table_is_generated_from_the_declarations() -> None:
    small = Capabilities(
        framework="Small",
        distribution="agenthooks-small",
        setup="small(bus)",
        fires=frozenset({"on_chat_start", "pre_tool_call"}),
        honours={"pre_tool_call": frozenset({"deny", "call"})},
    )
    assert capability_table({"small": small, "loop": EVERYTHING}).splitlines()[:4] == [
        "| event | Small | Loop |",
        "|---|---|---|",
        "| `on_chat_start` | fires | Deny |",
        "| `on_user_message` | - | Deny, `message` |",
    ]


@pytest.mark.subprocess
def test_agenthooks_bridges_lists_each_installed_bridge(capsys: pytest.CaptureFixture[str]) -> None:
    from agenthooks.bridges import installed_bridges

    code = cli_main(["bridges", "--json"])
    out = capsys.readouterr().out
    assert code == 0
    assert json.loads(out) == {name: caps.describe() for name, caps in installed_bridges().items()}


async def test_a_call_the_framework_refused_reaches_on_tool_call_error_with_its_source() -> None:
    bus = HookBus()
    seen: list[tuple[str, str]] = []

    def recover(ctx: Any) -> dict[str, Any] | None:
        seen.append((ctx.source, str(ctx.error)))
        return {"result": "use read_file"} if ctx.source == "unknown_tool" else None

    bus.on("on_tool_call_error", recover)
    async with BridgeRun(bus, EVERYTHING, agent="a") as run:
        bad = ToolCall(id="1", name="read_file", arguments={"path": 3})
        failed = await run.tool_failed(bad, TOOLS["read_file"], "path: not a string")
        assert (failed.error, failed.source) == ("path: not a string", "validation")
        unknown = ToolCall(id="2", name="cat", arguments={})
        recovered = await run.tool_failed(unknown, None, "no tool named 'cat'", "unknown_tool")
        assert (recovered.error, recovered.text) == (None, "use read_file")
        await run.done(AgentResponse(content="ok"))
    assert seen == [
        ("validation", "path: not a string"),
        ("unknown_tool", "no tool named 'cat'"),
    ]


async def test_on_chat_end_comes_even_when_a_terminal_handler_raises() -> None:
    bus = HookBus()
    seen = recorder(bus)

    def broken(ctx: Any) -> None:
        raise RuntimeError("exporter down")

    bus.on("on_chat_done", broken, errors="raise")
    with pytest.raises(RuntimeError, match="exporter down"):
        async with BridgeRun(bus, EVERYTHING, agent="a") as run:
            await run.done(AgentResponse(content="ok"))
    # the raising handler's own record is not written (its chain did not finish)
    assert seen == ["on_chat_end"]


async def test_stream_events_of_a_model_call_in_flight_fire_through_the_run() -> None:
    from agenthooks import StreamChunkContext

    bus = HookBus()
    chunks: list[str] = []
    bus.on("on_stream_chunk", lambda ctx: chunks.append(ctx.delta))
    bus.on("pre_request", lambda ctx: None)
    async with BridgeRun(bus, EVERYTHING, agent="a") as run:

        async def streaming(request: ProviderRequest) -> ProviderResponse:
            for word in ("hel", "lo"):
                await run.fire("on_stream_chunk", StreamChunkContext, delta=word)
            return ProviderResponse(content="hello")

        answer = await asyncio.wait_for(run.model_call(ProviderRequest(), streaming), 5)
        assert isinstance(answer, ProviderResponse) and answer.content == "hello"
        await run.done(AgentResponse(content="hello"))
    assert chunks == ["hel", "lo"]
