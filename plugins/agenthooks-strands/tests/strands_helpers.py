"""Helpers of the Strands bridge tests: a real Strands ``Agent`` on a scripted model, with the
bridge plugged in, and the tools of the shared scripted conversation."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agenthooks_strands import AgentHooksPlugin
from agenthooks_strands.testing import ScriptedModel, tool_calls
from strands import Agent, tool

from agenthooks import HookBus

USER = "Delete /tmp/a.txt and read /tmp/b.txt"
"""The user message of the shared scripted conversation."""


def conversation() -> list[Any]:
    """The model's side: both tools in one turn (``call_1``, ``call_2``), then ``done``."""
    return [
        tool_calls(
            ("call_1", "delete_file", {"path": "/tmp/a.txt"}),
            ("call_2", "read_file", {"path": "/tmp/b.txt"}),
        ),
        "done",
    ]


RAN: list[tuple[str, Any]] = []
"""What the tool bodies received, in order (cleared before each test)."""


@tool
def delete_file(path: str) -> str:
    """Delete a file."""
    RAN.append(("delete_file", path))
    return f"deleted {path}"


@tool
def read_file(path: str) -> str:
    """Read a file."""
    RAN.append(("read_file", path))
    return f"contents of {path}"


@tool
def flag(on: bool, times: int = 1) -> str:
    """Set a flag."""
    RAN.append(("flag", (on, times)))
    return f"on={on!r} times={times!r}"


@tool
def explode(path: str) -> str:
    """Fail."""
    raise FileNotFoundError(path)


def sent(model: ScriptedModel, index: int = -1) -> list[dict[str, Any]]:
    """The messages the model was sent on call ``index``, without ids and metadata."""
    return [{"role": m["role"], "content": m["content"]} for m in model.requests[index]["messages"]]


def tool_results(model: ScriptedModel, index: int = -1) -> dict[str, tuple[str, str]]:
    """What the model read as tool results on call ``index``: ``{id: (status, text)}``."""
    out: dict[str, tuple[str, str]] = {}
    for message in model.requests[index]["messages"]:
        for block in message["content"]:
            if "toolResult" in block:
                result = block["toolResult"]
                text = "".join(b.get("text", "") for b in result["content"])
                out[result["toolUseId"]] = (result["status"], text)
    return out


def build(
    bus: HookBus,
    script: Sequence[Any] | None = None,
    tools: Sequence[Any] = (delete_file, read_file),
    **kwargs: Any,
) -> tuple[Agent, ScriptedModel]:
    """A Strands agent with the bridge on ``bus``, answering from ``script``."""
    model = ScriptedModel(conversation() if script is None else script)
    agent = Agent(
        model=model,
        tools=list(tools),
        plugins=[AgentHooksPlugin(bus)],
        callback_handler=None,
        name=kwargs.pop("name", "assistant"),
        **kwargs,
    )
    return agent, model
