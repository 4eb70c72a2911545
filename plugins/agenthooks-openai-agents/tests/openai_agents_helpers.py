"""Shared pieces of the bridge's tests: the SDK's own scripted model (``agents.testing``), the
scripted conversation every bridge runs, and a recorder of every event a bus fires (a module
name of its own: every distribution's tests run in one pytest session)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from agents import Agent, function_tool, set_tracing_disabled
from agents.testing import ScriptedModel, assistant_message, function_call

from agenthooks import HookBus
from agenthooks.bridges import everywhere
from agenthooks.events import CATALOG

set_tracing_disabled(True)  # no exporter: nothing leaves the process

USER = "Delete /tmp/a.txt and read /tmp/b.txt"


@function_tool
def delete_file(path: str) -> str:
    """Delete a file."""
    return f"deleted {path}"


@function_tool
def read_file(path: str) -> str:
    """Read a file."""
    return f"contents of {path}"


def conversation() -> list[Any]:
    """The scripted conversation: two calls in one turn, then the answer ``done``."""
    return [
        [
            function_call("delete_file", {"path": "/tmp/a.txt"}, call_id="call_1"),
            function_call("read_file", {"path": "/tmp/b.txt"}, call_id="call_2"),
        ],
        [assistant_message("done")],
    ]


def scripted_agent(
    steps: list[Any] | None = None, **options: Any
) -> tuple[Agent[Any], ScriptedModel]:
    model = ScriptedModel(conversation() if steps is None else steps)
    tools = options.pop("tools", [delete_file, read_file])
    agent = Agent(name="assistant", instructions="Be brief.", model=model, tools=tools, **options)
    return agent, model


class Recorder:
    """Every event a bus fires, in order, as ``(event, context)``."""

    def __init__(self, bus: HookBus, events: Iterator[str] | None = None) -> None:
        self.seen: list[tuple[str, Any]] = []
        for name in events or CATALOG:
            if name == "on_event":
                continue
            bus.on(name, self._record(name))

    def _record(self, name: str) -> Any:
        def record(ctx: Any) -> None:
            self.seen.append((name, ctx))

        record.__name__ = f"record_{name}"
        return everywhere(record)

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self.seen]

    def of(self, name: str) -> list[Any]:
        return [ctx for n, ctx in self.seen if n == name]


def model_saw(model: ScriptedModel, index: int) -> list[Any]:
    """The input items of the model's call ``index``."""
    return list(model.calls[index].input)


def tool_outputs(model: ScriptedModel, index: int) -> dict[str, Any]:
    """What the model read for each call id, in its call ``index``."""
    return {
        item["call_id"]: item["output"]
        for item in model_saw(model, index)
        if isinstance(item, dict) and item.get("type") == "function_call_output"
    }
