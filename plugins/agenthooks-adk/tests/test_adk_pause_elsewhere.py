"""An ADK invocation paused through tool confirmation and resumed by a fresh runner (a fresh
``App``, plugin, bus and model on the same session service, nothing of the pause in this
process's ``PAUSED_RUNS``; or another process, on a ``DatabaseSessionService`` on SQLite)
keeps its counts: they travel in the session's state, written
through an event's ``state_delta``, which the session service persists."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import adk_scripted as s
import pytest
from agenthooks_adk import AgentHooksPlugin
from agenthooks_limits import Limits
from google.adk.agents import LlmAgent
from google.adk.apps import App
from google.adk.runners import Runner
from google.adk.sessions import BaseSessionService, DatabaseSessionService, InMemorySessionService
from google.genai import types
from test_adk_pause import answer, confirmation_request

from agenthooks import Approve, Ask, HookBus
from agenthooks.bridges import PAUSED_RUNS, STORED_KEY

DENIED = 'Tool call "read_file" was denied (tool call limit: 2 of 2 tool calls used)'


@pytest.fixture(autouse=True)
def _clean() -> None:
    s.RAN.clear()


def make_runner(
    sessions: BaseSessionService, script: list[Any]
) -> tuple[Runner, s.ScriptedLlm, dict[str, list[Any]]]:
    """Everything rebuilt but the session service: a bus, its plugins, the bridge, the
    model, the agent, the app and the runner."""
    bus = HookBus()
    bus.use(Limits(max_tool_calls=2))
    bus.on("pre_tool_call", lambda ctx: Ask("delete?"), match="delete_file")
    seen: dict[str, list[Any]] = {"paused": [], "resumed": [], "done": []}
    bus.on("on_chat_paused", seen["paused"].append)
    bus.on("on_run_resumed", seen["resumed"].append)
    bus.on("on_chat_done", seen["done"].append)
    model = s.ScriptedLlm(script=script)
    agent = LlmAgent(name="assistant", model=model, tools=[s.delete_file, s.read_file])
    app = App(name="app", root_agent=agent, plugins=[AgentHooksPlugin(bus)])
    return Runner(app=app, session_service=sessions, auto_create_session=True), model, seen


async def test_a_fresh_runner_on_the_session_service_goes_on_from_the_counts() -> None:
    sessions = InMemorySessionService()
    first, _, before = make_runner(
        sessions,
        [
            s.model_turn(s.call("read_file", "r1", path="/a"), tokens=(10, 5)),
            s.model_turn(s.call("delete_file", "d1", path="/b"), tokens=(10, 5)),
        ],
    )
    events = await s.run(first, "go")
    [pause] = before["paused"]
    assert pause.response.usage.total_tokens == 30
    # what a process that never saw the pause holds: nothing
    assert PAUSED_RUNS.take([("adk", pause.run_id)]) is not None
    key = f"{STORED_KEY}:{pause.run_id}"
    kept = await sessions.get_session(app_name="app", user_id="u", session_id="s")
    assert kept is not None and kept.state[key]["tool_calls"] == 1  # the delete waits

    again, model, after = make_runner(
        sessions,
        [
            s.model_turn(s.call("read_file", "r2", path="/c"), tokens=(10, 5)),
            s.model_turn("done", tokens=(10, 5)),
        ],
    )
    later = await s.run(again, answer(confirmation_request(events), confirmed=True))
    assert s.final_text(later) == "done"
    # the read before the pause and the approved delete used the cap of two
    assert s.RAN == [
        ("read_file", {"path": "/a", "verbose": False}),
        ("delete_file", {"path": "/b"}),
    ]
    assert ("r2", {"error": DENIED}) in s.tool_messages(model.requests[-1])
    [back] = after["resumed"]
    assert back.run_id == pause.run_id
    assert back.decisions == {"d1": Approve()}
    assert back.usage.total_tokens == 30
    assert "limits" in back.state
    [finished] = after["done"]
    assert finished.response.usage.total_tokens == 60  # four model calls, both runners
    assert finished.response.iterations == 4
    # a run resumes once: the session no longer holds its counts
    kept = await sessions.get_session(app_name="app", user_id="u", session_id="s")
    assert kept is not None and kept.state[key] is None


@pytest.mark.subprocess
async def test_a_run_paused_in_another_process_goes_on_from_its_counts(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'sessions.db'}"
    here = Path(__file__).parent
    done = subprocess.run(
        [sys.executable, str(here / "adk_pause_worker.py"), url],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=here,
    )
    assert done.returncode == 0, done.stderr
    paused = json.loads(done.stdout.strip().splitlines()[-1])
    assert paused["ran"] == [["read_file", {"path": "/a", "verbose": False}]]
    assert paused["total_tokens"] == 30

    again, model, after = make_runner(
        DatabaseSessionService(url),
        [
            s.model_turn(s.call("read_file", "r2", path="/c"), tokens=(10, 5)),
            s.model_turn("done", tokens=(10, 5)),
        ],
    )
    request = types.FunctionCall.model_validate(paused["request"])
    later = await s.run(again, answer(request, confirmed=True))
    assert s.final_text(later) == "done"
    # this process ran the approved delete only: the read in the other one used the cap too
    assert s.RAN == [("delete_file", {"path": "/b"})]
    assert ("r2", {"error": DENIED}) in s.tool_messages(model.requests[-1])
    [back] = after["resumed"]
    assert back.run_id == paused["run_id"]
    assert back.usage.total_tokens == 30
    assert "limits" in back.state
    [finished] = after["done"]
    assert finished.response.usage.total_tokens == 60
    assert finished.response.iterations == 4
