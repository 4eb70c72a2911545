"""A scripted Pydantic AI model for the tests (Pydantic AI's own ``FunctionModel``: no
network) and the tools of the shared scripted conversation."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agenthooks_pydantic_ai import AgentHooksCapability
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from agenthooks import HookBus

PROMPT = "Delete /tmp/a.txt and read /tmp/b.txt"

Step = ModelResponse | str | list[tuple[str, dict[str, Any], str]] | Exception | Callable[..., Any]


class Script:
    """Answers each model request with the next step; keeps what each request sent.

    A step is a ``ModelResponse``, a text, a list of ``(tool, arguments, call id)`` tool
    calls, an exception to raise, or a callable taking the messages.
    """

    def __init__(self, *steps: Step) -> None:
        self.steps = list(steps)
        self.requests: list[list[ModelMessage]] = []
        self.infos: list[AgentInfo] = []
        self.model = FunctionModel(self._answer)

    def _answer(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.requests.append(list(messages))
        self.infos.append(info)
        if not self.steps:
            raise AssertionError("the script has no step left for this request")
        step = self.steps.pop(0)
        if isinstance(step, Exception):
            raise step
        if callable(step) and not isinstance(step, ModelResponse):
            return step(messages)  # type: ignore[no-any-return]
        return answer(step)

    @property
    def calls(self) -> int:
        return len(self.requests)


def answer(step: Step) -> ModelResponse:
    if isinstance(step, ModelResponse):
        return step
    if isinstance(step, str):
        return ModelResponse(parts=[TextPart(step)])
    assert isinstance(step, list)
    return ModelResponse(
        parts=[ToolCallPart(name, args, tool_call_id=call_id) for name, args, call_id in step]
    )


def conversation_script() -> Script:
    """The shared scripted conversation: two tool calls in one turn, then "done"."""
    return Script(
        [
            ("delete_file", {"path": "/tmp/a.txt"}, "call_1"),
            ("read_file", {"path": "/tmp/b.txt"}, "call_2"),
        ],
        "done",
    )


def file_agent(
    script: Script, bus: HookBus, *, output_type: Any = str, **options: Any
) -> tuple[Agent[None, Any], list[str]]:
    """An agent with ``delete_file`` and ``read_file`` on ``script`` and the bridge on
    ``bus``; the list records what the tool bodies ran."""
    ran: list[str] = []
    agent: Agent[None, Any] = Agent(
        script.model,
        name="files",
        output_type=output_type,
        capabilities=[AgentHooksCapability(bus)],
        **options,
    )

    @agent.tool_plain
    def delete_file(path: str) -> str:
        """Delete a file."""
        ran.append(f"delete_file {path}")
        return f"deleted {path}"

    @agent.tool_plain
    def read_file(path: str) -> str:
        """Read a file."""
        ran.append(f"read_file {path}")
        return f"contents of {path}"

    return agent, ran


def tool_returns(messages: list[ModelMessage]) -> list[tuple[str, Any, str]]:
    """The tool results in ``messages``: (call id, content, outcome)."""
    from pydantic_ai.messages import ModelRequest, ToolReturnPart

    return [
        (part.tool_call_id, part.content, part.outcome)
        for message in messages
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, ToolReturnPart)
    ]
