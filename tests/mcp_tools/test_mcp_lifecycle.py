"""An MCP server's lifetime: it starts at the first run that needs it, shows to the hooks as a
scope, and ``aclose()`` (from any task) ends it with no subprocess left; closing twice is a
no-op. A server that cannot be started or reached fails the run before its first event, with
an error that names it."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Callable

import pytest
from mcp_support import StdioWeather

from agenthooks import Agent, tool
from agenthooks.errors import RegistrationError
from agenthooks.mcp import MCPConnectionError, MCPServerHTTP, MCPServerStdio
from agenthooks.testing import HookRecorder, call, make_agent

pytestmark = pytest.mark.subprocess

Leaks = Callable[[], list[int]]


def pid_of(agent: Agent) -> int:
    """The server pid a run's ``pid`` call returned."""
    (message,) = [m for m in agent.history if m.role == "tool" and m.name == "pid"][-1:]
    return int(message.content or "0")


async def test_a_server_starts_at_the_first_run_and_stops_on_aclose(
    weather: StdioWeather, hook_recorder: HookRecorder, no_leaked_children: Leaks
) -> None:
    server = weather.server()
    agent = make_agent([call("pid"), "one", "two"], mcp_servers=[server])
    hook_recorder.attach(agent)
    assert (server.connected, no_leaked_children(), "weather" in agent.scopes) == (False, [], False)

    await agent.chat("first")
    assert server.connected and "weather" in agent.scopes
    assert no_leaked_children() == [pid_of(agent)]
    await agent.chat("second")  # connected already: no second start
    hook_recorder.assert_sequence(["on_scope_register", "on_chat_start", "on_chat_start"])
    (registered,) = hook_recorder.of("on_scope_register")
    assert registered.scope is agent.scopes["weather"]
    assert list(registered.scope.tools) == ["forecast", "alerts", "fail", "pid", "crash"]

    await agent.aclose()
    assert (server.connected, no_leaked_children(), "weather" in agent.scopes) == (False, [], False)
    await agent.aclose()  # a no-op: no second event
    hook_recorder.assert_sequence(
        ["on_scope_register", "on_chat_start", "on_chat_start", "on_scope_unregister"]
    )
    assert hook_recorder.of("on_scope_unregister")[0].scope is registered.scope


async def test_async_with_closes_the_server(
    weather: StdioWeather, no_leaked_children: Leaks
) -> None:
    async with make_agent([call("pid"), "ok"], mcp_servers=[weather.server()]) as agent:
        await agent.chat("pid?")
        assert no_leaked_children() == [pid_of(agent)]
    assert no_leaked_children() == []


async def test_started_in_one_task_closed_from_another(
    weather: StdioWeather, no_leaked_children: Leaks
) -> None:
    agent = make_agent([call("pid"), "ok", "streamed"], mcp_servers=[weather.server()])
    await asyncio.create_task(agent.chat("pid?"))  # the run's task ends here
    items = [item async for item in agent.chat_stream("again")]  # a producer task of its own
    assert items[-1].response.content == "streamed"
    assert no_leaked_children() == [pid_of(agent)]
    await asyncio.create_task(agent.aclose())
    assert no_leaked_children() == []


async def test_a_closed_server_starts_again_at_the_next_run(
    weather: StdioWeather, hook_recorder: HookRecorder, no_leaked_children: Leaks
) -> None:
    agent = make_agent([call("pid"), "one", call("pid"), "two"], mcp_servers=[weather.server()])
    hook_recorder.attach(agent)
    await agent.chat("first")
    first = pid_of(agent)
    await agent.aclose()
    await agent.chat("second")
    second = pid_of(agent)
    assert first != second and no_leaked_children() == [second]
    await agent.aclose()
    assert no_leaked_children() == []
    hook_recorder.assert_sequence(
        ["on_scope_register", "on_scope_unregister", "on_scope_register", "on_scope_unregister"]
    )


