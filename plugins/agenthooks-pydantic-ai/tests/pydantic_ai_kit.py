"""The Pydantic AI adapter of the bridge conformance kit: a real Pydantic AI ``Agent`` on
Pydantic AI's own ``FunctionModel`` (streamed too), with the bridge's capability."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import Any

from agenthooks_pydantic_ai import AgentHooksCapability, resume_results
from agenthooks_pydantic_ai.capabilities import CAPABILITIES
from pydantic_ai import Agent, DeferredToolRequests
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
from pydantic_ai.usage import RequestUsage

from agenthooks import Approve, Deny, HookBus
from agenthooks.conformance import BridgeAdapter, Outcome, Step


class _Script:
    """Answers each model request with the next step (after its delay)."""

    def __init__(self, script: Sequence[Step], structured: bool) -> None:
        self.steps = list(script)
        self.structured = structured

    def _next(self) -> Step:
        if not self.steps:
            raise AssertionError("the script has no step left for this request")
        return self.steps.pop(0)

    async def answer(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        step = self._next()
        if step.delay:
            await asyncio.sleep(step.delay)
        if step.error:
            raise RuntimeError(step.error)
        return ModelResponse(
            parts=self._parts(step, info),
            usage=RequestUsage(input_tokens=step.input_tokens, output_tokens=step.output_tokens),
        )

    def _parts(self, step: Step, info: AgentInfo) -> list[Any]:
        if step.calls:
            return [ToolCallPart(c.name, dict(c.arguments), tool_call_id=c.id) for c in step.calls]
        if self.structured:
            tool = info.output_tools[0].name
            return [ToolCallPart(tool, json.loads(step.text), tool_call_id="final")]
        return [TextPart(step.text)]

    async def stream(
        self, messages: list[ModelMessage], info: AgentInfo
    ) -> AsyncIterator[str | dict[int, DeltaToolCall]]:
        step = self._next()
        if step.delay:
            await asyncio.sleep(step.delay)
        if step.error:
            raise RuntimeError(step.error)
        if step.calls:
            yield {
                i: DeltaToolCall(c.name, json.dumps(c.arguments), tool_call_id=c.id)
                for i, c in enumerate(step.calls)
            }
            return
        for word in re.findall(r"\S+\s*|\s+", step.text):
            yield word


class PydanticAIAdapter(BridgeAdapter):
    """Pydantic AI, as the kit drives it."""

    capabilities = CAPABILITIES
    structured = True
    streams = True
    unscripted = frozenset({"on_subagent_start", "on_subagent_stop"})
    """A sub-agent needs an agent of its own, run from a tool: test_pydantic_ai_subagents.py
    pins those events."""

    def _agent(
        self,
        bus: HookBus,
        script: Sequence[Step],
        tools: Sequence[Callable[..., Any]],
        output_type: Any,
    ) -> Agent[None, Any]:
        played = _Script(script, structured=output_type is not None)
        return Agent(
            FunctionModel(played.answer, stream_function=played.stream),
            name="assistant",
            output_type=output_type or [str, DeferredToolRequests],
            tools=list(tools),
            capabilities=[AgentHooksCapability(bus)],
        )

    async def run(
        self,
        bus: HookBus,
        script: Sequence[Step],
        tools: Sequence[Callable[..., Any]],
        message: str,
        *,
        output_type: type[Any] | None = None,
    ) -> Outcome:
        agent = self._agent(bus, script, tools, output_type)
        return _outcome(agent, await agent.run(message))

    async def resume(self, bus: HookBus, paused: Outcome, decisions: Mapping[str, bool]) -> Outcome:
        agent, result = paused.handle
        resumed = await agent.run(
            message_history=result.all_messages(),
            deferred_tool_results=resume_results(
                {k: Approve() if ok else Deny("a human refused") for k, ok in decisions.items()}
            ),
        )
        return _outcome(agent, resumed)

    async def stream(
        self,
        bus: HookBus,
        script: Sequence[Step],
        tools: Sequence[Callable[..., Any]],
        message: str,
    ) -> tuple[list[str], Outcome]:
        agent = self._agent(bus, script, tools, str)
        deltas: list[str] = []
        async with agent.run_stream(message) as result:
            async for delta in result.stream_text(delta=True):
                deltas.append(delta)
            output = await result.get_output()
            history = _texts(result.all_messages())
        return deltas, Outcome(text=output, history=history)


def _outcome(agent: Agent[None, Any], result: Any) -> Outcome:
    output = result.output
    if isinstance(output, DeferredToolRequests):
        return Outcome(
            paused=[c.tool_call_id for c in output.approvals],
            history=_texts(result.all_messages()),
            handle=(agent, result),
        )
    return Outcome(
        text=output if isinstance(output, str) else None,
        output=None if isinstance(output, str) else output,
        history=_texts(result.all_messages()),
        handle=(agent, result),
    )


def _texts(messages: list[ModelMessage]) -> list[str]:
    out: list[str] = []
    for message in messages:
        for part in message.parts:
            if isinstance(part, TextPart):
                out.append(part.content)
            elif isinstance(part, ToolReturnPart):
                out.append(str(part.content))
            elif isinstance(part, ToolCallPart) and isinstance(message, ModelResponse):
                out.append(part.args_as_json_str())
            elif isinstance(message, ModelRequest) and hasattr(part, "content"):
                out.append(str(part.content))
    return out


__all__ = ["PydanticAIAdapter"]
