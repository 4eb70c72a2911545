"""The state of one run: who runs it, where its messages go, what it has used so far, and the
one helper every event of the run is fired through.

``HookTurn``: the handler chains of a run take turns while its tools run in parallel.
"""

from __future__ import annotations

import asyncio
import itertools
import uuid
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from ..bus import HookBus
from ..bus.signals import RECORD_COUNTS
from ..decisions import Deny
from ..events.contexts import EventContext, MessageContext
from ..messages import ChatMessage, PendingCall, ToolCall, Usage

if TYPE_CHECKING:
    from .agent import Agent, CallStacks
    from .durable.journal import Journal
    from .session import Session
    from .streaming import StreamEvent

NO_USAGE = Usage()
"""The usage of a run that has used nothing yet (shared: usages are replaced, never mutated)."""

Sink = Callable[["StreamEvent"], Awaitable[None]]
C = TypeVar("C", bound=EventContext)


class Run:
    """One ``chat()`` (or one sub-agent call): its ids, bus, transcript and counters.

    ``history`` is the stored transcript (append-only); ``messages`` the working transcript
    the next request starts from (``prepare_next_turn`` may replace it); ``new_messages`` what
    this run added; ``open_calls`` the tool calls of committed assistant messages that have no
    tool message yet. ``usage`` counts every agent the run reached: a sub-agent's usage is
    added to its parent's as it is spent.

    Pausing: ``pending`` collects the calls a hook asked about (the run ends paused after
    their batch); ``answered`` holds the call ids approved at resume (an ``Ask`` for them
    counts as ``None``); ``handoff`` and ``terminating`` keep what the paused batch decided
    for the batch's end.
    """

    __slots__ = (
        "agent",
        "bus",
        "history",
        "messages",
        "new_messages",
        "open_calls",
        "_usage",
        "turns",
        "_iteration",
        "run_id",
        "parent",
        "branch",
        "session",
        "signal",
        "sink",
        "gated",
        "abort_reason",
        "model",
        "thinking",
        "provider",
        "input",
        "memory",
        "caps",
        "capped",
        "serial",
        "pending",
        "answered",
        "handoff",
        "terminating",
        "journal",
        "carried",
        "context_fields",
        "_stacks",
    )

    def __init__(
        self,
        agent: Agent,
        bus: HookBus,
        history: list[ChatMessage],
        *,
        parent: Run | None = None,
        session: Session | None = None,
        signal: asyncio.Event | None = None,
        sink: Sink | None = None,
        gated: bool = False,
    ) -> None:
        self.agent = agent
        self.bus = bus
        self.history = history
        self.messages: list[ChatMessage] = list(history)
        self.new_messages: list[ChatMessage] = []
        self.open_calls: dict[str, ToolCall] = {}
        self._stacks: CallStacks | None = None
        self._usage = NO_USAGE
        self.turns = 0
        self._iteration: int | None = None
        self.run_id = new_id()
        self.parent = parent
        self.branch = self.branch_of(agent)
        self.session = session
        self.signal = signal
        self.sink = sink
        self.gated = gated
        self.abort_reason: Any = None
        self.model: str | None = agent.model
        self.thinking: str | None = None
        self.provider: Any = agent.provider
        self.input = ""
        self.memory: Any = agent.memory.bind(self) if agent.memory is not None else None
        self.caps: tuple[tuple[Agent, Usage], ...] = ((agent, NO_USAGE),)
        """Every agent whose budget bounds this run, with the usage when it took over: the one
        it started with bounds the whole run, a handoff target what was spent since."""
        self.capped: bool = _has_cap(agent) or (parent is not None and parent.capped)
        """True when a budget bounds this run or a run above it (the check runs each turn)."""
        self.serial: HookTurn | None = None
        """Set while tools of this run run in parallel: its handler chains then take turns."""
        self.pending: list[PendingCall] = []
        self.answered: frozenset[str] = frozenset()
        self.handoff: Agent | None = None
        self.terminating = False
        self.journal: Journal | None = None
        """Set when the conversation lives in a store (``durable/journal.py``)."""
        self.carried: dict[str, Any] = {}
        """The plugins' per-run state a pause keeps (``on_chat_paused``'s ``state``), by
        plugin name; a resumed run starts with what its pause kept."""
        self.context_fields: dict[str, Any] = {}
        """The common fields every context of this run carries, kept current (contexts copy
        them; nothing else may change them)."""
        self.refresh_fields()

    def branch_of(self, agent: Agent) -> str:
        """The branch ``agent`` has when it runs this run (after a handoff, say)."""
        return agent.name if self.parent is None else f"{self.parent.branch}/{agent.name}"

    @property
    def iteration(self) -> int | None:
        """The 0-indexed turn running now (None before the first)."""
        return self._iteration

    @iteration.setter
    def iteration(self, value: int | None) -> None:
        self._iteration = value
        self.context_fields["iteration"] = value

    @property
    def records(self) -> int:
        """The ``on_event`` records emitted for this run so far, before a pause included (0
        while the run is not counted: a sub-agent's run, or outside ``chat``/``resume``)."""
        return RECORD_COUNTS.get(self.run_id, 0)

    @property
    def usage(self) -> Usage:
        """What the run has used so far, its sub-agents included."""
        return self._usage

    @usage.setter
    def usage(self, value: Usage) -> None:  # spent, or a resumed run's as its pause stored it
        self._usage = value
        self.context_fields["usage"] = value

    def spend(self, usage: Usage) -> None:
        """Count ``usage`` for this run and every run above it."""
        run: Run | None = self
        while run is not None:
            run.usage = run.usage + usage
            run = run.parent

    @property
    def stacks(self) -> CallStacks:
        """The composed model and tool calls for this run's bus and agent (built when either
        changed, never per call)."""
        stacks = self._stacks
        if stacks is None or not stacks.current(self.bus, self.agent):
            stacks = self._stacks = self.agent.stacks_on(self.bus)
        return stacks

    def refresh_fields(self) -> None:
        """Write ``context_fields`` anew from the run (after its agent or ids changed)."""
        self.context_fields = {
            "run_id": self.run_id,
            "parent_run_id": self.parent.run_id if self.parent is not None else None,
            "session_id": self.session.id if self.session is not None else None,
            "agent": self.agent.name,
            "branch": self.branch,
            "iteration": self._iteration,
            "usage": self._usage,
            "signal": self.signal,
        }

    async def fire(self, event: str, cls: type[C], /, **values: Any) -> C | Deny | None:
        """Fire ``event`` when anyone listens: build its context from the run's common fields
        and ``values``, dispatch it, and return the context as the handlers left it, or the
        ``Deny`` that refused the step; ``None`` when nobody listens. While tools of the run
        run in parallel, its handler chains take turns (``serial``)."""
        if event not in self.bus.listened:
            return None
        ctx = cls(**self.context_fields, **values)
        if self.serial is None:
            deny = await self.bus.dispatch(event, ctx)
        else:
            async with self.serial:
                deny = await self.bus.dispatch(event, ctx)
        return ctx if deny is None else deny

    def switch_to(self, agent: Agent) -> None:
        """A handoff: the rest of the run belongs to ``agent``. Its events still fire on the
        run's bus, and the guards of ``agent``'s own bus run too (a stream turns gated when
        they guard ``post_agent``)."""
        if agent.has_own_bus and agent.bus is not self.bus:
            self.bus = self.bus.with_guards_of(agent.bus)
            self.gated = self.gated or bool(self.bus.guards("post_agent"))
        self.agent = agent
        self.branch = self.branch_of(agent)
        self.model = agent.model
        self.provider = agent.provider
        if all(agent is not capped for capped, _ in self.caps):
            self.caps += ((agent, self._usage),)
            self.capped = self.capped or _has_cap(agent)
        if agent.memory is not None:
            self.memory = agent.memory.bind(self)
        self.refresh_fields()

    async def commit(self, message: ChatMessage) -> None:
        """Append ``message`` to history and the working transcript, then ``on_message``."""
        self.append(message)
        await self.fire("on_message", MessageContext, message=message)

    def append(self, message: ChatMessage) -> None:
        """``commit`` without the event."""
        self.history.append(message)
        self.messages.append(message)
        self.new_messages.append(message)
        if message.tool_calls:
            for call in message.tool_calls:
                self.open_calls[call.id] = call
        elif message.tool_call_id is not None:
            self.open_calls.pop(message.tool_call_id, None)

    def close_open_calls(self, text: str) -> list[ChatMessage]:
        """Write an error tool message for every open call, without awaiting (teardown)."""
        closed = []
        for call in list(self.open_calls.values()):
            message = new_message("tool", text, tool_call_id=call.id, is_error=True, name=call.name)
            self.history.append(message)
            self.messages.append(message)
            self.new_messages.append(message)
            closed.append(message)
        self.open_calls.clear()
        return closed

    async def announce(self, messages: list[ChatMessage]) -> None:
        """``on_message`` for messages already appended."""
        for message in messages:
            await self.fire("on_message", MessageContext, message=message)

    async def send(self, item: StreamEvent) -> None:
        """Pass a stream item to the consumer of ``chat_stream()``, if there is one."""
        if self.sink is not None:
            await self.sink(item)


