"""An MCP call cannot hang, and a crashed server does not stay broken (issue 21, class 3).

Real MCP servers written with the SDK (``rel_mcp_server.py``), as stdio subprocesses and over
streamable HTTP, behind agents whose scripted model calls their tools:

- a call that does not answer (an async wait past the timeout, one that never answers, a sync
  sleep) ends after ``call_timeout`` (within a second) as the tool error the model reads,
  naming the server, the tool and the timeout; ``on_tool_call_error`` sees an
  ``MCPTimeoutError``; the connection stays usable for the next call;
- a stdio server that died (in a call, or killed while idle, then called by parallel calls) is
  started again at its next call: a call in flight is never sent again, an idle death costs no
  call, parallel calls share one restart;
- a server that keeps dying (at every call, or that can no longer be started) is restarted
  ``max_restarts`` times in a row, then every call fails at once with an
  ``MCPServerDownError`` naming it; after ``aclose()`` a run starts it again;
- an HTTP server that went away and came back, or was restarted between calls, is reached
  again; one gone for good is left down after ``max_restarts`` attempts.

Every run is checked for the suite's invariants (one terminal event, one tool message per
call, a transcript a strict provider accepts) and no subprocess is left after ``aclose()``.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rel_drive import Outcome, invariant_problems, scale
from rel_mcp_server import Served
from rel_probe import Probe, attach_current
from rel_tally import Problem, Tally

from agenthooks import Agent, HookBus, Session, tool
from agenthooks.mcp import (
    MCPConnectionError,
    MCPServerDownError,
    MCPServerError,
    MCPServerHTTP,
    MCPServerStdio,
    MCPTimeoutError,
)
from agenthooks.testing import call, make_agent

HERE = Path(__file__).resolve().parent
SERVER = HERE / "rel_mcp_server.py"
GUARD = 120.0  # seconds for a whole run: spawning servers on a loaded machine takes a while
sys.path.insert(0, str(HERE.parent / "mcp_tools"))
from mcp_support import children  # noqa: E402


def stdio(log: Path, *extra: str, **options: Any) -> MCPServerStdio:
    return MCPServerStdio(sys.executable, [str(SERVER), str(log), *extra], **options)


def reached(log: Path) -> list[dict[str, Any]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines()]


async def run(
    agent: Agent, *, stream: bool = False, probe: Probe | None = None, errors: Any = None
) -> dict[str, Any]:
    """One chat of ``agent`` to its outcome; a probe and an error recorder are attached to
    its bus unless given (attached already)."""
    if probe is None:
        probe, errors = Probe(), []
        probe.attach(agent.bus)
        agent.bus.on("on_tool_call_error", lambda ctx: errors.append(ctx))
    session = Session(agent)
    items: list[Any] = []

    async def chat() -> Any:
        if not stream:
            return await session.chat("go")
        async for item in session.chat_stream("go"):
            items.append(item)
        return items[-1].response

    try:
        outcome = Outcome("response", response=await asyncio.wait_for(chat(), GUARD))
    except asyncio.TimeoutError:
        outcome = Outcome("hung")
    except Exception as exc:
        outcome = Outcome("error", error=exc)
    # scope events fire outside any run (a server connecting or closing): not a run's events
    probe.events = [e for e in probe.events if not e.name.startswith("on_scope_")]
    problems = await invariant_problems(probe, outcome, session.history)
    tools = [(m.name, m.content, m.is_error) for m in session.history if m.role == "tool"]
    return {"outcome": outcome, "problems": problems, "errors": errors, "tools": tools}


def answered(got: dict[str, Any], content: str = "done") -> list[Problem]:
    outcome: Outcome = got["outcome"]
    problems: list[Problem] = list(got["problems"])
    if (
        outcome.kind != "response"
        or outcome.response is None
        or outcome.response.content != content
    ):
        problems.append(("the run goes on to its answer", outcome.describe()))
    return problems


def agent_with(server: Any, script: list[Any], **options: Any) -> Agent:
    return make_agent(script, mcp_servers=[server], bus=HookBus(), **options)


# ------------------------------------------------------------------------------ timeouts

SLOW: dict[str, Callable[[float], dict[str, Any]]] = {
    "sleep": lambda t: {"seconds": t + 2},
    "hang": lambda t: {},
    "block": lambda t: {"seconds": t + 0.4},
}


class Rig:
    """One agent with one MCP server for many runs: each run gets its script and a probe of
    its own (the server is started once)."""

    def __init__(self, server: Any) -> None:
        from agenthooks import ScriptedProvider

        self.script: list[Any] = []
        self.probe = Probe()
        self.errors: list[Any] = []
        bus = HookBus()
        attach_current(bus, lambda: self.probe)
        bus.on("on_tool_call_error", lambda ctx: self.errors.append(ctx))
        self.agent = Agent(
            "worker", provider=ScriptedProvider(self.model), mcp_servers=[server], bus=bus
        )

    def model(self, request: Any) -> Any:
        turn = sum(1 for m in request.messages if m.role == "assistant")
        return _step(self.script[turn])

    async def run(self, script: list[Any], stream: bool) -> dict[str, Any]:
        self.script, self.probe, self.errors[:] = script, Probe(), []
        return await run(self.agent, stream=stream, probe=self.probe, errors=self.errors)


def _step(step: Any) -> Any:
    from agenthooks import ProviderResponse

    return ProviderResponse(tool_calls=[step]) if not isinstance(step, str) else step


async def timeout_case(rig: Rig, name: str, timeout: float, stream: bool) -> list[Problem]:
    rig.agent.mcp_servers[0].call_timeout = timeout
    got = await rig.run(
        [call(name, **SLOW[name](timeout)), call("echo", text="here"), "done"], stream
    )
    problems = answered(got)
    expected = (
        f"MCP server 'flaky' did not answer tool {name!r} within {timeout:g} s (call_timeout)"
    )
    want = [(name, expected, True), ("echo", "here", False)]
    if got["tools"] != want:
        problems.append(("a timeout is the tool error the model reads", f"{got['tools']}"))
    errors = got["errors"]
    if len(errors) != 1 or not isinstance(errors[0].error, MCPTimeoutError):
        problems.append(("on_tool_call_error sees an MCPTimeoutError", f"{errors}"))
    else:
        error = errors[0].error
        if (error.server, error.tool, error.timeout) != ("flaky", name, timeout):
            problems.append(("the error names server, tool and timeout", str(error)))
        if not timeout <= errors[0].duration <= timeout + 1.0:
            problems.append(("honoured within a second", f"{errors[0].duration:.2f} s"))
    return problems


async def test_a_call_that_does_not_answer_ends_at_its_timeout(tmp_path: Path) -> None:
    defaults = (stdio(tmp_path / "x").call_timeout, MCPServerHTTP("http://h/mcp").call_timeout)
    assert defaults == (60.0, 60.0)  # the documented default
    tally = Tally("an MCP call ends at its call_timeout")
    before = set(children())
    with Served() as served:
        rigs = {
            "stdio": Rig(stdio(tmp_path / "calls.jsonl")),
            "http": Rig(MCPServerHTTP(served.url)),
        }
        for (transport, rig), name, (timeout, stream) in itertools.product(
            rigs.items(), SLOW, ((0.5, False), (1.5, True))
        ):
            problems = await timeout_case(rig, name, timeout, stream)
            mode = "chat_stream()" if stream else "chat()"
            tally.case(f"{transport} {name} call_timeout={timeout} {mode}", problems, transport)
        for rig in rigs.values():
            await rig.agent.aclose()
    left = set(children()) - before
    assert not left, f"subprocesses left after aclose(): {sorted(left)}"
    tally.assert_held()


# ------------------------------------------------------------------------------ restarts


@tool
async def kill_server(pid: int) -> str:
    """Kill a process (the model's way of saying: the server died while idle)."""
    os.kill(pid, signal.SIGKILL)
    for _ in range(200):  # until it is dead (a zombie until the SDK reaps it, or gone)
        await asyncio.sleep(0.01)
        try:
            with open(f"/proc/{pid}/stat") as stat:
                if stat.read().rsplit(")", 1)[1].split()[0] == "Z":
                    break
        except OSError:
            break
    # idle means idle: the death happened before the next call, not as it is being sent
    await asyncio.sleep(0.3)
    return "killed"


def pid_script(death: str, parallel: int) -> Any:
    """The model: ``pid``, then the death, then ``parallel`` echo calls at once, then ``pid``."""
    state: dict[str, Any] = {}

    def model(request: Any) -> Any:
        from agenthooks import ProviderResponse, ToolCall

        turn = sum(1 for m in request.messages if m.role == "assistant")
        if turn == 0:
            return ProviderResponse(tool_calls=[ToolCall(id="p1", name="pid")])
        if turn == 1:
            first = next(m for m in request.messages if m.role == "tool")
            state["pid"] = int(first.content)
            if death == "mid-call":
                return ProviderResponse(tool_calls=[ToolCall(id="d1", name="die")])
            kill = ToolCall(id="k1", name="kill_server", arguments={"pid": state["pid"]})
            return ProviderResponse(tool_calls=[kill])
        if turn == 2:
            calls = [
                ToolCall(id=f"e{i}", name="echo", arguments={"text": f"t{i}"})
                for i in range(parallel)
            ]
            return ProviderResponse(tool_calls=calls)
        if turn == 3:
            return ProviderResponse(tool_calls=[ToolCall(id="p2", name="pid")])
        return ProviderResponse(content="done")

    return model


async def test_a_server_that_died_starts_again_at_its_next_call(tmp_path: Path) -> None:
    from agenthooks import ScriptedProvider

    tally = Tally("a stdio server that died starts again at its next call")
    before = set(children())
    every = itertools.product(("mid-call", "killed while idle"), (1, 3), (False, True))
    some = [("mid-call", 1, False), ("mid-call", 3, True), ("killed while idle", 1, True)]
    some.append(("killed while idle", 3, False))
    for number, (death, parallel, stream) in enumerate(scale(some, list(every))):
        log = tmp_path / f"calls-{number}.jsonl"
        server = stdio(log)
        agent = Agent(
            "worker",
            provider=ScriptedProvider(pid_script(death, parallel)),
            tools=[kill_server],
            mcp_servers=[server],
            bus=HookBus(),
            parallel_tool_calls=True,
        )
        got = await run(agent, stream=stream)
        problems = answered(got)
        tools = got["tools"]
        first_pid = tools[0][1] if tools else None
        death_message = (
            [("die", "MCP server 'flaky' failed on tool 'die': Connection closed", True)]
            if death == "mid-call"
            else [("kill_server", "killed", False)]
        )
        want = [
            ("pid", first_pid, False),
            *death_message,
            *[("echo", f"t{i}", False) for i in range(parallel)],
        ]
        if tools[:-1] != want or len(tools) != len(want) + 1 or tools[-1][1] == first_pid:
            problems.append(("the next calls reach a new process", f"{tools}"))
        calls = reached(log)
        pids = {c["pid"] for c in calls}
        expected_tools = [
            "pid",
            *(["die"] if death == "mid-call" else []),
            *["echo"] * parallel,
            "pid",
        ]
        if sorted(c["tool"] for c in calls) != sorted(expected_tools):
            problems.append(("no call is sent twice, none is lost", f"{calls}"))
        if len(pids) != 2:
            problems.append(("one restart, shared by parallel calls", f"{len(pids)} processes"))
        if server.restarts != 0 or not server.connected:
            problems.append(("an answer resets the count", f"restarts={server.restarts}"))
        await agent.aclose()
        left = set(children()) - before
        if left:
            problems.append(("no subprocess left after aclose()", f"{sorted(left)}"))
        mode = "chat_stream()" if stream else "chat()"
        tally.case(f"{death}, then {parallel} call(s) at once, {mode}", problems, death)
    tally.assert_held()


async def test_a_server_that_keeps_dying_is_left_down(tmp_path: Path) -> None:
    tally = Tally("a server that keeps dying is left down after max_restarts")
    before = set(children())
    for number, (mode, limit) in enumerate(
        itertools.product(
            ("dies at every call", "cannot be started again"), scale((0, 2), (0, 1, 3))
        )
    ):
        log = tmp_path / f"calls-{number}.jsonl"
        extra = ("die-on-call",) if mode == "dies at every call" else ()
        server = stdio(log, *extra, max_restarts=limit)
        calls = limit + 3
        first = "echo" if mode == "dies at every call" else "die"
        script = [call(first, text="x") if first == "echo" else call("die")]
        script += [call("echo", text="x") for _ in range(calls - 1)] + ["done"]
        agent = agent_with(server, script)
        await agent.connect_mcp()
        if mode == "cannot be started again":
            Path(f"{log}.refuse").write_text("")
        got = await run(agent)
        problems = answered(got)
        died = f"MCP server 'flaky' failed on tool '{first}': Connection closed"
        if mode == "dies at every call":
            again = [("echo", "MCP server 'flaky' failed on tool 'echo': Connection closed", True)]
        else:
            again = [("echo", "MCP server 'flaky' could not be started: Connection closed", True)]
        down = (
            "MCP server 'flaky' keeps stopping: it was started again "
            f"{limit} times in a row without answering a call (max_restarts={limit}); "
            "it stays down until it is closed"
        )
        want = [(first, died, True), *again * limit, *[("echo", down, True)] * (calls - 1 - limit)]
        if got["tools"] != want:
            problems.append(("restarted max_restarts times, then left down", f"{got['tools']}"))
        kinds = [type(ctx.error).__name__ for ctx in got["errors"]]
        restart_error = "MCPServerError" if mode == "dies at every call" else "MCPConnectionError"
        if kinds != [
            "MCPServerError",
            *[restart_error] * limit,
            *["MCPServerDownError"] * (calls - 1 - limit),
        ]:
            problems.append(("on_tool_call_error sees the typed errors", f"{kinds}"))
        reached_calls = len(reached(log))
        if reached_calls != (limit + 1 if mode == "dies at every call" else 1):
            problems.append(
                ("no call reaches a server left down", f"{reached_calls} calls reached")
            )
        await agent.aclose()
        if set(children()) - before:
            problems.append(("no subprocess left after aclose()", f"{set(children()) - before}"))
        # closed, it may start again: a new run's call reaches a new process
        Path(f"{log}.refuse").unlink(missing_ok=True)
        agent.provider = make_agent([call("pid"), "again"]).provider
        again_run = await run(agent)
        problems += answered(again_run, "again")
        if not again_run["tools"] or again_run["tools"][0][0] != "pid":
            problems.append(("after aclose() a run starts it again", f"{again_run['tools']}"))
        await agent.aclose()
        tally.case(f"{mode}, max_restarts={limit}", problems, mode)
    tally.assert_held()


# ------------------------------------------------------------------------------ HTTP


def outage_tool(served: Served) -> Any:
    @tool
    async def outage(action: str) -> str:
        """Stop or start the HTTP server."""
        await asyncio.to_thread(served.stop if action == "stop" else served.start)
        return action

    return outage


async def test_an_http_server_that_went_away_is_reached_again(tmp_path: Path) -> None:
    tally = Tally("an HTTP server that went away is reached again")
    cases: dict[str, tuple[list[Any], list[tuple[str, str | None, bool]]]] = {
        "restarted between calls": (
            [
                call("echo", text="a"),
                call("outage", action="stop"),
                call("outage", action="start"),
                call("echo", text="b"),
            ],
            [
                ("echo", "a", False),
                ("outage", "stop", False),
                ("outage", "start", False),
                ("echo", "b", False),
            ],
        ),
        "away for a call, then back": (
            [
                call("echo", text="a"),
                call("outage", action="stop"),
                call("echo", text="lost"),
                call("outage", action="start"),
                call("echo", text="b"),
            ],
            [
                ("echo", "a", False),
                ("outage", "stop", False),
                ("echo", None, True),
                ("outage", "start", False),
                ("echo", "b", False),
            ],
        ),
    }
    for limit in (0, 2):
        script = [call("echo", text="a"), call("outage", action="stop")]
        script += [call("echo", text="x") for _ in range(limit + 2)]
        down = (
            "MCP server 'flaky' keeps stopping: it was started again "
            f"{limit} times in a row without answering a call (max_restarts={limit}); "
            "it stays down until it is closed"
        )
        want: list[tuple[str, str | None, bool]] = [("echo", "a", False), ("outage", "stop", False)]
        want += [("echo", None, True)] * (limit + 1) + [("echo", down, True)]
        cases[f"gone for good, max_restarts={limit}"] = (script, want)
    for (label, (script, want)), stream in itertools.product(cases.items(), (False, True)):
        limit = int(label[-1]) if "max_restarts" in label else 3
        with Served() as served:
            server = MCPServerHTTP(served.url, max_restarts=limit, connect_timeout=5)
            agent = make_agent(
                [*script, "done"], mcp_servers=[server], tools=[outage_tool(served)], bus=HookBus()
            )
            got = await run(agent, stream=stream)
            problems = answered(got)
            # an error's text past our own words is the SDK's or httpx's (the errors below
            # check it names the server): compared by name and kind, answers by content
            tools = [(n, c if e is False else None, e) for n, c, e in got["tools"]]
            shaped = [(n, c if e is False else None, e) for n, c, e in want]
            if len(got["tools"]) != len(want) or tools != shaped or got["tools"][-1:] != want[-1:]:
                problems.append(("each call: its answer or a tool error", f"{got['tools']}"))
            for ctx in got["errors"]:
                if not isinstance(
                    ctx.error, (MCPServerError, MCPConnectionError, MCPServerDownError)
                ):
                    problems.append(("on_tool_call_error sees a typed error", repr(ctx.error)))
                elif "'flaky'" not in str(ctx.error):
                    problems.append(("the error names the server", str(ctx.error)))
            sent = [c["tool"] for c in served.calls]
            if sent != [n for n, _, e in want if n == "echo" and not e]:
                problems.append(("no call is sent twice", f"{sent}"))
            await agent.aclose()
        mode = "chat_stream()" if stream else "chat()"
        tally.case(f"{label}, {mode}", problems, label)
    tally.assert_held()
