"""One run of an agent another framework drives, as the bus sees it.

A bridge opens a ``BridgeRun`` per framework run and reports each lifecycle point to it; the
model and tool calls go through the same hook layers and middleware stacks as on our own
runtime (``pre_request`` ... ``on_response``, ``pre_tool_call`` ... ``on_tool_call_result``,
the bus's ``use(...)`` middleware inside them). The run's handlers never overlap, also when
the framework runs tool calls in parallel, and the run ends with exactly one terminal event.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from types import TracebackType
from typing import Any, TypeVar

from ..bus import HookBus
from ..decisions import Ask, Deny
from ..errors import AgentHooksError, StopRun
from ..events.catalog import GROUPS
from ..events.contexts import (
    ChatAbortContext,
    ChatDoneContext,
    ChatEndContext,
    ChatErrorContext,
    ChatPausedContext,
    ChatStartContext,
    EventContext,
    LoopEndContext,
    LoopStartContext,
    MessageContext,
    PostAgentContext,
    PreRequestContext,
    PreToolCallContext,
    RunResumedContext,
    StopContext,
    UserMessageContext,
)
from ..messages import (
    AgentResponse,
    ChatMessage,
    PendingCall,
    ProviderRequest,
    ProviderResponse,
    ToolCall,
    Usage,
)
from ..runtime.model_call import ModelHooks
from ..runtime.model_call import endpoint as model_endpoint
from ..runtime.run_state import new_id
from ..runtime.tool_call import ToolHooks, ToolOutcome, render, settle
from .capabilities import Capabilities
from .pausing import Carried
from .tool import BridgeTool

C = TypeVar("C", bound=EventContext)
ModelCall = Callable[[ProviderRequest], Awaitable[ProviderResponse]]
ToolInvoke = Callable[[dict[str, Any]], Awaitable[Any]]

_MODEL_EVENTS = GROUPS["model_call"]
_TOOL_EVENTS = GROUPS["tool_call"]


class BridgeError(AgentHooksError):
    """A bridge used its run out of order (a run that ended with no terminal event)."""


class FrameworkModel:
    """The framework's model call as the provider of ``pre_request``'s context: middleware
    (a cache, a retry) calls it through ``ctx.provider.complete`` like any provider."""

    __slots__ = ("call",)

    def __init__(self, call: ModelCall) -> None:
        self.call = call

    def complete(self, request: ProviderRequest) -> Awaitable[ProviderResponse]:
        """Call the framework's model with ``request`` (as the hooks left it)."""
        return self.call(request)

    def __repr__(self) -> str:
        return f"FrameworkModel({self.call!r})"


