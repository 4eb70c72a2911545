"""What StructlogPlugin logs: fields, bound contextvars, truncation, levels, renderers."""

from __future__ import annotations

import io
import json
from typing import Any

import structlog
from agenthooks_structlog import StructlogPlugin
from structlog.testing import CapturingLogger

from agenthooks import (
    Agent,
    Deny,
    HookBus,
    ProviderHTTPError,
    ProviderResponse,
    ScriptedProvider,
    ToolCall,
    tool,
)


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool
def shout(text: str) -> str:
    """Repeat the text loudly."""
    return text.upper() * 50


def add_call(call_id: str = "call_1") -> ProviderResponse:
    return ProviderResponse(
        tool_calls=[ToolCall(id=call_id, name="add", arguments={"a": 2, "b": 3})]
    )


def lines(out: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.getvalue().splitlines()]


def by_event(entries: list[dict[str, Any]], event: str) -> list[dict[str, Any]]:
    return [e for e in entries if e["event"] == event]


async def run_calc(
    plugin: StructlogPlugin, *responses: Any, tools: Any = (add,), bus: HookBus | None = None
) -> tuple[Agent, list[str]]:
    """Run an agent with ``plugin`` installed; returns it and the run ids it saw."""
    bus = bus or HookBus()
    bus.use(plugin)
    run_ids: list[str] = []
    bus.on("on_chat_start", lambda ctx: run_ids.append(ctx.run_id))
    provider = ScriptedProvider(list(responses) or [add_call(), "5"])
    agent = Agent("calc", "You add.", provider=provider, tools=tools, bus=bus)
    await agent.chat("2 + 3?")
    return agent, run_ids


async def test_json_lines_carry_exactly_the_bound_fields_and_payload() -> None:
    out = io.StringIO()
    _, (run_id,) = await run_calc(StructlogPlugin(renderer="json", file=out))
    entries = lines(out)
    assert [e["event"] for e in entries] == [
        "on_chat_start",
        "on_user_message",
        "on_message",
        "pre_agent",
        "on_loop_start",
        "transform_context",
        "pre_request",
        "on_response",
        "on_message",
        "pre_tool_call",
        "on_tool_call_result",
        "on_message",
        "on_loop_end",
        "prepare_next_turn",
        "should_stop",
        "on_loop_start",
        "transform_context",
        "pre_request",
        "on_response",
        "on_loop_end",
        "post_agent",
        "on_message",
        "on_chat_done",
        "on_chat_end",
    ]
    common = {"event", "level", "timestamp", "run_id", "agent", "branch"}
    start = by_event(entries, "on_chat_start")[0]
    assert set(start) == common | {"input"}
    assert (start["run_id"], start["agent"], start["branch"], start["input"]) == (
        run_id,
        "calc",
        "calc",
        "2 + 3?",
    )
    pre_tool = by_event(entries, "pre_tool_call")[0]
    assert set(pre_tool) == common | {"iteration", "tool_call_id", "tool_name", "input"}
    assert (
        pre_tool["iteration"],
        pre_tool["tool_call_id"],
        pre_tool["tool_name"],
        pre_tool["input"],
    ) == (0, "call_1", "add", '{"a":2,"b":3}')
    result = by_event(entries, "on_tool_call_result")[0]
    assert set(result) == common | {
        "iteration",
        "tool_call_id",
        "tool_name",
        "input",
        "output",
        "duration",
    }
    assert result["output"] == 5 and isinstance(result["duration"], float)
    loop = by_event(entries, "on_loop_start")
    assert [(set(e), e["iteration"]) for e in loop] == [
        (common | {"iteration"}, 0),
        (common | {"iteration"}, 1),
    ]
    end = by_event(entries, "on_chat_end")[0]
    assert set(end) == common | {"iteration", "output", "duration", "usage"}
    assert end["usage"] == {
        "input_tokens": 0,
        "output_tokens": 0,
        "total_tokens": 0,
        "cost": 0.0,
        "cache_read_tokens": 0,
        "cache_write_tokens": 0,
    }
    assert all(e["level"] == "info" and e["run_id"] == run_id for e in entries)


