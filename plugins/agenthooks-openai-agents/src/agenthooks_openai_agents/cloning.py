"""The agents a bridged run runs: clones of the user's agents with hooked models, tools and
handoffs. The user's agents are never changed (``Agent.clone`` is a shallow copy; every list
the clone changes is a new list)."""

from __future__ import annotations

import copy
import dataclasses
import functools
from typing import Any

from agents import Agent
from agents.handoffs import Handoff, handoff
from agents.models.interface import Model, ModelProvider
from agents.run_context import RunContextWrapper
from agents.tool import FunctionTool, Tool

from agenthooks import Ask, Deny
from agenthooks.events import HandoffContext, PreHandoffContext

from .capabilities import CAPABILITIES
from .model import HookedModel
from .scope import current
from .tools import HookedTool


def model_name(model: Model) -> str:
    """The name a model goes by in requests (its ``model`` attribute, else its class)."""
    name = getattr(model, "model", None)
    return name if isinstance(name, str) else type(model).__name__


class HookedProvider(ModelProvider):
    """A run's model provider whose models are hooked (agents that name their model)."""

    def __init__(self, inner: ModelProvider) -> None:
        self.inner = inner

    def get_model(self, model_name: str | None) -> Model:
        """The inner provider's model for ``model_name``, hooked (once: a hooked model is kept)."""
        model = self.inner.get_model(model_name)
        if isinstance(model, HookedModel):
            return model
        return HookedModel(model, model_name or getattr(model, "model", "") or "")

    async def aclose(self) -> None:
        """Close the inner provider."""
        await self.inner.aclose()


def _fingerprint(agent: Agent[Any]) -> list[Any]:
    """Every field of ``agent``, and the items of its lists: a clone made from it is still
    good while each is the same object."""
    values: list[Any] = []
    for spec in dataclasses.fields(agent):
        value = getattr(agent, spec.name)
        values.append(value)
        if isinstance(value, list):
            values.append(len(value))
            values.extend(value)
    return values


def hooked(agent: Agent[Any]) -> bool:
    """Whether ``agent`` is a clone this bridge made (its model, tools or handoffs report to
    the run), or has nothing of its own to hook."""
    if isinstance(agent.model, HookedModel):
        return True
    parts = [t.on_invoke_tool for t in agent.tools if isinstance(t, FunctionTool)]
    parts += [h.on_invoke_handoff for h in agent.handoffs if isinstance(h, Handoff)]
    if any(isinstance(getattr(p, "__self__", p), (HookedTool, _HandoffInvoker)) for p in parts):
        return True
    if agent.mcp_servers:
        return isinstance(vars(agent).get("get_mcp_tools"), _MCPTools)
    return not parts and not isinstance(agent.model, Model) and not agent.handoffs


class Cloner:
    """Clones an agent graph (handoff targets included, cycles once)."""

    def __init__(self, with_approvals: bool) -> None:
        self.with_approvals = with_approvals
        self.clones: dict[int, Agent[Any]] = {}
        self._made: list[tuple[Agent[Any], list[Any]]] = []
        """Each original and its fingerprint when cloned (which also keeps its id its own)."""

    def current(self) -> bool:
        """Whether no agent of the graph changed since it was cloned (the clones may be
        used again)."""
        for agent, seen in self._made:
            now = _fingerprint(agent)
            if len(now) != len(seen) or any(a is not b for a, b in zip(now, seen)):
                return False
        return True

    def clone(self, agent: Agent[Any]) -> Agent[Any]:
        """The hooked clone of ``agent`` (the same clone for the same agent)."""
        found = self.clones.get(id(agent))
        if found is not None:
            return found
        model = agent.model
        changes: dict[str, Any] = {
            # passed explicitly: a new model alone would reset settings the SDK derived
            "model_settings": agent.model_settings,
            "tools": [
                HookedTool(t).build(self.with_approvals) if isinstance(t, FunctionTool) else t
                for t in agent.tools
            ],
        }
        if isinstance(model, Model) and not isinstance(model, HookedModel):
            changes["model"] = HookedModel(model, model_name(model))
        clone = agent.clone(**changes)
        if agent.mcp_servers:
            # the SDK lists an MCP server's tools anew each turn (get_mcp_tools): the clone's
            # list gives each of them the hook layer, as its function tools have
            clone.get_mcp_tools = _MCPTools(clone, self.with_approvals)  # type: ignore[method-assign]
        self.clones[id(agent)] = clone
        self._made.append((agent, _fingerprint(agent)))
        clone.handoffs = [self._handoff(agent, item) for item in agent.handoffs]
        return clone

    def _handoff(
        self, owner: Agent[Any], item: Agent[Any] | Handoff[Any, Any]
    ) -> Handoff[Any, Any]:
        source = item if isinstance(item, Handoff) else handoff(item)
        if isinstance(item, Agent):
            self.clone(item)
        hooked = copy.copy(source)
        hooked.on_invoke_handoff = _HandoffInvoker(self, source, owner.name)
        return hooked


class _MCPTools:
    """A clone's ``get_mcp_tools``: the tools its MCP servers list, each one hooked."""

    def __init__(self, clone: Agent[Any], with_approvals: bool) -> None:
        self.listed = functools.partial(type(clone).get_mcp_tools, clone)
        self.with_approvals = with_approvals

    async def __call__(self, run_context: RunContextWrapper[Any]) -> list[Tool]:
        tools = await self.listed(run_context)
        return [
            HookedTool(t).build(self.with_approvals) if isinstance(t, FunctionTool) else t
            for t in tools
        ]


class _HandoffInvoker:
    """A handoff of a cloned agent: ``pre_handoff``, the SDK's handoff (to the target's
    clone), ``on_handoff``."""

    def __init__(self, cloner: Cloner, source: Handoff[Any, Any], from_agent: str) -> None:
        self.cloner = cloner
        self.source = source
        self.from_agent = from_agent

    async def __call__(self, ctx: RunContextWrapper[Any], input_json: str) -> Agent[Any]:
        scope = current()
        if scope is None:
            return self.cloner.clone(await self.source.on_invoke_handoff(ctx, input_json))
        run = scope.run
        to_agent = self.source.agent_name
        try:
            got = await run.fire(
                "pre_handoff", PreHandoffContext, from_agent=self.from_agent, to_agent=to_agent
            )
            if isinstance(got, Deny):
                CAPABILITIES.require("pre_handoff", "deny")
            elif isinstance(got, Ask):
                CAPABILITIES.require("pre_handoff", "ask")
        except Exception as exc:
            scope.raised(exc)
            raise
        target = self.cloner.clone(await self.source.on_invoke_handoff(ctx, input_json))
        run.agent = target.name
        try:
            await run.fire(
                "on_handoff", HandoffContext, from_agent=self.from_agent, to_agent=to_agent
            )
        except Exception as exc:
            scope.raised(exc)
            raise
        return target


__all__ = ["Cloner", "HookedProvider", "model_name"]
