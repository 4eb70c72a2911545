"""The LangChain bridge's cost, timed beside the same agent without it: a scripted run of 2 model
calls and 1 tool call of a ``create_agent`` agent on LangChain's own fake chat model (no
network), LangChain alone (in a process without the bridge, and in one where it registered its
process-wide callback handlers), with an empty middleware of the bridge's shape (LangChain
traces every wrap hook: the baseline), with ``AgentHooksMiddleware`` and no handler, and with
the middleware and five observers. ``harness.compare`` times the variants in interleaved rounds in
one process and prints the medians and the milliseconds the bridge adds per model or tool call
beside the baseline, by the wall clock and in CPU time.

    .venv/bin/python benchmarks/bridges/bench_langchain.py [rounds]
"""

from __future__ import annotations

import asyncio
import contextvars
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from agenthooks_langchain import AgentHooksMiddleware, watch
from harness import FIVE_OBSERVERS, NO_HANDLER, compare, five_observers, rounds
from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatResult
from langchain_core.tools import tool

from agenthooks import HookBus


class ScriptedModel(GenericFakeChatModel):
    """LangChain's fake chat model, answering on the event loop (its default async path hands
    each call to a thread, which would time the thread pool) and accepting ``bind_tools``."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedModel:
        return self

    async def _agenerate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        return self._generate(messages, stop, None, **kw)


class EmptyMiddleware(AgentMiddleware):  # type: ignore[type-arg]
    """A middleware of the bridge's shape (a model and a tool wrap) that does nothing: what
    LangChain's extension point costs by itself (it traces each wrap hook)."""

    async def awrap_model_call(self, request: Any, handler: Any) -> Any:
        return await handler(request)

    async def awrap_tool_call(self, request: Any, handler: Any) -> Any:
        return await handler(request)


@tool
def lookup(city: str) -> str:
    """The weather in a city."""
    return f"Sunny in {city}"


def script() -> Any:
    return iter(
        [
            AIMessage(
                content="",
                tool_calls=[
                    {
                        "id": "call_1",
                        "name": "lookup",
                        "args": {"city": "Paris"},
                        "type": "tool_call",
                    }
                ],
            ),
            AIMessage(content="It is sunny."),
        ]
    )


def variant(middleware: AgentMiddleware | None) -> Any:  # type: ignore[type-arg]
    model = ScriptedModel(messages=script())
    agent = create_agent(model, [lookup], middleware=[middleware] if middleware else [])
    question = {"messages": [{"role": "user", "content": "Weather in Paris?"}]}

    async def run() -> object:
        model.messages = script()
        return await agent.ainvoke(question)

    return run


def without_the_bridges_handlers(run: Any) -> Any:
    """``run`` in a context where LangChain's configure hooks find no bridge handler: what a
    LangChain agent costs in a process that never built an ``AgentHooksMiddleware``."""
    quiet = contextvars.copy_context()
    quiet.run(watch._NODE_PARENTS_HOOK.set, None)
    quiet.run(watch._RUN_ENDS_HOOK.set, None)

    async def alone() -> object:
        return await asyncio.create_task(run(), context=quiet.copy())

    return alone


def main() -> None:
    # LangChain's middleware costs the same for any middleware of this shape: the bridge's own
    # cost is what it adds to an empty one (in a process without the bridge, so that the
    # figure includes the callback handlers the bridge registers for the whole process; the
    # second row is what those cost an agent that is not bridged)
    compare(
        f"LangChain {version('langchain')} with agenthooks-langchain",
        {
            "langchain alone": without_the_bridges_handlers(variant(None)),
            "langchain alone, bridge in the process": variant(None),
            "an empty middleware": without_the_bridges_handlers(variant(EmptyMiddleware())),
            NO_HANDLER: variant(AgentHooksMiddleware(HookBus())),
            FIVE_OBSERVERS: variant(AgentHooksMiddleware(five_observers())),
        },
        baseline="an empty middleware",
        rounds=rounds(),
    )


if __name__ == "__main__":
    main()