def test_chat_sync_runs_each_chat_on_a_loop_of_its_own(
    weather: StdioWeather, hook_recorder: HookRecorder, no_leaked_children: Leaks
) -> None:
    agent = make_agent([call("pid"), "one", call("pid"), "two"], mcp_servers=[weather.server()])
    hook_recorder.attach(agent)
    assert agent.chat_sync("first").content == "one"
    first = pid_of(agent)
    assert first not in no_leaked_children()  # the loop's end ended its connection
    assert agent.chat_sync("second").content == "two"  # so its next call starts it again
    assert pid_of(agent) != first
    asyncio.run(agent.aclose())
    assert no_leaked_children() == []
    # started again under the same scope: the hooks see one scope from the first run to aclose
    hook_recorder.assert_sequence(["on_scope_register", "on_scope_unregister"])


async def test_a_server_that_cannot_be_started_fails_the_run_before_any_event(
    hook_recorder: HookRecorder, no_leaked_children: Leaks
) -> None:
    agent = make_agent(["never"], mcp_servers=[MCPServerStdio("/nonexistent/weather-server")])
    hook_recorder.attach(agent)
    with pytest.raises(MCPConnectionError) as caught:
        await agent.chat("hi")
    assert str(caught.value) == (
        "MCP server '/nonexistent/weather-server' could not be started: "
        "[Errno 2] No such file or directory: '/nonexistent/weather-server'"
    )
    assert hook_recorder.names() == [] and agent.history == []
    assert agent.provider.requests == [] and no_leaked_children() == []
    await agent.aclose()  # nothing to close


async def test_a_server_that_exits_at_once_is_named_by_its_name(
    no_leaked_children: Leaks,
) -> None:
    server = MCPServerStdio(sys.executable, ["-c", "pass"], name="weather")
    agent = make_agent(["never"], mcp_servers=[server])
    with pytest.raises(MCPConnectionError) as caught:
        await agent.chat("hi")
    assert str(caught.value) == "MCP server 'weather' could not be started: Connection closed"
    assert no_leaked_children() == []


async def test_a_server_that_never_answers_times_out_and_is_ended(
    no_leaked_children: Leaks,
) -> None:
    server = MCPServerStdio(
        sys.executable, ["-c", "import time; time.sleep(60)"], name="mute", connect_timeout=0.5
    )
    agent = make_agent(["never"], mcp_servers=[server])
    with pytest.raises(MCPConnectionError) as caught:
        await agent.chat("hi")
    assert str(caught.value) == "MCP server 'mute' did not answer within 0.5 s"
    assert no_leaked_children() == []


async def test_a_streamed_run_reports_the_failure_too() -> None:
    agent = make_agent(["never"], mcp_servers=[MCPServerStdio("/nonexistent/weather-server")])
    with pytest.raises(MCPConnectionError, match="^MCP server '/nonexistent/weather-server'"):
        async for _ in agent.chat_stream("hi"):
            pass


async def test_an_http_server_that_cannot_be_reached_is_named_by_its_url() -> None:
    agent = make_agent(["never"], mcp_servers=[MCPServerHTTP("http://127.0.0.1:9/mcp")])
    with pytest.raises(MCPConnectionError) as caught:
        await agent.chat("hi")
    assert str(caught.value) == (
        "MCP server 'http://127.0.0.1:9/mcp' could not be reached: All connection attempts failed"
    )


async def test_a_tool_name_a_local_tool_has_already_is_refused(
    weather: StdioWeather, no_leaked_children: Leaks
) -> None:
    @tool
    def forecast(city: str) -> str:
        """A local forecast."""
        return city

    agent = make_agent(["never"], tools=[forecast], mcp_servers=[weather.server()])
    with pytest.raises(RegistrationError) as caught:
        await agent.chat("hi")
    assert str(caught.value) == (
        "MCP server 'weather' offers a tool 'forecast' that agent 'agent' already has "
        "(scope 'default')"
    )
    assert no_leaked_children() == [] and "weather" not in agent.scopes


async def test_two_servers_with_one_name_are_refused(weather: StdioWeather) -> None:
    agent = make_agent(["never"], mcp_servers=[weather.server(), weather.server("weather")])
    with pytest.raises(RegistrationError) as caught:
        await agent.connect_mcp()
    assert str(caught.value) == (
        "agent 'agent' already has a scope 'weather'; pass name= to the server"
    )
    await agent.aclose()
    assert "weather" not in agent.scopes


