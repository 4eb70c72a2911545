"""Every Strands internal the bridge relies on (the README's "Framework internals"), looked up
on the installed Strands the way the bridge uses it: a release that moves, renames or reshapes
one fails the test named after it, and the README lists exactly the internals tested here."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from importlib import import_module
from pathlib import Path

import pytest
from agenthooks_strands.testing import ScriptedModel
from pydantic import BaseModel
from strands import Agent, tool

README = Path(__file__).resolve().parents[1] / "README.md"


def agent_stream_stage() -> None:
    stage = import_module("strands.middleware._agent_stream").AgentStreamStage
    agent = Agent(model=ScriptedModel(["hi"]), callback_handler=None)

    async def passing(ctx: object, next_fn: Callable[[object], object]) -> object:
        raise AssertionError("not run")

    # the bridge registers its run handler at this stage, as any middleware is registered
    agent.add_middleware(stage, passing)


def interrupts_of_the_stream_context() -> None:
    context = import_module("strands.middleware._agent_stream").AgentStreamContext
    assert "_interrupts" in {field.name for field in dataclasses.fields(context)}


def event_loop_stop_event() -> None:
    stop = import_module("strands.types._events").EventLoopStopEvent
    message = {"role": "assistant", "content": [{"text": "done"}]}
    agent = Agent(model=ScriptedModel([]), callback_handler=None)
    # built as the bridge builds it (stop reason, message, metrics, request state), read as
    # the bridge reads it: the final message and the stop reason under "stop"
    event = stop("end_turn", message, agent.event_loop_metrics, {})
    assert event["stop"][0] == "end_turn"
    assert event["stop"][1] is message


def text_stream_event() -> None:
    text = import_module("strands.types._events").TextStreamEvent
    assert text({"text": "he"}, "he")["data"] == "he"


def decorated_tool_input_model() -> None:
    @tool
    def lookup(city: str, days: int) -> str:
        """The weather in a city."""
        return city

    model = lookup._metadata.input_model
    assert isinstance(model, type) and issubclass(model, BaseModel)
    assert model.model_validate({"city": "Paris", "days": "2"}).model_dump() == {
        "city": "Paris",
        "days": 2,
    }


INTERNALS: dict[str, Callable[[], None]] = {
    "strands.middleware._agent_stream.AgentStreamStage": agent_stream_stage,
    "AgentStreamContext._interrupts": interrupts_of_the_stream_context,
    "strands.types._events.EventLoopStopEvent": event_loop_stop_event,
    "strands.types._events.TextStreamEvent": text_stream_event,
    "DecoratedFunctionTool._metadata.input_model": decorated_tool_input_model,
}


@pytest.mark.parametrize("internal", list(INTERNALS))
def test_the_internal_is_where_the_bridge_uses_it(internal: str) -> None:
    INTERNALS[internal]()


def test_the_readme_lists_exactly_the_internals_tested_here() -> None:
    section = README.read_text(encoding="utf-8").split("\n## Framework internals\n", 1)[1]
    section = section.split("\n## ", 1)[0]
    listed = re.findall(r"^\| `([^`]+)` \|", section, flags=re.MULTILINE)
    assert listed == list(INTERNALS)
