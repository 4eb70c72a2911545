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
from typing import Any, TypeVar, overload

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
    FinishReason,
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
from . import current
from .capabilities import Capabilities
from .lock import RunEnded, RunLock, cancel_requested
from .needs import check_bus
from .pausing import Carried
from .stream import BridgeStream
from .tool import BridgeTool
from .turns import NextTurn, between_turns

C = TypeVar("C", bound=EventContext)
ModelCall = Callable[[ProviderRequest], Awaitable[ProviderResponse]]
Answer = AgentResponse | Callable[[], AgentResponse]
"""A run's answer, or a function that builds it: the run calls it only when a handler hears
the event that carries the answer (``post_agent``, the terminal event, ``on_chat_end``), so a
run nobody listens to builds no answer."""
ToolInvoke = Callable[[dict[str, Any]], Awaitable[Any]]

_MODEL_EVENTS = GROUPS["model_call"]
_TOOL_EVENTS = GROUPS["tool_call"]
_STREAM_EVENTS = GROUPS["stream"]
_BETWEEN_TURNS = GROUPS["between_turns"]


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
    to the caller unchanged. Inside the block the run is the context's current run
    (``agenthooks.bridges.current_run()``): a run started there is its child.

    The end is the run's own: exactly one terminal event and ``on_chat_end``, whatever a
    handler raises or wherever a cancellation lands (``on_loop_end`` of the last turn
    included), and nothing of the run fires, and no gated tool body starts, after it.

    Raises:
        MissingEventError: A plugin on ``bus`` needs an event the bridge never fires.
        UnfiredEventError: A handler that may change the run is on such an event.
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
        if parent_run_id is None:
            parent = current.current_run()
            parent_run_id = parent.run_id if parent is not None else None
        self.parent_run_id = parent_run_id
        self.usage = Usage()
        self.iteration: int | None = None
        self.serial = RunLock(self.run_id)
        """Held while this run's handlers run: they never overlap."""
        self.closed = False
        """``on_chat_end`` fired: nothing of this run fires again."""
        self._teardown = False
        self._token: Any = None
        if bus.listened:
            check_bus(bus, capabilities)
        self.denied_by: str | None = None
        """The event whose handler denied the run at its start, once one did."""
        self.ended: str | None = None
        """The terminal event once the run ended (``on_chat_done`` ...), else ``None``."""
        self.tool_calls = 0
        """The tool calls of the run the hooks saw (an asked call once it is answered)."""
        self.state: dict[str, Any] = {}
        """The plugins' per-run state a pause keeps (``on_chat_paused``'s ``state``)."""
        self._turn_open = False
        self._built: tuple[Callable[[], AgentResponse], AgentResponse] | None = None
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
        if event not in self.bus.listened or self.closed:
            return None
        ctx = cls(**self.base(), **values)
        if self._teardown and self.serial.held_elsewhere() is not None:
            # the run is being torn down: it does not wait for a handler of it that holds the
            # lock in a task of its own (that handler was cancelled with the run)
            decision = await self.bus.dispatch(event, ctx)
        else:
            async with self.serial:
                decision = await self.bus.dispatch(event, ctx)
        return ctx if decision is None else decision

    @property
    def stream_heard(self) -> bool:
        """Whether any stream event has a listener (else a bridge need not translate the
        request a stream reports)."""
        return not _STREAM_EVENTS.isdisjoint(self.bus.listened)

    def stream(self, request: ProviderRequest) -> BridgeStream | None:
        """The stream events of one model call sending ``request``, or ``None`` when no
        stream event is heard (nothing to translate)."""
        if _STREAM_EVENTS.isdisjoint(self.bus.listened):
            return None
        return BridgeStream(self, request)

    def add_usage(self, usage: Usage) -> None:
        """Count ``usage`` (a model call the hook layer did not see) in the run's total."""
        self.usage = self.usage + usage

    # --- between turns -------------------------------------------------------------------

    @property
    def between_turns_heard(self) -> bool:
        """Whether ``prepare_next_turn`` or ``should_stop`` has a listener (else a bridge
        need not build the transcript ``between_turns`` reports)."""
        return not _BETWEEN_TURNS.isdisjoint(self.bus.listened)

    async def between_turns(
        self,
        *,
        message: ChatMessage | None,
        tool_messages: Sequence[ChatMessage] = (),
        new_messages: Sequence[ChatMessage] = (),
        messages: Sequence[ChatMessage] = (),
        provider: Any = None,
        model: str = "",
        thinking: str | None = None,
    ) -> NextTurn:
        """``prepare_next_turn`` then ``should_stop`` after a turn's tool results, with the
        fields of our runtime's turn loop: ``message`` (the turn's assistant message), its
        ``tool_messages``, the run's ``new_messages``, the working ``messages``, and the
        ``provider`` / ``model`` / ``thinking`` the next request would use. A return the
        bridge does not honour raises ``UnsupportedReturnError``."""
        return await between_turns(
            self,
            message=message,
            tool_messages=tool_messages,
            new_messages=new_messages,
            messages=messages,
            provider=provider,
            model=model,
            thinking=thinking,
        )

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
        if self.closed:
            raise RunEnded(f"run {self.run_id} ended; its model is not called again")
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
        if self.closed:
            raise RunEnded(f"run {self.run_id} ended; tool call {call.id} does not run")
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
            if self.closed:  # the run ended while its hooks ran: the body never starts
                raise RunEnded(f"run {self.run_id} ended; tool call {call.id} does not run")
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

    @overload
    async def post_agent(
        self, response: AgentResponse, input: str = ""
    ) -> AgentResponse | Deny: ...

    @overload
    async def post_agent(self, response: Answer, input: str = "") -> Answer | Deny: ...

    async def post_agent(self, response: Answer, input: str = "") -> Answer | Deny:
        """``post_agent``: the answer the caller gets (rewritten or not), or the ``Deny``
        that withholds it. ``response`` may be a function that builds the answer, called only
        when ``post_agent`` is heard. Unless a handler gave another answer, ``response``
        itself comes back (a function too): ``done`` then reports the answer the handlers
        saw, built once."""
        if "post_agent" not in self.bus.listened or self.closed:
            return response
        answer = self.built(response)
        got = await self.fire("post_agent", PostAgentContext, input=input, response=answer)
        if isinstance(got, Deny):
            self.capabilities.require("post_agent", "deny")
            return got
        if isinstance(got, PostAgentContext) and got.response is not answer:
            self.capabilities.require("post_agent", "response")
            return got.response
        return response

    # --- the end of a run ----------------------------------------------------------------

    @property
    def iterations(self) -> int:
        """The turns the run started so far."""
        return 0 if self.iteration is None else self.iteration + 1

    def answer(
        self,
        content: str | None,
        finish_reason: FinishReason = "stop",
        *,
        output: Any = None,
        messages: Sequence[ChatMessage] = (),
        pending: Sequence[PendingCall] = (),
    ) -> AgentResponse:
        """The run's answer as the caller gets it: ``content`` with the run's usage, turns
        and agent."""
        return AgentResponse(
            content=content,
            finish_reason=finish_reason,
            messages=list(messages),
            usage=self.usage,
            iterations=self.iterations,
            agent=self.agent,
            output=output,
            pending=list(pending),
        )

    def built(self, answer: Answer) -> AgentResponse:
        """``answer`` as an ``AgentResponse``: a function that builds it is called once, and
        the same answer comes back for it afterwards (``post_agent`` and ``done`` report the
        one object a handler may have changed in place)."""
        if isinstance(answer, AgentResponse):
            return answer
        if self._built is not None and self._built[0] is answer:
            return self._built[1]
        response = answer()
        self._built = (answer, response)
        return response

    def denied_response(self, deny: Deny, messages: Sequence[ChatMessage] = ()) -> AgentResponse:
        """The answer of a run a hook denied: the reason as its content."""
        return self.answer(deny.text(), "denied", messages=messages)

    def stopped_response(self, content: str | None, output: Any = None) -> AgentResponse:
        """The answer of a run ``should_stop`` ended between turns: the last assistant text
        (``finish_reason="stopped"``), as on our runtime."""
        return self.answer(content, "stopped", output=output)

    async def done(self, response: Answer) -> None:
        """The run completed: ``on_chat_done``, then ``on_chat_end`` (once per run). A
        handler of the open turn's ``on_loop_end`` that raises makes it ``on_chat_error``
        (a cancellation there: ``on_chat_abort``), and the error goes on to the caller.
        ``response`` may be a function that builds the answer: it is called only when
        ``on_chat_done`` or ``on_chat_end`` has a listener."""
        await self._close("on_chat_done", response=response)

    async def paused(self, response: Answer) -> None:
        """The run waits for a human: ``on_chat_paused`` (its handlers keep their per-run
        state in ``state``: ``carry()`` has it afterwards), then ``on_chat_end``.
        ``response`` may be a function that builds the answer, as for ``done``."""
        await self._close("on_chat_paused", response=response)

    async def error(self, exc: BaseException) -> None:
        """The run failed with ``exc``: ``on_stop`` first for a ``StopRun``, then
        ``on_chat_error``, then ``on_chat_end``."""
        await self._close("on_chat_error", error=exc)

    async def abort(self, reason: Any = "cancelled") -> None:
        """The run was cancelled: ``on_chat_abort``, then ``on_chat_end``."""
        await self._close("on_chat_abort", reason=reason)

    async def _close(
        self,
        terminal: str,
        *,
        response: Answer | None = None,
        error: BaseException | None = None,
        reason: Any = None,
    ) -> None:
        if self.ended is not None:
            return
        raised: BaseException | None = None
        if terminal in ("on_chat_done", "on_chat_paused") and cancel_requested():
            # the caller cancelled before the answer reached it: it gets the cancellation,
            # so the run ends aborted, not with an answer nobody receives
            terminal, reason, response = "on_chat_abort", "cancelled", None
            raised = asyncio.CancelledError()
        answer: AgentResponse | None = None
        if response is not None:
            # built here, as the run ends, and only for a handler that hears it: a run nobody
            # listens to builds no answer
            heard = self.bus.listened
            if terminal in heard or "on_chat_end" in heard:
                answer = self.built(response)
        self.ended = terminal
        if terminal == "on_chat_abort":
            self._tear_down()
        if self._turn_open:
            try:
                await self.loop_end()
            except BaseException as exc:  # a handler raised, or a cancellation landed there
                raised = raised or exc
                if terminal in ("on_chat_done", "on_chat_paused"):
                    # the run did not end as it was about to: it failed or was cancelled
                    answer = None
                    if isinstance(exc, (asyncio.CancelledError, KeyboardInterrupt)):
                        terminal, reason = "on_chat_abort", "cancelled"
                        self._tear_down()
                    else:
                        terminal, error = "on_chat_error", exc
                    self.ended = terminal
        try:
            if terminal == "on_chat_error" and isinstance(error, StopRun):
                await self._fire_end("on_stop", StopContext, reason=error.reason)
            if terminal == "on_chat_done":
                await self._fire_end("on_chat_done", ChatDoneContext, response=answer)
            elif terminal == "on_chat_paused":
                paused = await self._fire_end(
                    "on_chat_paused", ChatPausedContext, response=answer, state=self.state
                )
                if isinstance(paused, ChatPausedContext):
                    self.state = paused.state
            elif terminal == "on_chat_error":
                await self._fire_end("on_chat_error", ChatErrorContext, error=error)
            else:
                await self._fire_end("on_chat_abort", ChatAbortContext, reason=reason)
        except BaseException as exc:  # on_chat_end comes whatever the terminal handlers raised
            raised = raised or exc
        finally:
            try:
                await self._fire_end(
                    "on_chat_end",
                    ChatEndContext,
                    response=answer,
                    error=error,
                    duration=time.perf_counter() - self._started,
                )
            finally:
                self.closed = True
                self.serial.close()
        if raised is not None:
            raise raised

    def _tear_down(self) -> None:
        """The run is cancelled: a handler of it running in a task of its own (a framework's
        tool task holding the run's lock) is cancelled too, and the end does not wait for
        it: the caller gets the cancellation when it asked, not when the handler returns."""
        self._teardown = True
        holder = self.serial.held_elsewhere()
        if holder is not None:
            holder.cancel()

    async def _fire_end(self, event: str, cls: type[C], /, **values: Any) -> C | None:
        """An end event: under the run's lock, unless a handler of the run holds it in a task
        of its own (a cancelled run's tool task): the end does not wait for it. The context
        its handlers saw, or ``None`` when nobody listens."""
        if event not in self.bus.listened:
            return None
        ctx = cls(**self.base(), **values)
        if self._teardown and self.serial.held_elsewhere() is not None:
            await self.bus.dispatch(event, ctx)
            return ctx
        async with self.serial:
            await self.bus.dispatch(event, ctx)
        return ctx

    def detach(self) -> None:
        """Stop being this context's current run. ``async with`` does it at the end of the
        block; a framework that closes a run's generator from elsewhere (Strands leaves it
        to the garbage collector) calls this from the caller's context when the run ends."""
        token, self._token = self._token, None
        if token is not None:
            current.leave_run(token)

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
        self._token = current.enter_run(self)
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            if self.ended is not None:
                return
            if exc is None:
                await self.error(BridgeError(f"run {self.run_id} ended without an answer"))
            elif isinstance(exc, (asyncio.CancelledError, KeyboardInterrupt)):
                await asyncio.shield(self.abort("cancelled"))
            else:
                await self.error(exc)
        finally:
            self.detach()


__all__ = [
    "Answer",
    "BridgeError",
    "BridgeRun",
    "FrameworkModel",
    "ModelCall",
    "NextTurn",
    "RunEnded",
    "ToolInvoke",
]
