"""Every Agents SDK internal the bridge relies on (the README's "Framework internals"), looked
up on the installed SDK the way the bridge uses it: a release that moves, renames or reshapes
one fails the test named after it, and the README lists exactly the internals tested here."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from agents import Agent, Runner, RunResultStreaming, set_tracing_disabled
from agents.testing import ScriptedModel, assistant_message

README = Path(__file__).resolve().parents[1] / "README.md"

set_tracing_disabled(True)  # no exporter: nothing leaves the process


class CleanedModel(ScriptedModel):
    """The SDK's scripted model, noting the run-end cleanup the SDK asks of it."""

    cleaned: list[object]

    async def _cleanup_on_run_end(self, owner: object) -> None:
        self.cleaned.append(owner)
        await super()._cleanup_on_run_end(owner)


def agent() -> tuple[Agent[Any], CleanedModel]:
    model = CleanedModel()
    model.cleaned = []
    model.extend([[assistant_message("done")]])
    return Agent(name="assistant", model=model), model


async def cleanup_on_run_end() -> None:
    # the SDK awaits the run model's private cleanup when the run ends: the bridge's wrapper
    # forwards it to the model it wraps
    assistant, model = agent()
    result = await Runner.run(assistant, "hi")
    assert result.final_output == "done"
    assert len(model.cleaned) == 1


async def stream_events_replaced_on_the_result() -> None:
    assistant, _ = agent()
    result = Runner.run_streamed(assistant, "hi")
    events = result.stream_events

    async def wrapped() -> Any:
        async for event in events():
            yield event

    # an instance attribute in place of the method, as the bridge sets it
    object.__setattr__(result, "stream_events", wrapped)
    assert result.stream_events is wrapped
    assert [e async for e in result.stream_events()]
    assert result.final_output == "done"


async def run_loop_task() -> None:
    assistant, _ = agent()
    result = Runner.run_streamed(assistant, "hi")
    task = result.run_loop_task
    assert isinstance(task, asyncio.Task)
    await asyncio.wait({task})
    assert result.final_output == "done"


async def run_loop_exception() -> None:
    assert isinstance(RunResultStreaming.__dict__["run_loop_exception"], property)
    assistant, _ = agent()
    result = Runner.run_streamed(assistant, "hi")
    task = result.run_loop_task
    assert task is not None
    await asyncio.wait({task})
    assert result.run_loop_exception is None


INTERNALS: dict[str, Callable[[], Awaitable[None]]] = {
    "Model._cleanup_on_run_end": cleanup_on_run_end,
    "RunResultStreaming.stream_events": stream_events_replaced_on_the_result,
    "RunResultStreaming.run_loop_task": run_loop_task,
    "RunResultStreaming.run_loop_exception": run_loop_exception,
}


@pytest.mark.parametrize("internal", list(INTERNALS))
async def test_the_internal_is_where_the_bridge_uses_it(internal: str) -> None:
    await INTERNALS[internal]()


def test_the_readme_lists_exactly_the_internals_tested_here() -> None:
    section = README.read_text(encoding="utf-8").split("\n## Framework internals\n", 1)[1]
    section = section.split("\n## ", 1)[0]
    listed = re.findall(r"^\| `([^`]+)` \|", section, flags=re.MULTILINE)
    assert listed == list(INTERNALS)