async def test_context_is_bound_only_for_the_log_call() -> None:
    seen_in_tool: list[dict[str, Any]] = []

    @tool
    async def peek() -> str:
        """Look at the bound contextvars."""
        seen_in_tool.append(structlog.contextvars.get_contextvars())
        return "ok"

    seen_at_log: list[dict[str, Any]] = []

    def record(_: Any, __: str, event_dict: dict[str, Any]) -> dict[str, Any]:
        seen_at_log.append(
            {**structlog.contextvars.get_contextvars(), "event": event_dict["event"]}
        )
        return event_dict

    capturing = CapturingLogger()
    logger = structlog.wrap_logger(
        capturing, processors=[structlog.contextvars.merge_contextvars, record]
    )
    structlog.contextvars.bind_contextvars(request_id="req-7")
    try:
        _, (run_id,) = await run_calc(
            StructlogPlugin(logger=logger, events=["pre_tool_call"]),
            ProviderResponse(tool_calls=[ToolCall(id="call_9", name="peek")]),
            "done",
            tools=[peek],
        )
        assert seen_at_log == [
            {
                "request_id": "req-7",
                "run_id": run_id,
                "agent": "calc",
                "branch": "calc",
                "iteration": 0,
                "tool_call_id": "call_9",
                "event": "pre_tool_call",
            }
        ]
        assert seen_in_tool == [{"request_id": "req-7"}]
        assert structlog.contextvars.get_contextvars() == {"request_id": "req-7"}
    finally:
        structlog.contextvars.clear_contextvars()
    [call] = capturing.calls
    assert call.method_name == "info"
    assert call.kwargs == {
        "event": "pre_tool_call",
        "request_id": "req-7",
        "run_id": run_id,
        "agent": "calc",
        "branch": "calc",
        "iteration": 0,
        "tool_call_id": "call_9",
        "tool_name": "peek",
        "input": "{}",
    }


async def test_sub_agent_lines_carry_branch_and_parent_run_id() -> None:
    out = io.StringIO()
    bus = HookBus()
    bus.use(StructlogPlugin(renderer="json", file=out, events=["on_chat_start"]))
    researcher = Agent("researcher", "Research.", provider=ScriptedProvider(["found it"]))
    orchestrator = Agent(
        "orchestrator",
        "Delegate.",
        bus=bus,
        sub_agents=[researcher],
        provider=ScriptedProvider(
            [
                ProviderResponse(
                    tool_calls=[
                        ToolCall(id="call_r", name="researcher", arguments={"task": "look"})
                    ]
                ),
                "done",
            ]
        ),
    )
    await orchestrator.chat("go")
    parent, child = lines(out)
    assert (parent["agent"], parent["branch"], parent["input"]) == (
        "orchestrator",
        "orchestrator",
        "go",
    )
    assert "parent_run_id" not in parent
    assert (child["agent"], child["branch"], child["parent_run_id"], child["input"]) == (
        "researcher",
        "orchestrator/researcher",
        parent["run_id"],
        "look",
    )
    assert child["run_id"] != parent["run_id"]


async def test_payload_fields_are_truncated_to_max_chars() -> None:
    call = ProviderResponse(tool_calls=[ToolCall(id="c1", name="shout", arguments={"text": "hey"})])
    out = io.StringIO()
    await run_calc(
        StructlogPlugin(renderer="json", file=out, max_chars=10, events=["on_tool_call_result"]),
        call,
        "ok",
        tools=[shout],
    )
    [entry] = lines(out)
    assert entry["output"] == "HEYHEYHEYH…(+140 chars)"
    assert entry["input"] == '{"text":"h…(+4 chars)'

    out = io.StringIO()
    await run_calc(
        StructlogPlugin(renderer="json", file=out, events=["on_tool_call_result"]),
        call,
        "ok",
        tools=[shout],
    )
    [entry] = lines(out)
    assert entry["output"] == "HEY" * 50  # 150 chars: under the default 200
    assert entry["input"] == '{"text":"hey"}'

    for max_chars, expected in ((None, "y" * 1000), (200, "y" * 200 + "…(+800 chars)")):
        out = io.StringIO()
        bus = HookBus()
        bus.use(
            StructlogPlugin(
                renderer="json", file=out, max_chars=max_chars, events=["on_chat_start"]
            )
        )
        await Agent("long", provider=ScriptedProvider(["ok"]), bus=bus).chat("y" * 1000)
        assert lines(out)[0]["input"] == expected


