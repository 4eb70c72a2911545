"""An agent's MCP servers as scopes: connect them before a run, close them on ``aclose``.

Connecting a server registers its tools as a scope named after it (``on_scope_register``);
closing it unregisters the scope (``on_scope_unregister``) and ends the connection.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import RegistrationError
from ..tools import Scope

if TYPE_CHECKING:
    from ..runtime.agent import Agent
    from .server import BaseMCPServer


def claim(agent: Agent, server: object) -> BaseMCPServer:
    """``server`` checked and given to ``agent`` (construction time)."""
    from .server import BaseMCPServer

    if not isinstance(server, BaseMCPServer):
        raise RegistrationError(
            f"mcp_servers= takes MCPServerStdio or MCPServerHTTP objects, got {server!r}"
        )
    if server.owner is not None and server.owner is not agent:
        raise RegistrationError(
            f"MCP server {server.display!r} already belongs to agent {server.owner.name!r}; "
            "give each agent its own server object"
        )
    server.owner = agent
    return server


async def connect_servers(agent: Agent, seen: set[int] | None = None) -> None:
    """Connect every server of ``agent`` and of the agents it can hand off to that is not
    connected yet, registering each one's scope."""
    seen = set() if seen is None else seen
    seen.add(id(agent))
    for server in agent.mcp_servers:
        if not server.opened:  # one whose connection ended starts again at its next call
            await _connect(agent, server)
    for target in agent.handoffs:
        if id(target) not in seen:
            await connect_servers(target, seen)


async def _connect(agent: Agent, server: BaseMCPServer) -> None:
    async with server.lock():
        if server.opened:
            return
        if server.scope is not None:  # the server was closed directly, not through the agent
            await _unregister(agent, server)
        await server.connect()
        name = server.scope_name
        problem = _clash(agent, server, name)
        if problem is not None:
            await server.close()
            raise RegistrationError(problem)
        server.scope = Scope(name, server.tools)
        await agent.scopes.register(server.scope)


def _clash(agent: Agent, server: BaseMCPServer, name: str) -> str | None:
    """Why the server's scope cannot join the agent's (its name, or a tool name, is taken)."""
    if name in agent.scopes:
        return f"agent {agent.name!r} already has a scope {name!r}; pass name= to the server"
    for tool in server.tools:
        found = agent.scopes.lookup(tool.name)
        if found is not None:
            return (
                f"MCP server {server.display!r} offers a tool {tool.name!r} that agent "
                f"{agent.name!r} already has (scope {found[1].name!r})"
            )
    return None


async def close_servers(agent: Agent, seen: set[int] | None = None) -> None:
    """Close every server of ``agent``, its sub-agents and its handoff targets: unregister its
    scope, then end its connection. Servers that are not connected are skipped."""
    seen = set() if seen is None else seen
    seen.add(id(agent))
    failure: BaseException | None = None
    for server in reversed(agent.mcp_servers):
        try:
            async with server.lock():
                try:
                    if server.scope is not None:
                        await _unregister(agent, server)
                finally:
                    await server.close()
        except Exception as exc:  # the other servers still close
            failure = failure or exc
    for other in [*agent.sub_agents, *agent.handoffs]:
        if id(other) not in seen:
            await close_servers(other, seen)
    if failure is not None:
        raise failure


async def _unregister(agent: Agent, server: BaseMCPServer) -> None:
    scope, server.scope = server.scope, None
    if scope is not None and scope.name in agent.scopes and agent.scopes[scope.name] is scope:
        await agent.scopes.unregister(scope.name)


__all__ = ["claim", "close_servers", "connect_servers"]
