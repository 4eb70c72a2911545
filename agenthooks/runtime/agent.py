"""Agent: configuration, a default conversation, and the hooks API of its bus."""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Callable, Iterable, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any

from ..bus import Disposer, ErrorPolicy, HookBus, Matcher
from ..errors import RegistrationError
from ..events import EventName
from ..messages import ChatMessage, PendingCall
from ..middleware import Middleware, Stack
from ..paused import PausedRun
from ..providers.base import Provider
from ..tools import Scope, Tool, as_tool
from . import agent_runs
from .handoffs import handoff_tool
from .memory import Memory
from .output import OutputSpec
from .pausing import pending_of
from .reach import has_servers
from .scopes import ScopeRegistry
from .stacks import CallStacks
from .subagents import subagent_tool

if TYPE_CHECKING:
    from ..events.typed import OnMethod
    from ..mcp.server import BaseMCPServer

DEFAULT_MAX_TURNS = 25


class Agent:
    """An LLM agent whose every lifecycle point fires on its bus.

    ``sub_agents`` are offered to the model as tools named after each agent (one argument,
    ``task``); ``handoffs`` as ``transfer_to_<name>`` tools that pass the conversation on.
    ``middleware`` belongs to this agent only and sits inside the bus's. ``chat()`` calls of
    one agent are serialized; use one ``Session`` per concurrent conversation.

    ``output_type`` (a pydantic model, a dataclass or a TypedDict) makes the final answer a
    JSON object of that type: ``response.output`` is the validated value. An answer that fails
    validation goes back to the model with a correction, at most ``output_retries`` times;
    then the run ends with ``OutputValidationError``.
    """

    def __init__(
        self,
        name: str,
        instructions: str | None = None,
        *,
        provider: Provider | None = None,
        tools: Iterable[Tool[Any] | Callable[..., Any]] = (),
        bus: HookBus | None = None,
        middleware: Sequence[Middleware] = (),
        model: str | None = None,
        temperature: float | None = None,
        tool_choice: str | dict[str, Any] | None = None,
        max_turns: int = DEFAULT_MAX_TURNS,
        max_total_tokens: int | None = None,
        max_cost: float | None = None,
        parallel_tool_calls: bool = False,
        sub_agents: Sequence[Agent] = (),
        handoffs: Sequence[Agent] = (),
        memory: Memory | None = None,
        description: str | None = None,
        abort_timeout: float = 5.0,
        mcp_servers: Sequence[BaseMCPServer] = (),
        output_type: Any = None,
        output_retries: int = 2,
    ) -> None:
        if not name or not isinstance(name, str):
            raise RegistrationError(f"an agent needs a name, got {name!r}")
        if max_turns < 1:
            raise RegistrationError(f"max_turns must be at least 1, got {max_turns}")
        if output_retries < 0:
            raise RegistrationError(f"output_retries must be 0 or more, got {output_retries}")
        for m in middleware:
            if not isinstance(m, Middleware):
                raise RegistrationError(f"middleware= takes Middleware objects, got {m!r}")
        self.name = name
        self.instructions = instructions
        self.description = description
        self.provider = provider
        self._explicit_bus = bus is not None
        self.bus = bus if bus is not None else HookBus()
        self.middleware: tuple[Middleware, ...] = ()
        self.middleware_version = 0
        self.provider_middleware = Stack()
        self.tool_middleware = Stack()
        self._set_middleware(tuple(middleware))
        self.call_stacks: CallStacks | None = None
        self.model = model
        self.temperature = temperature
        self.tool_choice = tool_choice
        self.max_turns = max_turns
        self.max_total_tokens = max_total_tokens
        self.max_cost = max_cost
        self.parallel_tool_calls = parallel_tool_calls
        self.memory = memory
        self.abort_timeout = abort_timeout
        self.output_type = output_type
        self.output_retries = output_retries
        self.output_spec = (
            OutputSpec(output_type, output_retries) if output_type is not None else None
        )
        """How answers are checked against ``output_type`` (None without one)."""
        self.sub_agents = list(sub_agents)
        self.handoffs = list(handoffs)
        self.scopes = ScopeRegistry(self)
        self.scopes.add(Scope("default", tools))
        if self.sub_agents:
            self.scopes.add(Scope("sub_agents", [subagent_tool(a) for a in self.sub_agents]))
        if self.handoffs:
            self.scopes.add(Scope("handoffs", [handoff_tool(a) for a in self.handoffs]))
        self.mcp_servers: list[BaseMCPServer] = []
        if mcp_servers:
            from ..mcp.attach import claim

            self.mcp_servers = [claim(self, server) for server in mcp_servers]
        # a run connects servers first when this agent or one it can hand off to has some
        self._connect_on_run: bool = bool(self.mcp_servers) or any(
            h._connect_on_run for h in self.handoffs
        )
        self._history: list[ChatMessage] = []
        self._lock = asyncio.Lock()
        self.matchers_checked = -1
        """The bus version whose ``match=`` names were last checked against what this agent
        can reach (``runtime/reach.py``)."""
        self._paused: PausedRun | None = None

    def __repr__(self) -> str:
        return f"Agent({self.name!r})"

    @property
    def has_own_bus(self) -> bool:
        """True when given a bus, or when hooks were added to its own: then, as a sub-agent, it
        runs on that bus (plus its parents' guards), else on its parent's bus."""
        return self._explicit_bus or not self.bus.empty

    @property
    def history(self) -> list[ChatMessage]:
        """The stored transcript of the agent's own conversation (a copy)."""
        return list(self._history)

    # hooks --------------------------------------------------------------------------------

    if TYPE_CHECKING:
        on: OnMethod
        once: OnMethod
    else:

        def on(self, event, handler=None, **options):
            """``bus.on`` on this agent's bus (same arguments, same returns)."""
            return self.bus.on(event, handler, **options)

        def once(self, event, handler=None, **options):
            """``bus.once`` on this agent's bus."""
            return self.bus.once(event, handler, **options)

    def off(self, event: EventName | str, handler: Callable[[Any], Any]) -> bool:
        """``bus.off`` on this agent's bus."""
        return self.bus.off(event, handler)

    def add_hook(
        self,
        event: EventName | str,
        handler: Callable[[Any], Any],
        *,
        match: Matcher | None = None,
        priority: int = 0,
        errors: ErrorPolicy | None = None,
        guard: bool = False,
    ) -> Disposer:
        """Seed 000's ``addHook``: ``on`` with a handler; returns the idempotent disposer."""
        return self.bus.add_hook(
            event, handler, match=match, priority=priority, errors=errors, guard=guard
        )

    def use(self, item: Any) -> Disposer:
        """Add a ``Middleware`` to this agent's own middleware (where ``middleware=[...]``
        puts it: inside the bus's, innermost last), or install a plugin on the agent's bus
        (a plugin's hooks live on a bus). Returns the disposer."""
        if not isinstance(item, Middleware):
            return self.bus.use(item)
        self._set_middleware((*self.middleware, item))

        def remove() -> None:
            self._set_middleware(tuple(m for m in self.middleware if m is not item))

        return Disposer(remove)

    def _set_middleware(self, middleware: tuple[Middleware, ...]) -> None:
        self.middleware = middleware
        self.provider_middleware = Stack(m for m in middleware if "provider" in m.stacks)
        self.tool_middleware = Stack(m for m in middleware if "tool" in m.stacks)
        self.middleware_version += 1

    def stacks_on(self, bus: HookBus) -> CallStacks:
        """The composed model and tool calls of this agent on ``bus``, built when the bus's
        registrations or this agent's middleware changed (kept for the agent's own bus)."""
        stacks = self.call_stacks
        if stacks is not None and stacks.current(bus, self):
            return stacks
        stacks = CallStacks(bus, self)
        if bus is self.bus:
            self.call_stacks = stacks
        return stacks

    # MCP servers --------------------------------------------------------------------------

    async def connect_mcp(self) -> None:
        """Start and connect the MCP servers not connected yet (of this agent and of the
        agents it hands off to), each firing ``on_scope_register``. Runs do it themselves
        before their first event; call it to start the servers earlier. A server that cannot
        be started raises ``MCPConnectionError`` naming it."""
        if self._connect_on_run:
            from ..mcp.attach import connect_servers

            await connect_servers(self)

    async def connect(self) -> None:
        """The former name of ``connect_mcp`` (deprecated: it starts MCP servers, which the
        name did not say)."""
        warnings.warn(
            "Agent.connect() is deprecated; use Agent.connect_mcp()",
            DeprecationWarning,
            stacklevel=2,
        )
        await self.connect_mcp()

    async def aclose(self) -> None:
        """Close the MCP servers of this agent, its sub-agents and its handoff targets, each
        firing ``on_scope_unregister``; their subprocesses are gone when it returns. Closing
        again is a no-op; a later run connects them anew."""
        if has_servers(self, set()):
            from ..mcp.attach import close_servers

            await close_servers(self)

    async def __aenter__(self) -> Agent:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    # running: the entry points of the agent's own conversation (runtime/agent_runs.py) ----

    def _gated(self, gated: bool) -> bool:
        """Streams are gated when asked, and always when ``post_agent`` has a guard."""
        return gated or bool(self.bus.guards("post_agent"))

    chat = agent_runs.chat
    chat_stream = agent_runs.chat_stream
    resume = agent_runs.resume
    resume_stream = agent_runs.resume_stream
    chat_sync = agent_runs.chat_sync

    @property
    def pending(self) -> list[PendingCall]:
        """The calls the agent's own paused run waits on (empty when none is paused)."""
        return pending_of(self._paused)


__all__ = ["DEFAULT_MAX_TURNS", "Agent", "ScopeRegistry", "as_tool"]
