"""The agent's tools, grouped in named scopes (``agent.scopes``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..bus import Disposer
from ..errors import RegistrationError
from ..events.contexts import ScopeRegisterContext, ScopeUnregisterContext
from ..tools import Scope, Tool

if TYPE_CHECKING:
    from .agent import Agent


class ScopeRegistry:
    """The agent's tools, grouped in named scopes (``agent.scopes``).

    ``register`` / ``unregister`` are coroutines: their ``on_scope_register`` /
    ``on_scope_unregister`` handlers run on the loop, and a raising handler's exception
    reaches the caller.
    """

    def __init__(self, agent: Agent) -> None:
        self._agent = agent
        self._scopes: dict[str, Scope] = {}
        self._reindex()

    def add(self, scope: Scope) -> None:
        """Add ``scope`` without firing events (construction time)."""
        if scope.name in self._scopes:
            raise RegistrationError(
                f"agent {self._agent.name!r} already has a scope {scope.name!r}"
            )
        for other in self._scopes.values():
            clash = other.tools.keys() & scope.tools.keys()
            if clash:
                name = sorted(clash)[0]
                raise RegistrationError(
                    f"agent {self._agent.name!r} has two tools named {name!r}: "
                    f"{_what(other.tools[name], other)} and {_what(scope.tools[name], scope)}; "
                    "the model could not tell them apart"
                )
        self._scopes[scope.name] = scope
        self._reindex()

    async def register(self, scope: Scope) -> Disposer:
        """Add ``scope`` and fire ``on_scope_register``; returns a disposer (sync) that removes
        it again without an event. Use ``unregister`` for the event."""
        self.add(scope)
        await self._fire("on_scope_register", ScopeRegisterContext, scope)

        def remove() -> None:
            self._scopes.pop(scope.name, None)
            self._reindex()

        return Disposer(remove)

    async def unregister(self, name: str) -> Scope:
        """Remove the scope ``name`` and fire ``on_scope_unregister``."""
        scope = self._scopes.pop(name, None)
        self._reindex()
        if scope is None:
            raise RegistrationError(
                f"agent {self._agent.name!r} has no scope {name!r}; scopes: {list(self._scopes)}"
            )
        await self._fire("on_scope_unregister", ScopeUnregisterContext, scope)
        return scope

    async def _fire(
        self, event: str, cls: type[ScopeRegisterContext | ScopeUnregisterContext], scope: Scope
    ) -> None:
        bus = self._agent.bus
        if event in bus.listened:
            name = self._agent.name
            await bus.emit(event, cls(agent=name, branch=name, scope=scope))

    def __getitem__(self, name: str) -> Scope:
        return self._scopes[name]

    def __contains__(self, name: object) -> bool:
        return name in self._scopes

    def __iter__(self) -> Any:
        return iter(self._scopes.values())

    def lookup(self, tool_name: str) -> tuple[Tool[Any], Scope] | None:
        """The tool called ``tool_name`` and its scope (enabled or not), or None."""
        found = self.index.get(tool_name)
        if found is not None and found[1].tools.get(tool_name) is found[0]:
            return found
        for scope in self._scopes.values():  # a scope's tools changed in place since
            tool = scope.tools.get(tool_name)
            if tool is not None:
                return tool, scope
        return None

    def _reindex(self) -> None:
        self.index: dict[str, tuple[Tool[Any], Scope]] = {
            name: (t, s) for s in self._scopes.values() for name, t in s.tools.items()
        }
        """Every tool by name, with its scope (rebuilt when a scope comes or goes)."""

    def names(self) -> list[str]:
        """The names of the tools offered to the model."""
        return [n for s in self._scopes.values() if s.enabled for n in s.tools]

    def schemas(self) -> list[dict[str, Any]]:
        """The JSON schemas of the tools offered to the model (enabled scopes only)."""
        return [t.schema for s in self._scopes.values() if s.enabled for t in s.tools.values()]


def _what(tool: Tool[Any], scope: Scope) -> str:
    if tool.subagent is not None:
        return f"the sub-agent {tool.subagent.name!r}"
    if tool.handoff is not None:
        return f"the handoff to {tool.handoff.name!r}"
    return f"a tool of scope {scope.name!r}"


__all__ = ["ScopeRegistry"]
