"""A Strands run paused through its interrupts and resumed by a fresh agent restored from a
``FileSessionManager`` (a fresh bus, plugin and model, nothing of the pause in this process's
``PAUSED_RUNS``), also when another process paused it, keeps its counts: they travel in
``agent.state``, which the session persists."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from agenthooks_limits import Limits
from agenthooks_strands import AgentHooksPlugin
from agenthooks_strands.testing import ScriptedModel, tool_calls
from strands import Agent
from strands.session import FileSessionManager
from strands_helpers import RAN, delete_file, read_file, tool_results
from test_strands_approval import answer

from agenthooks import Approve, Ask, HookBus
from agenthooks.bridges import PAUSED_RUNS, STORED_KEY
from agenthooks.testing import HookRecorder

DENIED = 'Tool call "read_file" was denied (tool call limit: 2 of 2 tool calls used)'


def make_agent(tmp: Path | str, script: list[Any]) -> tuple[Agent, ScriptedModel, HookRecorder]:
    """Everything rebuilt: a bus, its plugins, the bridge, the model and the agent, on the
    session the files under ``tmp`` keep."""
    bus = HookBus()
    bus.use(Limits(max_tool_calls=2))
    bus.on("pre_tool_call", lambda ctx: Ask("delete?"), match="delete_file")
    recorder = HookRecorder()
    recorder.attach(bus)
    model = ScriptedModel(script)
    agent = Agent(
        model=model,
        tools=[delete_file, read_file],
        plugins=[AgentHooksPlugin(bus)],
        callback_handler=None,
        name="assistant",
        agent_id="assistant",
        session_manager=FileSessionManager(session_id="s1", storage_dir=str(tmp)),
    )
    return agent, model, recorder


async def test_a_fresh_agent_on_the_session_goes_on_from_the_counts(tmp_path: Path) -> None:
    first, _, before = make_agent(
        tmp_path,
        [
            tool_calls(("r1", "read_file", {"path": "/a"})),
            tool_calls(("d1", "delete_file", {"path": "/b"})),
        ],
    )
    paused = await first.invoke_async("go")
    assert paused.stop_reason == "interrupt"
    [pause] = before.of("on_chat_paused")
    assert pause.response.usage.total_tokens == 30
    # what a process that never saw the pause holds: nothing
    assert PAUSED_RUNS.take([("strands", pause.run_id)]) is not None
    del first

    again, model, after = make_agent(
        tmp_path, [tool_calls(("r2", "read_file", {"path": "/c"})), "done"]
    )
    result = await again.invoke_async(answer(paused, Approve()))
    assert str(result).strip() == "done"
    # the read before the pause and the approved delete used the cap of two
    assert RAN == [("read_file", "/a"), ("delete_file", "/b")]
    assert tool_results(model)["r2"] == ("error", DENIED)
    [back] = after.of("on_run_resumed")
    assert back.run_id == pause.run_id
    assert back.decisions == {"d1": Approve()}
    assert back.usage.total_tokens == 30
    assert "limits" in back.state
    [done] = after.of("on_chat_done")
    assert done.response.usage.total_tokens == 60  # four model calls, both processes
    assert done.response.iterations == 4
    # a run resumes once: the session no longer holds its counts
    assert again.state.get(STORED_KEY) is None


@pytest.mark.subprocess
async def test_a_run_paused_in_another_process_goes_on_from_its_counts(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(Path(__file__).with_name("strands_pause_worker.py")), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=Path(__file__).parent,
    )
    assert done.returncode == 0, done.stderr
    paused = json.loads(done.stdout.strip().splitlines()[-1])
    assert paused["stop_reason"] == "interrupt"
    assert paused["ran"] == [["read_file", "/a"]]
    assert paused["total_tokens"] == 30

    agent, model, after = make_agent(
        tmp_path, [tool_calls(("r2", "read_file", {"path": "/c"})), "done"]
    )
    answers = [
        {"interruptResponse": {"interruptId": i, "response": Approve()}}
        for i in paused["interrupts"]
    ]
    result = await agent.invoke_async(answers)
    assert str(result).strip() == "done"
    # this process ran the approved delete only: the read in the other one used the cap too
    assert RAN == [("delete_file", "/b")]
    assert tool_results(model)["r2"] == ("error", DENIED)
    [back] = after.of("on_run_resumed")
    assert back.run_id == paused["run_id"]
    assert back.decisions == {"d1": Approve()}
    assert back.usage.total_tokens == 30
    [finished] = after.of("on_chat_done")
    assert finished.response.usage.total_tokens == 60
    assert finished.response.iterations == 4
