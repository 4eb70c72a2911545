"""The LangChain adapter of the bridge conformance kit: a real ``create_agent`` agent on a
scripted chat model (LangChain's own fake chat model), with a checkpointer so an ``Ask`` can
pause."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from agenthooks_langchain import AgentHooksMiddleware, resume_command
from agenthooks_langchain.capabilities import CAPABILITIES
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from pydantic import Field

from agenthooks import Approve, Deny, HookBus
from agenthooks.conformance import BridgeAdapter, Outcome, Step

_threads = itertools.count(1)


class _ScriptedModel(GenericFakeChatModel):
    """Answers each call with the next step of the script, after its delay."""

    steps: list[Any] = Field(default_factory=list)

    def bind_tools(self, tools: Any, **kwargs: Any) -> _ScriptedModel:
        return self

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        if not self.steps:
            raise AssertionError("the model was called more often than scripted")
        step: Step = self.steps.pop(0)
        if step.delay:
            await asyncio.sleep(step.delay)
        if step.error:
            raise RuntimeError(step.error)
        usage = {
            "input_tokens": step.input_tokens,
            "output_tokens": step.output_tokens,
            "total_tokens": step.total_tokens,
        }
        message = AIMessage(
            content=step.text,
            tool_calls=[
                {"id": c.id, "name": c.name, "args": dict(c.arguments), "type": "tool_call"}
                for c in step.calls
            ],
            usage_metadata=usage,  # type: ignore[arg-type]
        )
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _generate(self, *args: Any, **kwargs: Any) -> ChatResult:
        raise AssertionError("the bridge runs agents asynchronously")


class LangChainAdapter(BridgeAdapter):
    """LangChain, as the kit drives it."""

    capabilities = CAPABILITIES
    unscripted = frozenset({"on_subagent_start", "on_subagent_stop"})
    """A sub-agent needs an agent of its own, run from a tool: test_langchain_subagents.py
    pins those events."""

    async def run(
        self,
        bus: HookBus,
        script: Sequence[Step],
        tools: Sequence[Callable[..., Any]],
        message: str,
        *,
        output_type: type[Any] | None = None,
    ) -> Outcome:
        model = _ScriptedModel(messages=iter(()), steps=list(script))
        agent = create_agent(
            model,
            [tool(f) for f in tools],
            middleware=[AgentHooksMiddleware(bus)],
            checkpointer=InMemorySaver(),
            name="assistant",
        )
        config = {"configurable": {"thread_id": f"kit-{next(_threads)}"}}
        out = await agent.ainvoke({"messages": [{"role": "user", "content": message}]}, config)
        return _outcome(agent, config, out)

    async def resume(self, bus: HookBus, paused: Outcome, decisions: Mapping[str, bool]) -> Outcome:
        agent, config, out = paused.handle
        answers = {k: Approve() if ok else Deny("a human refused") for k, ok in decisions.items()}
        resumed = await agent.ainvoke(resume_command(out["__interrupt__"], answers), config)
        return _outcome(agent, config, resumed)


def _outcome(agent: Any, config: Any, out: dict[str, Any]) -> Outcome:
    interrupts = out.get("__interrupt__") or ()
    paused = [call_id for interrupt in interrupts for call_id in _call_ids(interrupt.value)]
    messages = out.get("messages", [])
    last = messages[-1] if messages else None
    return Outcome(
        text=None if paused else (str(last.content) if last is not None else None),
        paused=paused,
        history=[str(m.content) for m in messages],
        handle=(agent, config, out),
    )


def _call_ids(value: Any) -> list[str]:
    if isinstance(value, dict):
        if "tool_call_id" in value:
            return [str(value["tool_call_id"])]
        requests = value.get("action_requests") or value.get("calls") or []
        return [str(r.get("tool_call_id") or r.get("id")) for r in requests]
    return []


__all__ = ["LangChainAdapter"]