class BridgeRun:
    """One framework run reported to a bus.

    Args:
        bus: The bus whose handlers, guards and middleware apply.
        capabilities: The bridge's declaration (what it fires and honours).
        agent: The agent's name, on every context.
        run_id: The framework's own run id where it has one; a fresh id otherwise.
        session_id: The framework's conversation or session id, if any.
        parent_run_id: The run that started this one (a sub-agent's parent).

    Use it as an async context manager: an exception escaping the block ends the run with
    ``on_chat_error`` (``on_chat_abort`` for a cancellation) and ``on_chat_end``, and goes on
    to the caller unchanged.
    """

    def __init__(
        self,
        bus: HookBus,
        capabilities: Capabilities,
        *,
        agent: str,
        run_id: str | None = None,
        session_id: str | None = None,
        parent_run_id: str | None = None,
    ) -> None:
        self.bus = bus
        self.capabilities = capabilities
        self.agent = agent
        self.run_id = run_id or new_id()
        self.session_id = session_id
        self.parent_run_id = parent_run_id
        self.usage = Usage()
        self.iteration: int | None = None
        self.serial = asyncio.Lock()
        """Held while this run's handlers run: they never overlap."""
        self.denied_by: str | None = None
        """The event whose handler denied the run at its start, once one did."""
        self.ended: str | None = None
        """The terminal event once the run ended (``on_chat_done`` ...), else ``None``."""
        self.tool_calls = 0
        """The tool calls of the run the hooks saw (an asked call once it is answered)."""
        self.state: dict[str, Any] = {}
        """The plugins' per-run state a pause keeps (``on_chat_paused``'s ``state``)."""
        self._turn_open = False
        self._started = time.perf_counter()
        self._model_hooks = ModelHooks(bus)
        self._tool_hooks = ToolHooks(bus, serial=self.serial)

    # --- contexts and events -----------------------------------------------------------

    def base(self) -> dict[str, Any]:
        """The common fields every context of this run carries, as they are now."""
        return {
            "run_id": self.run_id,
            "parent_run_id": self.parent_run_id,
            "session_id": self.session_id,
            "agent": self.agent,
            "branch": self.agent,
            "iteration": self.iteration,
            "usage": self.usage,
            "signal": None,
        }

    def listened(self, event: str) -> bool:
        """Whether any handler (or record) hears ``event`` on this run's bus."""
        return event in self.bus.listened

    async def fire(self, event: str, cls: type[C], /, **values: Any) -> C | Deny | Ask | None:
        """Fire ``event`` with a ``cls`` context of this run and ``values``, under the run's
        lock. Returns the context as the handlers left it, the ``Deny`` or ``Ask`` that ended
        its chain, or ``None`` when nobody listens."""
        if event not in self.bus.listened:
            return None
        ctx = cls(**self.base(), **values)
        async with self.serial:
            decision = await self.bus.dispatch(event, ctx)
        return ctx if decision is None else decision

    # --- the start of a run --------------------------------------------------------------

    async def start(self, message: str, tools: Sequence[str] = ()) -> str | Deny:
        """``on_chat_start`` and ``on_user_message``: the user message the run goes on with
        (rewritten by a handler or not), or the ``Deny`` that refuses the run."""
        got = await self.fire("on_chat_start", ChatStartContext, message=message, tools=list(tools))
        if isinstance(got, Deny):
            self.capabilities.require("on_chat_start", "deny")
            self.denied_by = "on_chat_start"
            return got
        user = await self.fire("on_user_message", UserMessageContext, message=message)
        if isinstance(user, Deny):
            self.capabilities.require("on_user_message", "deny")
            self.denied_by = "on_user_message"
            return user
        if isinstance(user, UserMessageContext) and user.message != message:
            self.capabilities.require("on_user_message", "message")
            return user.message
        return message

    # --- turns, model calls, tool calls, messages ----------------------------------------

    async def loop_start(self) -> None:
        """A model turn starts: ``on_loop_end`` for an open turn, then ``on_loop_start``."""
        if self._turn_open:
            await self.loop_end()
        self.iteration = 0 if self.iteration is None else self.iteration + 1
        self._turn_open = True
        await self.fire("on_loop_start", LoopStartContext)

    async def loop_end(self) -> None:
        """The open turn ended (its tool results are in): ``on_loop_end``."""
        if self._turn_open:
            self._turn_open = False
            await self.fire("on_loop_end", LoopEndContext)

    async def model_call(
        self, request: ProviderRequest, call: ModelCall
    ) -> ProviderResponse | Deny:
        """One model call of the framework, through the hook layer and the bus's provider
        middleware: the response the framework goes on with, or the ``Deny`` that ends the
        run. The error of a call nothing recovered is raised unchanged."""
        bus = self.bus
        stack = bus.stacks.get("provider")
        if not stack and _MODEL_EVENTS.isdisjoint(bus.listened):
            response = await call(request)
        else:
            ctx = PreRequestContext(
                **self.base(),
                request=request,
                response=None,
                short_circuit=None,
                provider=FrameworkModel(call),
                stream=False,
                chunks_sent=0,
            )
            # not under the run's lock: the model calls of one run are sequential, and the
            # stream events of a call in flight fire through ``fire`` (which takes the lock)
            inner = stack.compose(model_endpoint) if stack else model_endpoint
            result = await self._model_hooks.wrap(ctx, inner)
            if ctx.short_circuit == "response":
                self.capabilities.require("pre_request", "response")
            if ctx.request is not request:
                self.capabilities.require("pre_request", "request")
            if isinstance(result, Deny):
                return result
            response = result
        self.usage = self.usage + response.usage
        return response

    async def tool_call(
        self, call: ToolCall, tool: BridgeTool, invoke: ToolInvoke, *, approved: bool = False
    ) -> ToolOutcome:
        """One tool call of the framework, through the hook layer and the bus's tool
        middleware. ``call.arguments`` are the validated arguments the tool body would get;
        ``invoke(arguments)`` runs the body with the arguments as the hooks left them.
        ``approved``: a human approved this call (a resumed pause); an ``Ask`` counts as
        ``None``. The outcome's ``asked`` is set when the call waits for a human."""
        bus = self.bus
        stack = bus.stacks.get("tool")
        if not stack and _TOOL_EVENTS.isdisjoint(bus.listened):
            self.tool_calls += 1
            return await settle(call, invoke, call.arguments)
        ctx = PreToolCallContext(
            **self.base(),
            call=call,
            tool=tool,
            tool_call_id=call.id,
            scope=None,
            short_circuit=None,
            result=None,
            error=None,
        )

        def body(ctx: PreToolCallContext) -> Awaitable[Any]:
            return invoke(ctx.call.arguments)

        inner = stack.compose(body) if stack else body
        outcome: ToolOutcome = await self._tool_hooks.wrap(ctx, inner, approved=approved)
        if outcome.asked is None:
            self.tool_calls += 1
        if outcome.text is None and outcome.error is None and outcome.asked is None:
            render(outcome)  # a result a hook gave or rewrote, written down as the model reads it
        if outcome.asked is not None:
            self.capabilities.require("pre_tool_call", "ask")
        elif outcome.call is not call and outcome.call.arguments != call.arguments:
            self.capabilities.require("pre_tool_call", "call")
        return outcome

    async def tool_failed(
        self,
        call: ToolCall,
        tool: BridgeTool | None,
        error: BaseException | str,
        source: str = "validation",
    ) -> ToolOutcome:
        """A call the framework refused before its tool could run (arguments that do not
        validate: ``source="validation"``; a tool it does not have: ``"unknown_tool"``):
        ``on_tool_call_error`` with that ``source``, where a handler may recover or replace
        the error, then ``on_tool_call_result`` for a recovered call."""
        outcome = ToolOutcome(call, error=error, source=source)
        self.tool_calls += 1
        if "on_tool_call_error" not in self.bus.listened:
            return outcome
        ctx = PreToolCallContext(
            **self.base(),
            call=call,
            tool=tool,
            tool_call_id=call.id,
            scope=None,
            short_circuit=None,
            result=None,
            error=None,
        )
        async with self.serial:
            outcome = await self._tool_hooks.after(ctx, outcome)
        if outcome.text is None and outcome.error is None:
            render(outcome)
        return outcome

    async def message(self, message: ChatMessage) -> None:
        """``on_message``: ``message`` joined the conversation."""
        await self.fire("on_message", MessageContext, message=message)

    async def post_agent(self, response: AgentResponse, input: str = "") -> AgentResponse | Deny:
        """``post_agent``: the answer the caller gets (rewritten or not), or the ``Deny``
        that withholds it."""
        got = await self.fire("post_agent", PostAgentContext, input=input, response=response)
        if isinstance(got, Deny):
            self.capabilities.require("post_agent", "deny")
            return got
        if isinstance(got, PostAgentContext) and got.response is not response:
            self.capabilities.require("post_agent", "response")
            return got.response
        return response

    # --- the end of a run ----------------------------------------------------------------

    def denied_response(self, deny: Deny, messages: Sequence[ChatMessage] = ()) -> AgentResponse:
        """The answer of a run a hook denied: the reason as its content."""
        return AgentResponse(
            content=deny.text(),
            finish_reason="denied",
            messages=list(messages),
            usage=self.usage,
            iterations=(self.iteration or 0) + (self.iteration is not None),
            agent=self.agent,
        )

    async def done(self, response: AgentResponse) -> None:
        """The run completed: ``on_chat_done``, then ``on_chat_end`` (once per run)."""
        if await self._ending("on_chat_done"):
            try:
                await self.fire("on_chat_done", ChatDoneContext, response=response)
            finally:  # on_chat_end comes whatever the terminal event's handlers raised
                await self._end(response=response)

    async def paused(self, response: AgentResponse) -> None:
        """The run waits for a human: ``on_chat_paused`` (its handlers keep their per-run
        state in ``state``: ``carry()`` has it afterwards), then ``on_chat_end``."""
        if await self._ending("on_chat_paused"):
            try:
                ctx = await self.fire(
                    "on_chat_paused", ChatPausedContext, response=response, state=self.state
                )
                if isinstance(ctx, ChatPausedContext):
                    self.state = ctx.state
            finally:  # on_chat_end comes whatever the terminal event's handlers raised
                await self._end(response=response)

    async def error(self, exc: BaseException) -> None:
        """The run failed with ``exc``: ``on_stop`` first for a ``StopRun``, then
        ``on_chat_error``, then ``on_chat_end``."""
        if await self._ending("on_chat_error"):
            try:
                if isinstance(exc, StopRun):  # a hook stopped the run: on_stop says why
                    await self.fire("on_stop", StopContext, reason=exc.reason)
                await self.fire("on_chat_error", ChatErrorContext, error=exc)
            finally:  # on_chat_end comes whatever the terminal event's handlers raised
                await self._end(error=exc)

    async def abort(self, reason: Any = "cancelled") -> None:
        """The run was cancelled: ``on_chat_abort``, then ``on_chat_end``."""
        if await self._ending("on_chat_abort"):
            try:
                await self.fire("on_chat_abort", ChatAbortContext, reason=reason)
            finally:  # on_chat_end comes whatever the terminal event's handlers raised
                await self._end()

    async def _ending(self, terminal: str) -> bool:
        if self.ended is not None:
            return False
        self.ended = terminal
        if self._turn_open:
            await self.loop_end()
        return True

    async def _end(
        self, response: AgentResponse | None = None, error: BaseException | None = None
    ) -> None:
        await self.fire(
            "on_chat_end",
            ChatEndContext,
            response=response,
            error=error,
            duration=time.perf_counter() - self._started,
        )

    # --- pause and resume (pausing.py) --------------------------------------------------

    def carry(self, pending: Sequence[PendingCall] = ()) -> Carried:
        """What the run carries across its pause: its id, counts, usage, the plugins'
        per-run state and the ``pending`` calls it waits on (call it after ``paused``, and
        file it in ``PAUSED_RUNS``)."""
        return Carried(
            run_id=self.run_id,
            iteration=self.iteration,
            tool_calls=self.tool_calls,
            usage=self.usage,
            state=dict(self.state),
            pending=list(pending),
        )

    def resume_from(self, carried: Carried) -> None:
        """Make this run (new, before any event) the paused run ``carried`` kept: its id,
        turns, tool calls, usage and plugins' state go on."""
        self.run_id = carried.run_id
        self.iteration = carried.iteration
        self.tool_calls = carried.tool_calls
        self.usage = carried.usage
        self.state = dict(carried.state)

    async def resumed(
        self, pending: Sequence[PendingCall], decisions: dict[str, Any], records: int = 0
    ) -> None:
        """``on_run_resumed``: the calls the run waited on, the answer per call id, and the
        plugins' per-run state its pause kept (``resume_from``)."""
        await self.fire(
            "on_run_resumed",
            RunResumedContext,
            pending=list(pending),
            decisions=dict(decisions),
            records=records,
            state=dict(self.state),
        )

    async def __aenter__(self) -> BridgeRun:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self.ended is not None:
            return
        if exc is None:
            await self.error(BridgeError(f"run {self.run_id} ended without an answer"))
        elif isinstance(exc, (asyncio.CancelledError, KeyboardInterrupt)):
            await asyncio.shield(self.abort("cancelled"))
        else:
            await self.error(exc)


__all__ = ["BridgeError", "BridgeRun", "FrameworkModel", "ModelCall", "ToolInvoke"]
