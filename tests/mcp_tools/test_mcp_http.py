"""The weather server over streamable HTTP on 127.0.0.1: its tools, the hooks in front of
them, and a server that goes away while its agent still uses it."""

from __future__ import annotations

import pytest
from http_server import HTTPWeatherServer

from agenthooks import Agent
from agenthooks.mcp import MCPServerHTTP
from agenthooks.testing import HookRecorder, call, make_agent

pytestmark = pytest.mark.server


def tool_messages(agent: Agent) -> list[tuple[str | None, str | None, bool]]:
    return [(m.name, m.content, m.is_error) for m in agent.history if m.role == "tool"]


async def test_tools_over_http_with_a_short_circuit_that_never_reaches_the_server(
    hook_recorder: HookRecorder,
) -> None:
    with HTTPWeatherServer() as served:
        server = MCPServerHTTP(served.url, name="weather-http")
        agent = make_agent(
            [[call("forecast", city="Oslo", days=3), call("alerts", region="North")], "ok"],
            mcp_servers=[server],
        )
        agent.on("pre_tool_call", lambda ctx: {"result": "North: calm"}, match="alerts")
        hook_recorder.attach(agent)
        async with agent:
            await agent.chat("weather?")
            assert [t["function"]["name"] for t in agent.provider.requests[0].tools] == [
                "forecast",
                "alerts",
                "fail",
                "pid",
            ]
        assert served.calls == [{"tool": "forecast", "arguments": {"city": "Oslo", "days": 3}}]
    assert tool_messages(agent) == [
        ("forecast", "Oslo: sunny for 3 day(s)", False),
        ("alerts", "North: calm", False),
    ]
    assert [c.scope.name for c in hook_recorder.of("on_scope_register")] == ["weather-http"]
    assert [c.scope.name for c in hook_recorder.of("on_scope_unregister")] == ["weather-http"]
    assert server.server_name == "weather" and not server.connected


async def test_a_server_that_goes_away_gives_a_tool_error_naming_it() -> None:
    with HTTPWeatherServer() as served:
        agent = make_agent(
            [call("forecast", city="Oslo"), "one", call("forecast", city="Bergen"), "two"],
            mcp_servers=[MCPServerHTTP(served.url)],
        )
        await agent.chat("first")
        served.stop()
        await agent.chat("second")
        await agent.aclose()
        await agent.aclose()
    (ok, gone) = tool_messages(agent)
    assert ok == ("forecast", "Oslo: sunny for 1 day(s)", False)
    assert gone == (
        "forecast",
        "MCP server 'weather' failed on tool 'forecast': Connection closed",
        True,
    )
