"""The Strands adapter of the bridge conformance kit: a real Strands ``Agent`` on the bridge's
``ScriptedModel``, its tools wrapped with Strands' own ``@tool``."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable, Callable, Mapping, Sequence
from typing import Any

from agenthooks_strands import AgentHooksPlugin
from agenthooks_strands.capabilities import CAPABILITIES
from agenthooks_strands.testing import ScriptedModel, text, tool_calls
from strands import Agent, tool

from agenthooks import Approve, Deny, HookBus
from agenthooks.conformance import BridgeAdapter, Outcome, Step


class _TimedModel(ScriptedModel):
    """The scripted model, waiting each step's ``delay`` before it answers."""

    def __init__(self, script: Sequence[Step]) -> None:
        super().__init__([_turn(s) for s in script])
        self.delays = [s.delay for s in script]

    async def stream(  # type: ignore[override]
        self, messages: Any, tool_specs: Any = None, system_prompt: Any = None, **kwargs: Any
    ) -> AsyncIterable[dict[str, Any]]:
        delay = self.delays.pop(0) if self.delays else 0.0
        if delay:
            await asyncio.sleep(delay)
        async for event in super().stream(messages, tool_specs, system_prompt, **kwargs):
            yield event


def _turn(step: Step) -> Any:
    if step.error:
        return RuntimeError(step.error)
    if step.calls:
        return tool_calls(*((c.id, c.name, dict(c.arguments)) for c in step.calls))
    return text(step.text)


class StrandsAdapter(BridgeAdapter):
    """Strands, as the kit drives it."""

    capabilities = CAPABILITIES
    streams = True
    unscripted = frozenset({"on_subagent_start", "on_subagent_stop"})
    """A sub-agent needs an agent of its own, run from a tool: test_strands_subagents.py
    pins those events."""

    def _agent(
        self, bus: HookBus, script: Sequence[Step], tools: Sequence[Callable[..., Any]]
    ) -> Agent:
        return Agent(
            model=_TimedModel(script),
            tools=[tool(f) for f in tools],
            plugins=[AgentHooksPlugin(bus)],
            callback_handler=None,
            name="assistant",
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
        agent = self._agent(bus, script, tools)
        return _outcome(agent, await agent.invoke_async(message))

    async def resume(self, bus: HookBus, paused: Outcome, decisions: Mapping[str, bool]) -> Outcome:
        agent, result = paused.handle
        answers = [
            {
                "interruptResponse": {
                    "interruptId": i.id,
                    "response": Approve()
                    if decisions.get(i.reason["tool_call_id"])
                    else Deny("a human refused"),
                }
            }
            for i in result.interrupts
        ]
        return _outcome(agent, await agent.invoke_async(answers))

    async def stream(
        self,
        bus: HookBus,
        script: Sequence[Step],
        tools: Sequence[Callable[..., Any]],
        message: str,
    ) -> tuple[list[str], Outcome]:
        agent = self._agent(bus, script, tools)
        deltas: list[str] = []
        result = None
        async for event in agent.stream_async(message):
            if "data" in event and isinstance(event["data"], str):
                deltas.append(event["data"])
            if "result" in event:
                result = event["result"]
        return deltas, _outcome(agent, result)


def _outcome(agent: Agent, result: Any) -> Outcome:
    interrupts = list(result.interrupts or ())
    content = result.message.get("content", []) if result.message else []
    said = "".join(b.get("text", "") for b in content if "text" in b)
    return Outcome(
        text=None if interrupts else said,
        paused=[str(i.reason["tool_call_id"]) for i in interrupts],
        finish_reason=str(result.stop_reason),
        history=[
            "".join(b.get("text", "") for b in m.get("content", []) if "text" in b)
            for m in agent.messages
        ],
        handle=(agent, result),
    )


__all__ = ["StrandsAdapter"]
