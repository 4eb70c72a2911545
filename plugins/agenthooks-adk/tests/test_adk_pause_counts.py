"""An ADK invocation paused through tool confirmation keeps its counts: a ``Limits``
tool-call cap, the turns and the usage go on from what the run used before the pause, and
``on_run_resumed`` hands the plugins' per-run state back."""

from __future__ import annotations

from typing import Any

import adk_scripted as s
import pytest
from agenthooks_limits import Limits
from test_adk_pause import answer, confirmation_request

from agenthooks import Approve, Ask, HookBus

DENIED = 'Tool call "read_file" was denied (tool call limit: 2 of 2 tool calls used)'


@pytest.fixture(autouse=True)
def _clean() -> None:
    s.RAN.clear()


async def test_the_tool_call_cap_and_the_usage_go_on_after_a_resume() -> None:
    bus = HookBus()
    bus.use(Limits(max_tool_calls=2))
    bus.on("pre_tool_call", lambda ctx: Ask("delete?"), match="delete_file")
    paused: list[Any] = []
    resumed: list[Any] = []
    done: list[Any] = []
    bus.on("on_chat_paused", paused.append)
    bus.on("on_run_resumed", resumed.append)
    bus.on("on_chat_done", done.append)
    model = s.ScriptedLlm(
        script=[
            s.model_turn(s.call("read_file", "r1", path="/a"), tokens=(10, 5)),
            s.model_turn(s.call("delete_file", "d1", path="/b"), tokens=(10, 5)),
            s.model_turn(s.call("read_file", "r2", path="/c"), tokens=(10, 5)),
            s.model_turn("done", tokens=(10, 5)),
        ]
    )
    runner = s.runner(bus, model)
    events = await s.run(runner, "go")
    [pause] = paused
    assert pause.response.usage.total_tokens == 30

    later = await s.run(runner, answer(confirmation_request(events), confirmed=True))
    assert s.final_text(later) == "done"
    # the read before the pause and the approved delete used the cap of two
    assert s.RAN == [
        ("read_file", {"path": "/a", "verbose": False}),
        ("delete_file", {"path": "/b"}),
    ]
    assert ("r2", {"error": DENIED}) in s.tool_messages(model.requests[-1])
    [back] = resumed
    assert back.run_id == pause.run_id
    assert back.decisions == {"d1": Approve()}
    assert back.usage.total_tokens == 30
    assert "limits" in back.state
    [finished] = done
    assert finished.response.usage.total_tokens == 60  # four model calls, both parts
    assert finished.response.iterations == 4
