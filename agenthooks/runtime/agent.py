"""Agent: configuration, a default conversation, and the hooks API of its bus."""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from contextlib import aclosing
from functools import partial
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

from ..bus import Disposer, ErrorPolicy, HookBus, Matcher
from ..decisions import Decision
from ..errors import RegistrationError
from ..events import EventName
from ..events.catalog import GROUPS
from ..messages import AgentResponse, ChatMessage, PendingCall
from ..middleware import CallNext, Middleware, Stack
from ..providers.base import Provider
from ..tools import Scope, Tool, as_tool
from . import model_call, tool_call
from .chat_run import execute, execute_run, stream, stream_run
from .durable.paused import PausedRun
from .durable.pausing import counting, keep, pending_of, refuse_chat, require_paused
from .durable.resume import check, restore, resume_body
from .handoffs import handoff_tool
from .memory import Memory
from .output import OutputSpec
from .reach import has_servers
from .run_state import Run
from .scopes import ScopeRegistry
from .streaming import StreamEvent
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

    Args:
        name: The agent's name, in events, traces and the tools that reach it.
        instructions: The system prompt.
        provider: The model endpoint; a run without one fails with a ``ProviderError``.
        tools: ``Tool`` objects or plain functions (each wrapped as one), in the ``default``
            scope.
        bus: The bus its events fire on; default: a bus of its own.
        middleware: Middleware of this agent only, inside the bus's.
        model: The model every request asks for; ``None``: the provider's own.
        temperature: Sent with every request when given.
        tool_choice: Sent with every request when given (``"auto"``, ``"required"``, ``"none"``
            or a provider's object naming a tool).
        max_turns: Model calls per run; a model that still asks for tools after the last one
            ends the run with ``MaxTurnsExceeded``.
        max_total_tokens: Tokens per run; reached, the next request ends the run with
            ``BudgetExceeded``.
        max_cost: Cost per run (``Usage.cost``); reached, as ``max_total_tokens``.
        parallel_tool_calls: Run the tool calls of one assistant message concurrently (their
            events still fire in the order the model gave the calls).
        sub_agents: Agents offered as tools named after each, taking one ``task`` argument.
        handoffs: Agents offered as ``transfer_to_<name>`` tools that pass the conversation on.
        memory: Key-value memory its tools share (``ToolContext.memory``).
        description: What a parent agent's model reads about this agent, as a sub-agent
            tool or a handoff.
        abort_timeout: Seconds each teardown step of a cancelled run may take (its
            ``on_chat_abort``, ``on_chat_end`` and ``on_session_end`` handlers).
        mcp_servers: MCP servers whose tools it offers, connected at its first run.
        output_type: The type of the final answer: a pydantic model, a dataclass or a
            ``typing_extensions.TypedDict``.
        output_retries: Corrections the model gets for an answer that fails validation.

    Raises:
        RegistrationError: No name, ``max_turns`` below 1, ``output_retries`` below 0, or a
            ``middleware`` item that is not ``Middleware``.
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
        self.mcp_on_run: bool = bool(self.mcp_servers) or any(h.mcp_on_run for h in self.handoffs)
        """True when this agent or one it can hand off to has MCP servers: a run connects
        them before its first event."""
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
        if self.mcp_on_run:
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

    # running: the entry points of the agent's own conversation --------------------------

    def stream_gated(self, asked: bool) -> bool:
        """Whether a stream of this agent's runs is gated (its text withheld until
        ``post_agent`` allowed the answer): when ``asked``, and always when ``post_agent`` has
        a guard."""
        return asked or bool(self.bus.guards("post_agent"))

    async def chat(self, message: str, signal: asyncio.Event | None = None) -> AgentResponse:
        """Run the agent on ``message`` in its own conversation; returns the final response.

        Setting ``signal`` aborts the run with ``RunAborted``; cancelling the task aborts it
        with ``CancelledError``. Either way ``on_chat_abort`` fires first.
        """
        async with self._lock:
            refuse_chat(f"agent {self.name!r}", self._paused)
            run = Run(self, self.bus, self._history, signal=signal)
            start = len(self._history)
            with counting(run):
                try:
                    return await execute_run(run, message)
                finally:
                    self._paused = keep(run, start)

    async def chat_stream(
        self, message: str, *, gated: bool = False, signal: asyncio.Event | None = None
    ) -> AsyncIterator[StreamEvent]:
        """Run the agent and yield ``TextDelta``, ``ToolCallStart``, ``ToolCallEnd`` and, last,
        ``FinalResponse``. ``gated=True`` (automatic when ``post_agent`` has a guard) withholds
        text until ``post_agent`` allowed the final answer. Closing the iterator aborts the run.
        """
        async with self._lock:
            refuse_chat(f"agent {self.name!r}", self._paused)
            run = Run(self, self.bus, self._history, signal=signal, gated=self.stream_gated(gated))
            start = len(self._history)
            with counting(run):
                try:
                    # closing this iterator must close the run's stream at once (abort), not
                    # whenever the inner generator is garbage-collected
                    async with aclosing(stream_run(run, message)) as items:
                        async for item in items:
                            yield item
                finally:
                    self._paused = keep(run, start)

    async def resume(
        self,
        decisions: Mapping[str, Decision] | None = None,
        signal: asyncio.Event | None = None,
    ) -> AgentResponse:
        """Continue the agent's own paused run (in this process; a ``Session`` with a store
        resumes in any): ``{call_id: Approve() or Deny(reason)}`` for each pending call."""
        async with self._lock:
            run, state, decided = self._resumed(decisions, signal, False)
            with counting(run, state.records):
                try:
                    return await execute(run, partial(resume_body, run, state, decided))
                finally:
                    self._paused = keep(run, state.start)

    async def resume_stream(
        self,
        decisions: Mapping[str, Decision] | None = None,
        *,
        gated: bool = False,
        signal: asyncio.Event | None = None,
    ) -> AsyncIterator[StreamEvent]:
        """``resume()`` yielding what ``chat_stream()`` yields."""
        async with self._lock:
            run, state, decided = self._resumed(decisions, signal, self.stream_gated(gated))
            body = partial(execute, run, partial(resume_body, run, state, decided))
            with counting(run, state.records):
                try:
                    async with aclosing(stream(run, body)) as items:
                        async for item in items:
                            yield item
                finally:
                    self._paused = keep(run, state.start)

    def _resumed(
        self,
        decisions: Mapping[str, Decision] | None,
        signal: asyncio.Event | None,
        gated: bool,
    ) -> tuple[Run, PausedRun, dict[str, Decision]]:
        """The paused run restored for ``resume``: the run, its state and the decisions."""
        state = require_paused(f"agent {self.name!r}", self._paused, None)
        decided = check(self, state, dict(decisions or {}), None)
        run = Run(self, self.bus, self._history, signal=signal, gated=gated)
        restore(run, state, self)
        return run, state, decided

    def chat_sync(self, message: str) -> AgentResponse:
        """``chat`` for scripts: runs its own event loop. Inside a running loop (async code,
        a notebook) ``await agent.chat(message)`` instead."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.chat(message))
        raise RuntimeError(
            f"agent {self.name!r}: chat_sync() cannot run inside a running event loop; "
            "use `await agent.chat(message)` there"
        )

    @property
    def pending(self) -> list[PendingCall]:
        """The calls the agent's own paused run waits on (empty when none is paused)."""
        return pending_of(self._paused)


# --- the composed calls: built once per registration change (Starlette's
# ``build_middleware_stack`` shape): [hook layer, the bus's middleware..., the agent's
# middleware...] around the innermost call, first outermost.

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
    """The hook layer around [middleware...] around ``endpoint`` (the run enters it as
    ``hooks.wrap(ctx, hooks.inner)``), or None when nobody listens and nothing wraps the
    call."""
    if not middleware and events.isdisjoint(bus.listened):
        return None
    hooks.inner = middleware.compose(endpoint)
    return hooks


__all__ = ["DEFAULT_MAX_TURNS", "Agent", "CallStacks", "ScopeRegistry", "as_tool"]
