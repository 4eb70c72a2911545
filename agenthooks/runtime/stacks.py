"""The composed call of each kind, built once per registration change (Starlette's
``build_middleware_stack`` shape): [hook layer, the bus's middleware..., the agent's
middleware...] around the innermost call, first outermost. A run enters it through its hook
layer; it is rebuilt only when the bus's registrations or the agent's middleware changed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from ..bus import HookBus
from ..events.catalog import GROUPS
from ..middleware import CallNext, Stack
from . import model_call, tool_call

if TYPE_CHECKING:
    from .agent import Agent

_MODEL_EVENTS = GROUPS["model_call"]
_TOOL_EVENTS = GROUPS["tool_call"]


class CallStacks:
    """The model call and the tool call of one (bus, agent) pair; ``None`` where nothing
    wraps the call (no hook on its events, no middleware): the path then calls straight
    through."""

    __slots__ = ("bus", "bus_version", "agent", "agent_version", "model", "tool")

    def __init__(self, bus: HookBus, agent: Agent) -> None:
        self.bus, self.bus_version = bus, bus.version
        self.agent, self.agent_version = agent, agent.middleware_version
        self.model: model_call.ModelHooks | None = _compose(
            bus,
            model_call.ModelHooks(bus),
            _MODEL_EVENTS,
            bus.stacks.get("provider", Stack()) + agent.provider_middleware,
            model_call.endpoint,
        )
        self.tool: tool_call.ToolHooks | None = _compose(
            bus,
            tool_call.ToolHooks(bus),
            _TOOL_EVENTS,
            bus.stacks.get("tool", Stack()) + agent.tool_middleware,
            tool_call.endpoint,
        )

    def current(self, bus: HookBus, agent: Agent) -> bool:
        """True while nothing they were built from has changed."""
        return (
            bus is self.bus
            and bus.version == self.bus_version
            and agent is self.agent
            and agent.middleware_version == self.agent_version
        )


H = TypeVar("H", "model_call.ModelHooks", "tool_call.ToolHooks")


def _compose(
    bus: HookBus, hooks: H, events: frozenset[str], middleware: Stack, endpoint: CallNext
) -> H | None:
    """The hook layer around [middleware...] around ``endpoint``; the run enters it as
    ``hooks.wrap(ctx, hooks.inner)`` (one frame less per call than a link around it)."""
    if not middleware and events.isdisjoint(bus.listened):
        return None
    hooks.inner = middleware.compose(endpoint)
    return hooks


__all__ = ["CallStacks"]
