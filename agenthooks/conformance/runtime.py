"""Our own runtime as the kit's reference: the same scripted conversation on an ``Agent`` and
a ``ScriptedProvider``, whose events and answers every bridge is held to."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..decisions import Approve, Deny
from ..messages import ProviderRequest, ProviderResponse, ToolCall, Usage
from ..providers.scripted import ScriptedProvider
from ..runtime.agent import Agent
from ..runtime.streaming import FinalResponse, TextDelta
from .adapter import BridgeAdapter, Outcome

if TYPE_CHECKING:
    from ..bridges import Capabilities
    from ..bus import HookBus
    from .script import Step


def response_of(step: Step) -> ProviderResponse:
    """``step`` as the response our providers return."""
    return ProviderResponse(
        content=step.text or None,
        tool_calls=[
            ToolCall(id=c.id, name=c.name, arguments=dict(c.arguments)) for c in step.calls
        ],
        finish_reason="tool_calls" if step.calls else "stop",
        usage=Usage(
            input_tokens=step.input_tokens,
            output_tokens=step.output_tokens,
            total_tokens=step.total_tokens,
        ),
    )


def _item(step: Step) -> Any:
    if step.error:
        return RuntimeError(step.error)
    if not step.delay:
        return response_of(step)

    async def slow(request: ProviderRequest) -> ProviderResponse:
        await asyncio.sleep(step.delay)
        return response_of(step)

    return slow


class RuntimeAdapter(BridgeAdapter):
    """The reference: an agenthooks ``Agent`` on the script."""

    structured = True
    streams = True

    def __init__(self, capabilities: Capabilities) -> None:
        self.capabilities = capabilities

    def _agent(
        self,
        bus: HookBus,
        script: Sequence[Step],
        tools: Sequence[Callable[..., Any]],
        output_type: type[Any] | None = None,
    ) -> Agent:
        provider = ScriptedProvider([_item(s) for s in script], name="kit")
        options: dict[str, Any] = {} if output_type is None else {"output_type": output_type}
        return Agent("assistant", None, provider=provider, tools=list(tools), bus=bus, **options)

    async def run(
        self,
        bus: HookBus,
        script: Sequence[Step],
        tools: Sequence[Callable[..., Any]],
        message: str,
        *,
        output_type: type[Any] | None = None,
    ) -> Outcome:
        """Run the script on our runtime."""
        agent = self._agent(bus, script, tools, output_type)
        response = await agent.chat(message)
        return _outcome(agent, response)

    async def resume(self, bus: HookBus, paused: Outcome, decisions: Mapping[str, bool]) -> Outcome:
        """Resume the paused agent with the decisions."""
        agent: Agent = paused.handle
        response = await agent.resume(
            {k: Approve() if ok else Deny("a human refused") for k, ok in decisions.items()}
        )
        return _outcome(agent, response)

    async def stream(
        self,
        bus: HookBus,
        script: Sequence[Step],
        tools: Sequence[Callable[..., Any]],
        message: str,
    ) -> tuple[list[str], Outcome]:
        """Run the script streamed (``chat_stream``)."""
        agent = self._agent(bus, script, tools)
        deltas: list[str] = []
        final = None
        async for item in agent.chat_stream(message):
            if isinstance(item, TextDelta):
                deltas.append(item.text)
            elif isinstance(item, FinalResponse):
                final = item.response
        assert final is not None
        return deltas, _outcome(agent, final)


def _outcome(agent: Agent, response: Any) -> Outcome:
    return Outcome(
        text=response.content,
        output=response.output,
        paused=[p.call_id for p in response.pending],
        finish_reason=str(response.finish_reason),
        history=[m.content or "" for m in agent.history],
        handle=agent,
    )


__all__ = ["RuntimeAdapter", "response_of"]