def _has_cap(agent: Agent) -> bool:
    return agent.max_total_tokens is not None or agent.max_cost is not None


_PREFIX = uuid.uuid4().hex[:12]
_counter = itertools.count(1)


def common(ctx: EventContext) -> dict[str, Any]:
    """The common fields of ``ctx``, to start the next context of the same step (a context
    made outside a run: a bridge's)."""
    return {name: getattr(ctx, name) for name in COMMON}


COMMON = tuple(EventContext.model_fields)
"""The fields every context carries."""


def new_message(
    role: Literal["system", "user", "assistant", "tool"],
    content: str | None,
    tool_calls: list[ToolCall] | None = None,
    *,
    tool_call_id: str | None = None,
    is_error: bool = False,
    name: str | None = None,
    thinking_blocks: list[Any] | None = None,
) -> ChatMessage:
    """A message the run writes itself, every field given (it reports each as set, as a
    message a provider sent does)."""
    return ChatMessage(
        role=role,
        content=content,
        tool_calls=[] if tool_calls is None else tool_calls,
        tool_call_id=tool_call_id,
        is_error=is_error,
        name=name,
        thinking_blocks=[] if thinking_blocks is None else thinking_blocks,
    )


def new_id() -> str:
    """A fresh identifier, unique across processes (random prefix) and cheap (a counter)."""
    return f"{_PREFIX}-{next(_counter)}"


# --- the handler chains of a run take turns while its tools run in parallel ------------


class HookTurn:
    """One handler chain of a run at a time, while its tools run in parallel: events fired
    from inside those tools (memory, sub-agent events) and the batch's after-events wait for
    each other. Re-entrant for the task holding it (a handler may fire a nested event)."""

    __slots__ = ("_lock", "_owner", "_depth")

    def __init__(self) -> None:
        self._lock = asyncio.Lock()
        self._owner: asyncio.Task[Any] | None = None
        self._depth = 0

    async def __aenter__(self) -> None:
        task = asyncio.current_task()
        if self._owner is not task:
            await self._lock.acquire()
            self._owner = task
        self._depth += 1

    async def __aexit__(self, *exc: object) -> None:
        self._depth -= 1
        if self._depth == 0:
            self._owner = None
            self._lock.release()


__all__ = [
    "COMMON",
    "NO_USAGE",
    "HookTurn",
    "Run",
    "Sink",
    "common",
    "new_id",
    "new_message",
]