async def test_levels_default_per_event_and_explicit_overrides() -> None:
    out = io.StringIO()
    bus = HookBus()
    bus.on("pre_tool_call", lambda ctx: Deny("adding is not allowed"))
    await run_calc(StructlogPlugin(renderer="json", file=out), bus=bus)
    entries = lines(out)
    levels = {e["event"]: e["level"] for e in entries if e["event"] != "on_message"}
    assert levels["pre_tool_call"] == "warning"
    assert levels["on_tool_call_error"] == "warning"
    assert {levels[e] for e in levels if e not in ("pre_tool_call", "on_tool_call_error")} == {
        "info"
    }
    denied = by_event(entries, "pre_tool_call")[0]
    assert (denied["denied"], denied["is_error"]) == ("adding is not allowed", True)
    error = by_event(entries, "on_tool_call_error")[0]
    assert error["error"] == "adding is not allowed"

    out = io.StringIO()
    bus = HookBus()
    bus.on("pre_tool_call", lambda ctx: Deny("adding is not allowed"))
    await run_calc(
        StructlogPlugin(
            renderer="json",
            file=out,
            min_level="debug",
            levels={"PreToolUse": "debug", "on_message": "ERROR"},
        ),
        bus=bus,
    )
    entries = lines(out)
    assert by_event(entries, "pre_tool_call")[0]["level"] == "debug"
    assert {e["level"] for e in by_event(entries, "on_message")} == {"error"}
    assert by_event(entries, "on_tool_call_error")[0]["level"] == "warning"


async def test_provider_failure_logs_warning_then_error() -> None:
    out = io.StringIO()
    bus = HookBus()
    bus.use(
        StructlogPlugin(
            renderer="json", file=out, events=["on_model_error", "on_chat_error", "on_chat_end"]
        )
    )
    agent = Agent(
        "calc",
        provider=ScriptedProvider([ProviderHTTPError("HTTP 503: busy", status=503)]),
        bus=bus,
    )
    try:
        await agent.chat("hi")
    except ProviderHTTPError:
        pass
    else:  # pragma: no cover - the assertion below reports it
        raise AssertionError("the provider error must reach the caller")
    entries = lines(out)
    assert [(e["event"], e["level"], e["error"]) for e in entries] == [
        ("on_model_error", "warning", "ProviderHTTPError: HTTP 503: busy"),
        ("on_chat_error", "error", "ProviderHTTPError: HTTP 503: busy"),
        ("on_chat_end", "warning", "ProviderHTTPError: HTTP 503: busy"),
    ]


async def test_stream_chunks_log_at_debug_and_are_hidden_by_default() -> None:
    async def stream(plugin: StructlogPlugin) -> None:
        bus = HookBus()
        bus.use(plugin)
        agent = Agent("talker", provider=ScriptedProvider(["one two three"]), bus=bus)
        async for _ in agent.chat_stream("talk"):
            pass

    out = io.StringIO()
    await stream(
        StructlogPlugin(
            renderer="json",
            file=out,
            min_level="debug",
            events=["on_stream_chunk", "on_stream_end"],
        )
    )
    assert [(e["event"], e["level"], e.get("output")) for e in lines(out)] == [
        ("on_stream_chunk", "debug", "one "),
        ("on_stream_chunk", "debug", "two "),
        ("on_stream_chunk", "debug", "three"),
        ("on_stream_end", "info", ""),
    ]

    out = io.StringIO()
    await stream(
        StructlogPlugin(renderer="json", file=out, events=["on_stream_chunk", "on_stream_end"])
    )
    assert [e["event"] for e in lines(out)] == ["on_stream_end"]


async def test_console_renderer_writes_readable_lines() -> None:
    out = io.StringIO()
    _, (run_id,) = await run_calc(StructlogPlugin(file=out, events=["on_tool_call_result"]))
    [line] = out.getvalue().splitlines()
    assert "[info     ] on_tool_call_result" in line
    for part in (
        "agent=calc",
        "branch=calc",
        "iteration=0",
        "output=5",
        f"run_id={run_id}",
        "tool_call_id=call_1",
        "tool_name=add",
    ):
        assert part in line.split(), part
    assert not line.startswith("{")


async def test_global_structlog_configuration_is_untouched() -> None:
    before = structlog.get_config()
    configured = structlog.is_configured()
    out = io.StringIO()
    await run_calc(StructlogPlugin(renderer="json", file=out))
    assert structlog.get_config() == before
    assert structlog.is_configured() is configured
    assert lines(out)  # it did log, through its own chain


async def test_removing_the_plugin_stops_the_lines() -> None:
    out = io.StringIO()
    bus = HookBus()
    dispose = bus.use(StructlogPlugin(renderer="json", file=out, events=["on_chat_start"]))
    agent = Agent("calc", provider=ScriptedProvider(["a", "b"]), bus=bus)
    await agent.chat("first")
    dispose()
    await agent.chat("second")
    assert [e["input"] for e in lines(out)] == ["first"]
    assert "structlog" not in bus.plugins
    assert bus.listened == frozenset()
