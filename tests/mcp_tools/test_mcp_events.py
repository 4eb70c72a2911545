"""A run with MCP tools fires exactly the events of the same run with local tools: the same
script, the same hooks, one agent whose weather tools are a scope of local functions
registered before the run and unregistered after, the other whose weather tools come from
the MCP server (connected by the run, closed by ``aclose``)."""

from __future__ import annotations

from typing import Any

import pytest
from http_server import HTTPWeatherServer
from mcp_support import StdioWeather

from agenthooks import Agent, ChatMessage, Deny, Scope, Session, tool
from agenthooks.mcp import MCPServerHTTP, MCPToolError
from agenthooks.testing import HookRecorder, call, make_agent


@tool
async def forecast(city: str, days: int = 1) -> str:
    """The forecast for a city."""
    return f"{city}: sunny for {days} day(s)"


@tool
async def alerts(region: str) -> str:
    """The weather alerts of a region."""
    return f"{region}: wind\n{region}: rain"


@tool
async def fail(reason: str) -> str:
    """Always fails with ``reason``."""
    raise MCPToolError(f"Error executing tool fail: the sensor is offline: {reason}")


SCRIPT = [
    call("forecast", city="Oslo"),
    [call("alerts", region="North"), call("fail", reason="storm")],
    call("forecast", town="Oslo"),
    "Oslo is sunny",
]


def hooked(agent: Agent, log: list[str]) -> Agent:
    agent.on("pre_tool_call", lambda ctx: Deny("alerts are off"), match="alerts")
    agent.on("on_event", lambda record: log.append(record.type))
    return agent


def tool_messages(history: list[ChatMessage]) -> list[tuple[str | None, str | None, bool]]:
    return [(m.name, m.content, m.is_error) for m in history if m.role == "tool"]


def same_messages(remote: list[ChatMessage], local: list[ChatMessage]) -> None:
    """The model reads the same tool messages but for the wording of the invalid arguments
    (the server's JSON Schema against the function's signature)."""
    theirs, ours = tool_messages(remote), tool_messages(local)
    assert (
        theirs[:3]
        == ours[:3]
        == [
            ("forecast", "Oslo: sunny for 1 day(s)", False),
            ("alerts", "alerts are off", True),
            ("fail", "Error executing tool fail: the sensor is offline: storm", True),
        ]
    )
    assert theirs[3] == (
        "forecast",
        "invalid arguments for tool 'forecast': 'city' is a required property",
        True,
    )
    assert ours[3] == (
        "forecast",
        "invalid arguments for tool 'forecast': city: Field required; "
        "town: Extra inputs are not permitted",
        True,
    )
    assert len(theirs) == len(ours) == 4


async def local_run(streamed: bool) -> tuple[list[str], list[str], list[ChatMessage]]:
    recorder, log = HookRecorder(), []
    agent = hooked(make_agent(SCRIPT), log)
    recorder.attach(agent)
    await agent.scopes.register(Scope("weather", [forecast, alerts, fail]))
    history = await drive(agent, streamed)
    await agent.scopes.unregister("weather")
    return recorder.names(), log, history


async def mcp_run(server: Any, streamed: bool) -> tuple[list[str], list[str], list[ChatMessage]]:
    recorder, log = HookRecorder(), []
    agent = hooked(make_agent(SCRIPT, mcp_servers=[server]), log)
    recorder.attach(agent)
    history = await drive(agent, streamed)
    await agent.aclose()
    return recorder.names(), log, history


async def drive(agent: Agent, streamed: bool) -> list[ChatMessage]:
    """One run, by ``chat()`` or streamed in a session; the transcript."""
    if streamed:
        session = Session(agent)
        async for _ in session.chat_stream("weather?"):
            pass
        return session.history
    await agent.chat("weather?")
    return agent.history


@pytest.mark.subprocess
@pytest.mark.parametrize("streamed", [False, True], ids=["chat", "stream"])
async def test_stdio_tools_fire_the_events_local_tools_fire(
    weather: StdioWeather, streamed: bool
) -> None:
    local_names, local_log, local = await local_run(streamed)
    mcp_names, mcp_log, remote = await mcp_run(weather.server(), streamed)
    assert mcp_names == local_names
    assert mcp_log == local_log
    same_messages(remote, local)
    assert mcp_names[0] == "on_scope_register" and mcp_names[-1] == "on_scope_unregister"
    assert mcp_names.count("pre_tool_call") == 3  # invalid arguments never reach it
    assert [c["tool"] for c in weather.calls()] == ["forecast", "fail"]


@pytest.mark.server
async def test_http_tools_fire_the_events_local_tools_fire() -> None:
    local_names, local_log, local = await local_run(False)
    with HTTPWeatherServer() as served:
        mcp_names, mcp_log, remote = await mcp_run(MCPServerHTTP(served.url), False)
    assert mcp_names == local_names
    assert mcp_log == local_log
    same_messages(remote, local)
    assert [c["tool"] for c in served.calls] == ["forecast", "fail"]