def test_bad_server_arguments_are_refused_when_built() -> None:
    cases: list[tuple[Callable[[], object], str]] = [
        (lambda: MCPServerStdio(""), "MCPServerStdio needs a command, got ''"),
        (
            lambda: MCPServerStdio("python", "server.py"),  # type: ignore[arg-type]
            "MCPServerStdio args must be a list of strings, got 'server.py'",
        ),
        (
            lambda: MCPServerHTTP("127.0.0.1:8000/mcp"),
            "MCPServerHTTP needs an http(s) URL, got '127.0.0.1:8000/mcp'",
        ),
        (
            lambda: MCPServerHTTP("http://x/mcp", name=""),
            "an MCP server's name must be a non-empty string, got ''",
        ),
        (
            lambda: MCPServerHTTP("http://x/mcp", connect_timeout=0),
            "connect_timeout must be positive, got 0",
        ),
        (
            lambda: MCPServerStdio("python", call_timeout=-1),
            "call_timeout must be positive, got -1",
        ),
        (
            lambda: MCPServerHTTP("http://x/mcp", call_timeout="5"),  # type: ignore[arg-type]
            "call_timeout must be positive, got '5'",
        ),
        (
            lambda: MCPServerHTTP("http://x/mcp", max_restarts=-1),
            "max_restarts must be an int >= 0, got -1",
        ),
        (
            lambda: Agent("a", mcp_servers=["http://x/mcp"]),  # type: ignore[list-item]
            "mcp_servers= takes MCPServerStdio or MCPServerHTTP objects, got 'http://x/mcp'",
        ),
    ]
    for build, message in cases:
        with pytest.raises(RegistrationError) as caught:
            build()
        assert str(caught.value) == message


def test_a_server_belongs_to_one_agent() -> None:
    server = MCPServerHTTP("http://127.0.0.1:9/mcp")
    Agent("a", mcp_servers=[server])
    with pytest.raises(RegistrationError) as caught:
        Agent("b", mcp_servers=[server])
    assert str(caught.value) == (
        "MCP server 'http://127.0.0.1:9/mcp' already belongs to agent 'a'; "
        "give each agent its own server object"
    )


async def test_sub_agent_and_handoff_servers(
    weather: StdioWeather, no_leaked_children: Leaks
) -> None:
    # a sub-agent starts its server in its own run; a handoff target's server starts with the
    # run that may hand over to it; the parent's aclose closes both
    helper = make_agent(
        [call("forecast", city="Oslo"), "Oslo is sunny"],
        name="helper",
        mcp_servers=[weather.server(name="helper-weather")],
    )
    desk = make_agent(
        [call("alerts", region="North"), "North: wind and rain"],
        name="desk",
        mcp_servers=[weather.server(name="desk-weather")],
    )
    lead = make_agent(
        [call("helper", task="Oslo?"), call("transfer_to_desk"), "unused"],
        name="lead",
        sub_agents=[helper],
        handoffs=[desk],
    )
    response = await lead.chat("weather?")
    assert (response.agent, response.content) == ("desk", "North: wind and rain")
    assert [c["tool"] for c in weather.calls()] == ["forecast", "alerts"]
    assert len(no_leaked_children()) == 2
    await lead.aclose()
    assert no_leaked_children() == []
    assert "helper-weather" not in helper.scopes and "desk-weather" not in desk.scopes


def test_importing_agenthooks_does_not_import_mcp() -> None:
    code = (
        "import asyncio, sys, agenthooks\n"
        "agent = agenthooks.Agent('a', provider=agenthooks.ScriptedProvider(['hi']))\n"
        "asyncio.run(agent.chat('hi')); asyncio.run(agent.aclose())\n"
        "print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith(('mcp.', 'agenthooks.mcp'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout == "[]\n"


async def test_connect_is_the_deprecated_name_of_connect_mcp() -> None:
    from agenthooks import Agent

    agent = Agent("a")
    with pytest.warns(DeprecationWarning, match=r"use Agent\.connect_mcp\(\)"):
        await agent.connect()
