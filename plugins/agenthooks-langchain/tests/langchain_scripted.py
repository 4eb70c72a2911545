"""What the LangChain bridge's tests share: a scripted chat model (LangChain's own fake chat
model, taught ``bind_tools`` and to record what it was sent), the tools of the scripted
conversation, and a recorder of the events a bus hears."""

from __future__ import annotations

import asyncio
from typing import Any

from agenthooks_langchain import AgentHooksMiddleware
from langchain.agents import create_agent
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool
from pydantic import Field

from agenthooks import HookBus

USER = "Delete /tmp/a.txt and read /tmp/b.txt"


class ScriptedModel(GenericFakeChatModel):
    """LangChain's ``GenericFakeChatModel`` answering from a script: an ``AIMessage`` or text
    per call, or an exception to raise. ``sent`` keeps the messages of every call."""

    answers: list[Any] = Field(default_factory=list)
    sent: list[list[BaseMessage]] = Field(default_factory=list)

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedModel:
        return self

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self.sent.append(list(messages))
        if not self.answers:
            raise AssertionError("the model was called more often than scripted")
        item = self.answers.pop(0)
        if isinstance(item, BaseException):
            raise item
        message = AIMessage(content=item) if isinstance(item, str) else item
        return ChatResult(generations=[ChatGeneration(message=message)])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        return self._generate(messages, stop, None, **kwargs)


def script(*items: AIMessage | str | BaseException) -> ScriptedModel:
    """A model that answers each call with the next item (raising an exception item)."""
    return ScriptedModel(messages=iter(()), answers=list(items))


def calls(*specs: tuple[str, str, dict[str, Any]]) -> AIMessage:
    """An answer that calls tools: ``(id, name, arguments)`` each."""
    return AIMessage(
        content="",
        tool_calls=[{"id": i, "name": n, "args": a, "type": "tool_call"} for i, n, a in specs],
    )


def conversation_model() -> ScriptedModel:
    """The scripted conversation: two tool calls in one turn, then "done"."""
    return script(
        calls(
            ("call_1", "delete_file", {"path": "/tmp/a.txt"}),
            ("call_2", "read_file", {"path": "/tmp/b.txt"}),
        ),
        "done",
    )


ran: list[tuple[str, dict[str, Any]]] = []
"""The tool bodies that ran, with their arguments (cleared by the tests' fixture)."""


@tool
def delete_file(path: str) -> str:
    """Delete a file."""
    ran.append(("delete_file", {"path": path}))
    return f"deleted {path}"


@tool
def read_file(path: str) -> str:
    """Read a file."""
    ran.append(("read_file", {"path": path}))
    return f"contents of {path}"


@tool
def set_flag(name: str, on: bool) -> str:
    """Set a feature flag."""
    ran.append(("set_flag", {"name": name, "on": on}))
    return f"{name}={'on' if on else 'off'}"


@tool
def fail(path: str) -> str:
    """A tool that always fails."""
    ran.append(("fail", {"path": path}))
    raise FileNotFoundError(path)


@tool
async def slow_read(path: str) -> str:
    """Read a file slowly."""
    ran.append(("slow_read:start", {"path": path}))
    await asyncio.sleep(0.2)
    ran.append(("slow_read:end", {"path": path}))
    return f"slow {path}"


TOOLS = [delete_file, read_file, set_flag, fail, slow_read]


def agent(model: ScriptedModel, bus: HookBus | None, **kwargs: Any) -> Any:
    """A ``create_agent`` agent on ``model`` with the test tools, bridged to ``bus``."""
    middleware = [AgentHooksMiddleware(bus)] if bus is not None else []
    return create_agent(
        model, TOOLS, middleware=[*middleware, *kwargs.pop("middleware", [])], **kwargs
    )


def ask(text: str = USER) -> dict[str, Any]:
    """The input of a run with one user message."""
    return {"messages": [{"role": "user", "content": text}]}


class Recorder:
    """Every event record a bus emits (``on_event``), in order."""

    def __init__(self, bus: HookBus) -> None:
        self.records: list[Any] = []
        bus.on("on_event", self.records.append)

    @property
    def events(self) -> list[str]:
        return [r.type for r in self.records]

    def of(self, event: str) -> list[Any]:
        return [r for r in self.records if r.type == event]
