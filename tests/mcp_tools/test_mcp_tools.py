"""An MCP server's tools beside local tools: offered under their own names and schemas, called
on the server, and hooked by every tool event exactly as local tools are. The weather server
runs as a real stdio subprocess and records every call that reaches it."""

from __future__ import annotations

from typing import Any

import pytest
from mcp_support import StdioWeather

from agenthooks import Deny, tool
from agenthooks.errors import ToolValidationError
from agenthooks.mcp import MCPServerError, MCPTool, MCPToolError
from agenthooks.testing import HookRecorder, call, make_agent

pytestmark = pytest.mark.subprocess


@tool
def double(x: int) -> int:
    """Double a number."""
    return 2 * x


def tool_messages(agent: Any) -> list[tuple[str | None, str | None, bool]]:
    return [(m.name, m.content, m.is_error) for m in agent.history if m.role == "tool"]


async def test_the_server_tools_are_offered_beside_local_tools_under_their_own_schemas(
    weather: StdioWeather,
) -> None:
    agent = make_agent(["hi"], tools=[double], mcp_servers=[weather.server()])
    async with agent:
        await agent.chat("hello")
    offered = agent.provider.requests[0].tools
    assert [t["function"]["name"] for t in offered] == [
        "double",
        "forecast",
        "alerts",
        "fail",
        "pid",
        "crash",
    ]
    assert offered[1] == {
        "type": "function",
        "function": {
            "name": "forecast",
            "description": "The forecast for a city.",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"title": "City", "type": "string"},
                    "days": {"default": 1, "title": "Days", "type": "integer"},
                },
                "required": ["city"],
                "title": "forecastArguments",
            },
        },
    }


async def test_a_call_reaches_the_server_and_the_model_reads_its_text(
    weather: StdioWeather,
) -> None:
    agent = make_agent(
        [
            call("forecast", city="Oslo", days=2),
            call("alerts", region="North"),
            call("double", x=4),
            "done",
        ],
        tools=[double],
        mcp_servers=[weather.server()],
    )
    async with agent:
        response = await agent.chat("weather?")
    assert response.content == "done"
    assert tool_messages(agent) == [
        ("forecast", "Oslo: sunny for 2 day(s)", False),
        ("alerts", "North: wind\nNorth: rain", False),  # one text block a line
        ("double", "8", False),
    ]
    assert weather.calls() == [
        {"tool": "forecast", "arguments": {"city": "Oslo", "days": 2}},
        {"tool": "alerts", "arguments": {"region": "North"}},
    ]


async def test_bad_arguments_are_an_error_naming_the_argument_and_never_reach_the_server(
    weather: StdioWeather,
) -> None:
    agent = make_agent(
        [call("forecast", town="Oslo"), call("forecast", city="Oslo", days="two"), "sorry"],
        mcp_servers=[weather.server()],
    )
    async with agent:
        await agent.chat("weather?")
    assert tool_messages(agent) == [
        ("forecast", "invalid arguments for tool 'forecast': 'city' is a required property", True),
        (
            "forecast",
            "invalid arguments for tool 'forecast': days: 'two' is not of type 'integer'",
            True,
        ),
    ]
    assert weather.calls() == []


async def test_an_error_result_is_a_tool_error_the_model_reads(
    weather: StdioWeather, hook_recorder: HookRecorder
) -> None:
    agent = make_agent([call("fail", reason="storm"), "sorry"], mcp_servers=[weather.server()])
    hook_recorder.attach(agent)
    async with agent:
        await agent.chat("weather?")
    text = "Error executing tool fail: the sensor is offline: storm"
    assert tool_messages(agent) == [("fail", text, True)]
    (error,) = hook_recorder.of("on_tool_call_error")
    assert (type(error.error), str(error.error), error.source) == (MCPToolError, text, "handler")
    assert hook_recorder.of("on_tool_call_result") == []


async def test_a_deny_matched_by_name_never_reaches_the_server(
    weather: StdioWeather, hook_recorder: HookRecorder
) -> None:
    agent = make_agent(
        [[call("alerts", region="North"), call("forecast", city="Oslo")], "ok"],
        mcp_servers=[weather.server()],
    )
    agent.on("pre_tool_call", lambda ctx: Deny("alerts are off"), match="alerts")
    hook_recorder.attach(agent)
    async with agent:
        await agent.chat("weather?")
    assert tool_messages(agent) == [
        ("alerts", "alerts are off", True),
        ("forecast", "Oslo: sunny for 1 day(s)", False),
    ]
    assert weather.calls() == [{"tool": "forecast", "arguments": {"city": "Oslo", "days": 1}}]
    hook_recorder.assert_sequence(
        [
            "pre_tool_call:alerts",
            "on_tool_call_error:alerts",
            "pre_tool_call:forecast",
            "on_tool_call_result:forecast",
        ]
    )
    (denied,) = hook_recorder.of("on_tool_call_error")
    assert (denied.source, str(denied.error)) == ("denied", "alerts are off")
    (pre, _) = hook_recorder.of("pre_tool_call")
    assert isinstance(pre.tool, MCPTool) and pre.scope.name == "weather"


