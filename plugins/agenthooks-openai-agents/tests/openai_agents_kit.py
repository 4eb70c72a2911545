"""The Agents SDK adapter of the bridge conformance kit: a real SDK ``Agent`` on the SDK's own
``agents.testing.ScriptedModel``, run through ``AgentHooksRunner``."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from agenthooks_openai_agents import AgentHooksRunner
from agenthooks_openai_agents.capabilities import CAPABILITIES
from agents import Agent, RunConfig, function_tool, set_tracing_disabled
from agents.models.interface import Model, ModelProvider
from agents.testing import ModelStep, ScriptedModel, assistant_message, function_call
from agents.usage import Usage
from openai.types.responses import ResponseTextDeltaEvent

from agenthooks import HookBus
from agenthooks.conformance import BridgeAdapter, Outcome, Step

set_tracing_disabled(True)  # no exporter: nothing leaves the process


def _step(step: Step) -> ModelStep:
    if step.error:
        return ModelStep.raise_error(RuntimeError(step.error))
    output = (
        [function_call(c.name, dict(c.arguments), call_id=c.id) for c in step.calls]
        if step.calls
        else [assistant_message(step.text)]
    )
    usage = Usage(
        requests=1,
        input_tokens=step.input_tokens,
        output_tokens=step.output_tokens,
        total_tokens=step.total_tokens,
    )
    if not step.delay:
        return ModelStep(output=output, usage=usage)

    async def late(call: Any) -> ModelStep:
        await asyncio.sleep(step.delay)
        return ModelStep(output=output, usage=usage)

    return ModelStep.respond(late)


class _Provider(ModelProvider):
    """Every model name is the scripted model (a ``prepare_next_turn`` may switch names)."""

    def __init__(self, model: Model) -> None:
        self.model = model

    def get_model(self, model_name: str | None) -> Model:
        return self.model


class OpenAIAgentsAdapter(BridgeAdapter):
    """The OpenAI Agents SDK, as the kit drives it."""

    capabilities = CAPABILITIES
    streams = True
    unscripted = frozenset({"pre_handoff", "on_handoff", "on_subagent_start", "on_subagent_stop"})
    """A handoff and a sub-agent need agents of their own: the bridge's tests pin them."""

    def _agent(self, script: Sequence[Step], tools: Sequence[Callable[..., Any]]) -> Agent[Any]:
        return Agent(
            name="assistant",
            model=ScriptedModel([_step(s) for s in script]),
            tools=[function_tool(f) for f in tools],
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
        agent = self._agent(script, tools)
        runner = AgentHooksRunner(bus)
        config = RunConfig(model_provider=_Provider(agent.model))  # type: ignore[arg-type]
        return _outcome(runner, agent, await runner.run(agent, message, run_config=config))

    async def resume(self, bus: HookBus, paused: Outcome, decisions: Mapping[str, bool]) -> Outcome:
        runner, agent, result = paused.handle
        state = result.to_state()
        for item in result.interruptions:
            if decisions.get(item.raw_item.call_id):
                state.approve(item)
            else:
                state.reject(item)
        return _outcome(runner, agent, await runner.run(agent, state))

    async def stream(
        self,
        bus: HookBus,
        script: Sequence[Step],
        tools: Sequence[Callable[..., Any]],
        message: str,
    ) -> tuple[list[str], Outcome]:
        agent = self._agent(script, tools)
        runner = AgentHooksRunner(bus)
        result = runner.run_streamed(agent, message)
        deltas: list[str] = []
        async for event in result.stream_events():
            data = getattr(event, "data", None)
            if isinstance(data, ResponseTextDeltaEvent):
                deltas.append(data.delta)
        return deltas, _outcome(runner, agent, result)


def _outcome(runner: AgentHooksRunner, agent: Agent[Any], result: Any) -> Outcome:
    interruptions = list(result.interruptions or ())
    output = result.final_output
    return Outcome(
        text=None if interruptions else output if isinstance(output, str) else None,
        output=None if isinstance(output, str) else output,
        paused=[item.raw_item.call_id for item in interruptions],
        history=[str(item) for item in result.to_input_list()],
        handle=(runner, agent, result),
    )


__all__ = ["OpenAIAgentsAdapter"]