async def test_a_short_circuit_result_never_reaches_the_server(
    weather: StdioWeather, hook_recorder: HookRecorder
) -> None:
    agent = make_agent([call("forecast", city="Oslo"), "ok"], mcp_servers=[weather.server()])
    agent.on("pre_tool_call", lambda ctx: {"result": "Oslo: cached"}, match=["forecast"])
    hook_recorder.attach(agent)
    async with agent:
        await agent.chat("weather?")
    assert tool_messages(agent) == [("forecast", "Oslo: cached", False)]
    assert weather.calls() == []
    assert [r.result for r in hook_recorder.of("on_tool_call_result")] == ["Oslo: cached"]


async def test_an_argument_rewrite_is_what_the_server_receives_and_is_checked_again(
    weather: StdioWeather,
) -> None:
    agent = make_agent(
        [call("forecast", city="Oslo"), call("alerts", region="North"), "ok"],
        mcp_servers=[weather.server()],
    )

    def rewrite(ctx: Any) -> Any:
        if ctx.call.name == "forecast":
            return {
                "call": ctx.call.model_copy(update={"arguments": {"city": "Bergen", "days": 3}})
            }
        return {"call": ctx.call.model_copy(update={"arguments": {"area": "North"}})}

    agent.on("pre_tool_call", rewrite)
    async with agent:
        await agent.chat("weather?")
    assert weather.calls() == [{"tool": "forecast", "arguments": {"city": "Bergen", "days": 3}}]
    assert tool_messages(agent) == [
        ("forecast", "Bergen: sunny for 3 day(s)", False),
        ("alerts", "invalid arguments for tool 'alerts': 'region' is a required property", True),
    ]


async def test_after_events_rewrite_results_and_recover_errors(weather: StdioWeather) -> None:
    agent = make_agent(
        [[call("forecast", city="Oslo"), call("fail", reason="x")], "ok"],
        mcp_servers=[weather.server()],
    )
    agent.on("on_tool_call_result", lambda ctx: {"result": ctx.result.upper()}, match="forecast")
    agent.on("on_tool_call_error", lambda ctx: {"result": "no sensor today"}, match="fail")
    records: list[tuple[str, str | None]] = []
    agent.on(
        "on_event",
        lambda r: records.append((r.type, r.tool_name)) if r.tool_name else None,
    )
    async with agent:
        await agent.chat("weather?")
    assert tool_messages(agent) == [
        ("forecast", "OSLO: SUNNY FOR 1 DAY(S)", False),
        ("fail", "no sensor today", False),
    ]
    assert records == [
        ("pre_tool_call", "forecast"),
        ("on_tool_call_result", "forecast"),
        ("pre_tool_call", "fail"),
        ("on_tool_call_error", "fail"),
        ("on_tool_call_result", "fail"),  # a recovered error goes on as a result
    ]


async def test_parallel_calls_share_the_connection(weather: StdioWeather) -> None:
    agent = make_agent(
        [[call("forecast", city=c) for c in ("Oslo", "Bergen", "Tromsø")], "ok"],
        mcp_servers=[weather.server()],
        parallel_tool_calls=True,
    )
    async with agent:
        await agent.chat("weather?")
    assert tool_messages(agent) == [
        ("forecast", "Oslo: sunny for 1 day(s)", False),
        ("forecast", "Bergen: sunny for 1 day(s)", False),
        ("forecast", "Tromsø: sunny for 1 day(s)", False),
    ]
    assert sorted(c["arguments"]["city"] for c in weather.calls()) == ["Bergen", "Oslo", "Tromsø"]


async def test_a_server_that_dies_fails_that_call_and_starts_again_at_the_next(
    weather: StdioWeather,
) -> None:
    server = weather.server()
    agent = make_agent(
        [call("pid"), call("crash"), call("forecast", city="Oslo"), call("pid"), "sunny again"],
        mcp_servers=[server],
    )
    async with agent:
        response = await agent.chat("weather?")
        assert server.connected and server.restarts == 0  # the answers reset the count
    assert response.content == "sunny again"
    (first, crashed, forecast, second) = tool_messages(agent)
    assert crashed == (
        "crash",
        "MCP server 'weather' failed on tool 'crash': Connection closed",
        True,
    )
    assert forecast == ("forecast", "Oslo: sunny for 1 day(s)", False)
    assert first[1] != second[1]  # another process
    # the call in flight when it died is never sent again (it may have run)
    assert [c["tool"] for c in weather.calls()] == ["pid", "crash", "forecast", "pid"]


async def test_the_tool_object_validates_and_invokes_like_a_local_tool(
    weather: StdioWeather,
) -> None:
    server = weather.server()
    agent = make_agent([], mcp_servers=[server])
    async with agent:
        await agent.connect_mcp()
        forecast = agent.scopes["weather"].tools["forecast"]
        assert repr(forecast) == "MCPTool('forecast', server='weather')"
        assert forecast.validate({"city": "Oslo"}) == {"city": "Oslo"}
        try:
            forecast.validate({"city": 1, "days": None})
        except ToolValidationError as exc:
            assert str(exc) == (
                "invalid arguments for tool 'forecast': city: 1 is not of type 'string'; "
                "days: None is not of type 'integer'"
            )
        else:
            raise AssertionError("validate accepted bad arguments")
        assert await forecast.invoke({"city": "Oslo"}) == "Oslo: sunny for 1 day(s)"
        assert await forecast(city="Bergen") == "Bergen: sunny for 1 day(s)"
    try:
        await forecast.invoke({"city": "Oslo"})
    except MCPServerError as exc:
        assert str(exc) == "MCP server 'weather' is not connected"
    else:
        raise AssertionError("a closed server answered")
