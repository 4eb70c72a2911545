"""``AgentHooksPlugin``: an ADK plugin that reports every run of a Runner (or App) to a
``HookBus`` and carries out what its handlers return.

Each ADK invocation is one agenthooks run (its ``run_id`` is ADK's invocation id):

- ``on_user_message_callback`` → ``on_chat_start``, ``on_user_message`` (a rewrite replaces
  the message ADK stores and runs on), the user message (``on_message``); a resumed
  invocation (the answer to a tool confirmation) → ``on_run_resumed`` instead.
- ``before_run_callback``: a ``Deny`` at the start ends the invocation with its reason as the
  model's answer (ADK's own early exit), so the caller gets the reason as the final response
  and ``on_chat_done`` fires with ``finish_reason="denied"``.
- ``before_model_callback`` … ``after_model_callback`` / ``on_model_error_callback``: one
  model turn (``on_loop_start``) and the model call through the hook layer and the bus's
  provider middleware (see ``handoff``).
- ``before_tool_callback`` … ``after_tool_callback`` / ``on_tool_error_callback``: one tool
  call through the hook layer and the bus's tool middleware; ``Ask`` pauses through ADK's
  tool confirmation.
- ``on_event_callback``: the final answer → ``on_loop_end``, ``post_agent`` (a rewrite
  replaces the answer the caller gets and the session keeps), ``on_message``.
- The end: ``after_run_callback`` (done, paused, or aborted: ADK's abort signal or a caller
  that stopped reading), ``on_run_error_callback`` (error, with the exception ADK raises);
  ADK calls neither when the run is cancelled, so the bridge watches the task that runs the
  root agent: ending cancelled before the run ended, it ends the run with ``on_chat_abort``.
  Exactly one terminal event and ``on_chat_end`` per run.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from google.adk.agents.base_agent import BaseAgent
from google.adk.agents.callback_context import CallbackContext
from google.adk.agents.invocation_context import InvocationContext
from google.adk.agents.llm_agent import LlmAgent
from google.adk.agents.readonly_context import ReadonlyContext
from google.adk.events.event import Event
from google.adk.events.event_actions import EventActions
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.plugins.base_plugin import BasePlugin
from google.adk.tools.agent_tool import AgentTool
from google.adk.tools.base_tool import BaseTool
from google.adk.tools.function_tool import FunctionTool
from google.adk.tools.tool_confirmation import ToolConfirmation
from google.adk.tools.tool_context import ToolContext
from google.adk.tools.transfer_to_agent_tool import TransferToAgentTool
from google.genai import types

from agenthooks import Approve, Ask, Deny, HookBus
from agenthooks.bridges import (
    PAUSED_RUNS,
    STORED_KEY,
    BridgeRun,
    BridgeStream,
    BridgeTool,
    ToolOutcome,
    cancel_requested,
    enter_run,
    leave_run,
)
from agenthooks.errors import ToolValidationError
from agenthooks.events import (
    GROUPS,
    OnHandoffContext,
    PreHandoffContext,
    SubagentStartContext,
    SubagentStopContext,
)
from agenthooks.messages import (
    AgentResponse,
    ChatMessage,
    PendingCall,
    ProviderRequest,
    ProviderResponse,
    ToolCall,
)

from .capabilities import CAPABILITIES
from .handoff import Handoff, Pending, finish, start
from .tools import bridge_tool
from .translate import (
    RequestView,
    answer_content,
    patch_text,
    read_request,
    read_response,
    result_text,
    text_of,
    tool_response,
    usage_of,
    write_request,
    write_response,
)

_MODEL_EVENTS = GROUPS["model_call"]
_TOOL_EVENTS = GROUPS["tool_call"]
_STREAM_EVENTS = frozenset(
    {"on_stream_start", "on_stream_chunk", "on_stream_end", "on_stream_error"}
)
CONFIRMATION = "adk_request_confirmation"
"""The function ADK asks a human to answer to confirm a tool call."""
WAITING = "This tool call requires confirmation, please approve or reject."
"""What ADK stores as a paused call's response until it is answered (ADK's own words)."""
REJECTED = "This tool call is rejected."


class HandlerCancelled(Exception):
    """A handler raised ``CancelledError`` inside an ADK callback: the run ends cancelled
    (``on_chat_abort``) and the caller gets this (ADK wraps it), chained from the error."""


@dataclass
class _ModelCall:
    pending: Pending[ProviderRequest, ProviderResponse, ProviderResponse | Deny]
    view: RequestView
    llm_request: LlmRequest
    agent: str
    read: ProviderResponse | None = None


@dataclass
class _ToolCall:
    pending: Pending[dict[str, Any], Any, ToolOutcome]


@dataclass
class _Run:
    """What the bridge keeps about one ADK invocation."""

    run: BridgeRun
    invocation: InvocationContext
    input: str = ""
    denied: Deny | None = None
    """A ``Deny`` that ended the run (its start, a model call): the answer is its reason."""
    final: AgentResponse | None = None
    answer: str | None = None
    answered_run: bool = False
    """The run answered (``answer``) and nobody heard ``post_agent``: ``final`` is built
    from the answer at the end."""
    paused: list[PendingCall] = field(default_factory=list)
    terminated: bool = False
    models: dict[asyncio.Task[Any] | None, _ModelCall] = field(default_factory=dict)
    tools: dict[str, _ToolCall] = field(default_factory=dict)
    answered: set[str] = field(default_factory=set)
    """Calls the hook layer answered in ``before_tool_callback`` (ADK still runs its
    after-tool callbacks for them)."""
    rejected: dict[str, str] = field(default_factory=dict)
    streams: dict[asyncio.Task[Any] | None, BridgeStream] = field(default_factory=dict)
    delegations: dict[str, tuple[float, str, Any]] = field(default_factory=dict)
    """Handoffs and sub-agent calls in flight: when, to which agent, the parent token."""
    watched: bool = False
    tasks: dict[asyncio.Task[Any], Callable[[asyncio.Task[Any]], None]] = field(
        default_factory=dict
    )
    """The tasks watched for a cancellation (``_watch``)."""
    carried_in_session: bool = False
    """The run resumed from counts its pause kept in the session's state (``_stored``)."""


class AgentHooksPlugin(BasePlugin):
    """Reports every run of an ADK ``App`` to ``bus``.

    ``Runner(app=App(name=..., root_agent=agent, plugins=[AgentHooksPlugin(bus)]),
    session_service=...)``. Put it first in ``plugins``: ADK skips the plugins after one whose
    callback answers.

    Args:
        bus: The bus whose handlers, guards and middleware apply to the agent's runs.
        name: The plugin's name in ADK (unique among a Runner's plugins).
    """

    def __init__(self, bus: HookBus, *, name: str = "agenthooks") -> None:
        super().__init__(name)
        self.bus = bus
        self._runs: dict[str, _Run] = {}
        self._tools: dict[Any, tuple[BaseTool, BridgeTool]] = {}
        self._endings: set[asyncio.Task[None]] = set()

    # --- runs -----------------------------------------------------------------------------

    def _open(self, ic: InvocationContext) -> _Run | None:
        state = self._runs.get(ic.invocation_id)
        if state is None:
            if not self.bus.listened and not self.bus.middleware:
                return None  # nothing hears this run: it runs exactly as without the bridge
            agent = ic.agent.name if isinstance(ic.agent, BaseAgent) else "agent"
            run = BridgeRun(
                self.bus,
                CAPABILITIES,
                agent=agent,
                run_id=ic.invocation_id,
                session_id=ic.session.id,
            )
            state = self._runs[ic.invocation_id] = _Run(run, ic)
        return state

    def _of(self, context: CallbackContext | ToolContext) -> _Run | None:
        state = self._runs.get(context.invocation_id)
        if state is None or state.run.ended is not None:
            return None
        return state

    async def _fail(self, state: _Run, exc: BaseException) -> None:
        """A failure of ours (a handler's, a typed denial) ends the run with it, before ADK
        wraps it in its RuntimeError; the caller re-raises it. A ``CancelledError`` a handler
        raised ends the run cancelled and crosses ADK as ``HandlerCancelled`` (raised here,
        chained from it): ADK would end the run quietly, with no answer and no error.

        Raises:
            HandlerCancelled: A handler raised ``CancelledError``.
        """
        if isinstance(exc, asyncio.CancelledError):
            if not cancel_requested():
                self._runs.pop(state.run.run_id, None)
                await asyncio.shield(state.run.abort("cancelled"))
                raise HandlerCancelled("a handler raised CancelledError") from exc
            # the caller's cancellation landed in a callback of ours: the run ends now
            self._runs.pop(state.run.run_id, None)
            self._unwatch(state)
            await asyncio.shield(state.run.abort("cancelled"))
            return
        self._runs.pop(state.run.run_id, None)
        await asyncio.shield(state.run.error(exc))

    def _watch(self, state: _Run) -> None:
        """ADK calls no callback for a cancelled run: watch the tasks running it (the
        caller's, which reads the run's events, and the one running its agents), so a
        cancellation wherever it lands (after the final answer too) ends the run."""
        task = asyncio.current_task()
        if task is None or task in state.tasks:
            return
        state.watched = True

        def ended(task: asyncio.Task[Any]) -> None:
            state.tasks.pop(task, None)
            for call in state.models.values():
                call.pending.handoff.drop()
            for tool in state.tools.values():
                tool.pending.handoff.drop()
            if not task.cancelled() or state.run.ended is not None:
                return
            if state.invocation.is_aborted and any(not t.done() for t in state.tasks):
                return  # ADK's abort signal: after_run_callback follows, from a task still on
            ending = task.get_loop().create_task(self._abort(state, "cancelled"))
            self._endings.add(ending)
            ending.add_done_callback(self._endings.discard)

        state.tasks[task] = ended
        task.add_done_callback(ended)

    def _unwatch(self, state: _Run) -> None:
        """The run ended: its tasks are no longer watched (a caller's long-lived task keeps no
        callback per run it ever made)."""
        for task, ended in state.tasks.items():
            task.remove_done_callback(ended)
        state.tasks.clear()

    async def _abort(self, state: _Run, reason: str) -> None:
        try:
            await state.run.abort(reason)
        finally:
            if self._runs.get(state.run.run_id) is state:
                del self._runs[state.run.run_id]

    async def on_user_message_callback(
        self, *, invocation_context: InvocationContext, user_message: types.Content
    ) -> types.Content | None:
        """``on_chat_start`` and ``on_user_message``, or ``on_run_resumed`` for the answer to
        a tool confirmation."""
        state = self._open(invocation_context)
        if state is None:
            return None
        run = state.run
        self._watch(state)  # the caller's task: a cancellation after the answer ends the run
        try:
            answers = [
                p.function_response
                for p in user_message.parts or ()
                if p.function_response is not None and p.function_response.name == CONFIRMATION
            ]
            if answers:
                await self._resumed(state, invocation_context, answers)
                return None
            message = text_of(user_message) or ""
            state.input = message
            tools: list[str] = []
            if run.listened("on_chat_start") and isinstance(invocation_context.agent, LlmAgent):
                agent = invocation_context.agent
                found = await agent.canonical_tools(ReadonlyContext(invocation_context))
                tools = [tool.name for tool in found]
            got = await run.start(message, tools=tools)
            if isinstance(got, Deny):
                state.denied = got
                return None
            state.input = got
            if run.listened("on_message"):
                await run.message(ChatMessage(role="user", content=got))
            if got != message:
                return patch_text(user_message, got)
            return None
        except BaseException as exc:
            await self._fail(state, exc)
            raise

    async def _resumed(
        self, state: _Run, ic: InvocationContext, answers: list[types.FunctionResponse]
    ) -> None:
        requests: dict[str, dict[str, Any]] = {}
        for event in ic.session.events:
            for fc in event.get_function_calls():
                if fc.name == CONFIRMATION and fc.id:
                    requests[fc.id] = dict(fc.args or {})
            if event.invocation_id == ic.invocation_id and event.author == "user":
                state.input = state.input or text_of(event.content) or ""
        pending: list[PendingCall] = []
        decisions: dict[str, Any] = {}
        for answer in answers:
            request = requests.get(answer.id or "", {})
            original = request.get("originalFunctionCall") or {}
            asked = request.get("toolConfirmation") or {}
            call_id = original.get("id") or answer.id or ""
            pending.append(
                PendingCall(
                    call_id=call_id,
                    tool=original.get("name", ""),
                    arguments=dict(original.get("args") or {}),
                    reason=asked.get("hint", ""),
                )
            )
            confirmation = ToolConfirmation.from_response_dict(answer.response or {})
            if confirmation.confirmed:
                decisions[call_id] = Approve()
            else:
                reason = _rejection(confirmation)
                state.rejected[call_id] = reason
                decisions[call_id] = Deny(reason)
        # the invocation goes on with its turns, tool calls, usage and plugins' state, as
        # its pause left them in this process, or in the session's state (a runner in
        # another process, on the same session service)
        stored = ic.session.state.get(_stored(state.run.run_id))
        state.carried_in_session = stored is not None
        carried = PAUSED_RUNS.resume([(PAUSE_KEY, state.run.run_id)], stored, state.run.run_id)
        if carried is not None:
            state.run.resume_from(carried)
        await state.run.resumed(pending, decisions)

    async def before_run_callback(
        self, *, invocation_context: InvocationContext
    ) -> types.Content | None:
        """A run denied at its start ends here, with the reason as the model's answer."""
        state = self._open(invocation_context)
        if state is not None and state.denied is not None:
            state.final = state.run.denied_response(state.denied)
            return answer_content(state.denied.text())
        return None

    async def before_agent_callback(
        self, *, agent: BaseAgent, callback_context: CallbackContext
    ) -> types.Content | None:
        """Watch the task that runs the agents (see ``_watch``)."""
        state = self._of(callback_context)
        if state is not None:
            self._watch(state)
            state.run.agent = agent.name  # after a transfer, the agent that now runs
        return None

    # --- model calls ------------------------------------------------------------------------

    async def before_model_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> LlmResponse | None:
        """A model turn starts; the hook layer runs up to ADK's model call (or answers)."""
        state = self._of(callback_context)
        if state is None:
            return None
        run = state.run
        try:
            self._watch(state)
            stale = state.models.pop(asyncio.current_task(), None)
            if stale is not None:
                # a call ADK never answered (nor did any event): it must not hold the run's
                # lock any longer
                stale.pending.handoff.drop()
                await asyncio.wait((stale.pending.task,))
            await run.loop_start()
            if not self.bus.middleware and _MODEL_EVENTS.isdisjoint(self.bus.listened):
                return None  # nobody listens: ADK calls its model as it would without us
            view = read_request(llm_request)

            async def again(request: ProviderRequest) -> ProviderResponse:
                agent = callback_context.get_invocation_context().agent
                return await _call_model(agent, view, request, llm_request)

            handoff: Handoff[ProviderRequest, ProviderResponse] = Handoff(again)
            pending, reached = await start(handoff, run.model_call(view.request, handoff))
            if reached:
                write_request(view, handoff.asked.result(), llm_request)
                state.models[asyncio.current_task()] = _ModelCall(
                    pending, view, llm_request, callback_context.agent_name
                )
                return None
            return await self._model_answer(state, await finish(pending), None)
        except BaseException as exc:
            await self._fail(state, exc)
            raise

    async def after_model_callback(
        self, *, callback_context: CallbackContext, llm_response: LlmResponse
    ) -> LlmResponse | None:
        """ADK's model answered: the hook layer's ``on_response`` and the answer ADK acts on.
        A streamed chunk (``StreamingMode.SSE``) passes through: ``on_stream_start`` /
        ``on_stream_chunk``, then ``on_stream_end`` with the complete response."""
        if llm_response.partial:
            # a guard on the answer (a redaction) gates the text: the caller reads the
            # complete response as the hooks left it, never the text the model streamed
            gated = bool(self.bus.guards("post_agent") or self.bus.guards("on_response"))
            if _STREAM_EVENTS.isdisjoint(self.bus.listened):
                return _withheld(llm_response) if gated else None
            heard = await self._chunk(callback_context, llm_response)
            return _withheld(llm_response) if gated else heard
        state = self._of(callback_context)
        if state is None:
            return None
        try:
            if state.streams:
                await self._stream_end(state, llm_response, None)
            call = state.models.pop(asyncio.current_task(), None)
            if call is None:
                if llm_response.usage_metadata is not None:
                    state.run.add_usage(usage_of(llm_response.usage_metadata))
                await self._assistant(state, llm_response)
                return None
            call.read = read_response(llm_response)
            call.pending.handoff.give(call.read)
            return await self._model_answer(state, await finish(call.pending), call)
        except BaseException as exc:
            await self._fail(state, exc)
            raise

    async def on_model_error_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest, error: Exception
    ) -> LlmResponse | None:
        """ADK's model raised: ``on_model_error`` may recover; otherwise ADK raises the
        error itself, with its type."""
        state = self._of(callback_context)
        if state is None:
            return None
        if state.streams:
            try:
                await self._stream_end(state, None, error)
            except BaseException as exc:
                await self._fail(state, exc)
                raise
        call = state.models.pop(asyncio.current_task(), None)
        if call is None:
            return None
        try:
            call.pending.handoff.fail(error)
            try:
                got = await finish(call.pending)
            except Exception as exc:
                if exc is error:
                    return None
                if exc.__cause__ is error:
                    CAPABILITIES.require("on_model_error", "error")
                raise
            return await self._model_answer(state, got, None)
        except BaseException as exc:
            await self._fail(state, exc)
            raise

    # --- streamed responses -----------------------------------------------------------------

    async def _chunk(
        self, callback_context: CallbackContext, llm_response: LlmResponse
    ) -> LlmResponse | None:
        state = self._of(callback_context)
        if state is None:
            return None
        task = asyncio.current_task()
        try:
            stream = state.streams.get(task)
            if stream is None:
                call = state.models.get(task)
                request = call.view.request if call is not None else ProviderRequest()
                stream = state.run.stream(request)
                if stream is None:
                    return None
                state.streams[task] = stream
                await stream.start()
            await stream.chunk(text_of(llm_response.content) or "")
            return None
        except BaseException as exc:
            await self._fail(state, exc)
            raise

    async def _stream_end(
        self, state: _Run, llm_response: LlmResponse | None, error: BaseException | None
    ) -> None:
        stream = state.streams.pop(asyncio.current_task(), None)
        if stream is None:
            return
        if error is not None:
            await stream.error(error)
            return
        assert llm_response is not None
        await stream.end(read_response(llm_response))

    async def _model_answer(
        self, state: _Run, got: ProviderResponse | Deny, call: _ModelCall | None
    ) -> LlmResponse | None:
        if isinstance(got, Deny):
            state.denied = got
            return LlmResponse(content=answer_content(got.text()))
        base = call.read.raw if call is not None and call.read is not None else None
        if call is not None and got is call.read:
            await self._assistant(state, got)
            return None
        response = write_response(got, base)
        await self._assistant(state, got)
        return None if response is base else response

    async def _assistant(self, state: _Run, read: ProviderResponse | LlmResponse) -> None:
        """``on_message`` for a model turn that calls tools (the final answer's comes after
        ``post_agent``)."""
        if not state.run.listened("on_message"):
            return
        if isinstance(read, LlmResponse):
            read = read_response(read)
        if read.tool_calls:
            await state.run.message(
                ChatMessage(
                    role="assistant",
                    content=read.content,
                    tool_calls=read.tool_calls,
                    thinking_blocks=read.thinking_blocks,
                )
            )

    # --- tool calls -------------------------------------------------------------------------

    def _bridge_tool(self, tool: BaseTool) -> BridgeTool:
        # ADK builds a FunctionTool for a plain function on every run: its description is
        # kept per function (and name), other tools per object
        key: Any = (tool.name, tool.func) if isinstance(tool, FunctionTool) else id(tool)
        known = self._tools.get(key)
        if known is None or (not isinstance(tool, FunctionTool) and known[0] is not tool):
            known = (tool, bridge_tool(tool))
            self._tools[key] = known
        return known[1]

    async def before_tool_callback(
        self, *, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext
    ) -> dict[str, Any] | None:
        """The hook layer runs up to the tool body (or answers the call itself); a
        ``transfer_to_agent`` call is a handoff (``pre_handoff``), an ``AgentTool`` call a
        sub-agent (``on_subagent_start``, and the sub-agent's run gets this run as its
        parent)."""
        if isinstance(tool, TransferToAgentTool):
            return await self._pre_handoff(tool_args, tool_context)
        answer = await self._before_tool(tool, tool_args, tool_context)
        if answer is None and isinstance(tool, AgentTool):
            await self._subagent_start(tool, tool_args, tool_context)
        return answer

    async def _before_tool(
        self, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext
    ) -> dict[str, Any] | None:
        state = self._of(tool_context)
        if state is None:
            return None
        run = state.run
        call_id = tool_context.function_call_id or ""
        try:
            confirmation = tool_context.tool_confirmation
            if confirmation is not None and not confirmation.confirmed:
                reason = state.rejected.get(call_id) or _rejection(confirmation)
                state.answered.add(call_id)
                await self._tool_message(state, call_id, tool.name, reason, True)
                return {"error": reason}
            if not self.bus.middleware and _TOOL_EVENTS.isdisjoint(self.bus.listened):
                return None  # nobody listens: ADK runs the tool as it would without us
            described = self._bridge_tool(tool)
            try:
                arguments = described.validate(dict(tool_args))
            except ToolValidationError as exc:
                state.answered.add(call_id)
                await self._tool_message(state, call_id, tool.name, str(exc), True)
                return {"error": str(exc)}
            call = ToolCall(id=call_id, name=tool.name, arguments=arguments)

            async def again(arguments: dict[str, Any]) -> Any:
                return await tool.run_async(args=arguments, tool_context=tool_context)

            handoff: Handoff[dict[str, Any], Any] = Handoff(again)
            approved = confirmation is not None and confirmation.confirmed
            layer = run.tool_call(call, described, handoff, approved=approved)
            pending, reached = await start(handoff, layer)
            if reached:
                given = handoff.asked.result()
                if given != tool_args:
                    tool_args.clear()
                    tool_args.update(given)
                state.tools[call_id] = _ToolCall(pending)
                return None
            outcome = await finish(pending)
            state.answered.add(call_id)
            if outcome.asked is not None:
                tool_context.request_confirmation(hint=outcome.asked)
                # a paused call is no result for the model to read: ADK ends the turn here
                tool_context.actions.skip_summarization = True
                state.paused.append(
                    PendingCall(
                        call_id=call_id,
                        tool=tool.name,
                        arguments=outcome.call.arguments,
                        reason=outcome.asked,
                    )
                )
                return {"error": WAITING}
            return await self._tool_answer(state, outcome, tool_context, None)
        except BaseException as exc:
            await self._fail(state, exc)
            raise

    async def after_tool_callback(
        self,
        *,
        tool: BaseTool,
        tool_args: dict[str, Any],
        tool_context: ToolContext,
        result: dict[str, Any],
    ) -> dict[str, Any] | None:
        """The tool body returned: ``on_tool_call_result`` and the result the model reads."""
        if isinstance(tool, (TransferToAgentTool, AgentTool)):
            await self._delegated(tool, tool_context, result, None)
            if isinstance(tool, TransferToAgentTool):
                return None
        return await self._after_tool(tool, tool_context, result)

    async def _after_tool(
        self, tool: BaseTool, tool_context: ToolContext, result: Any
    ) -> dict[str, Any] | None:
        state = self._of(tool_context)
        if state is None:
            return None
        call_id = tool_context.function_call_id or ""
        if call_id in state.answered:
            state.answered.discard(call_id)
            return None
        try:
            call = state.tools.pop(call_id, None)
            if call is None:
                if state.run.listened("on_message"):
                    await self._tool_message(state, call_id, tool.name, result_text(result), False)
                return None
            call.pending.handoff.give(result)
            outcome = await finish(call.pending)
            return await self._tool_answer(state, outcome, tool_context, result)
        except BaseException as exc:
            await self._fail(state, exc)
            raise

    async def on_tool_error_callback(
        self,
        *,
        tool: BaseTool,
        tool_args: dict[str, Any],
        tool_context: ToolContext,
        error: Exception,
    ) -> dict[str, Any] | None:
        """The tool body raised: ``on_tool_call_error`` sees the exception (with its type)
        and may recover; otherwise ADK raises it, as it does without the bridge."""
        if isinstance(tool, (TransferToAgentTool, AgentTool)):
            await self._delegated(tool, tool_context, None, error)
        state = self._of(tool_context)
        if state is None:
            return None
        call = state.tools.pop(tool_context.function_call_id or "", None)
        if call is None:
            return None
        if isinstance(error, asyncio.CancelledError):
            call.pending.task.cancel()  # ADK goes on cancelling: nothing to answer
            return None
        try:
            call.pending.handoff.fail(error)
            outcome = await finish(call.pending)
            if outcome.is_error and outcome.error is error and not outcome.terminate:
                return None  # ADK raises it, as without the bridge
            # recovered, reworded, or the run ends after the batch ({"terminate": True})
            return await self._tool_answer(state, outcome, tool_context, None)
        except BaseException as exc:
            await self._fail(state, exc)
            raise

    # --- handoffs and sub-agents ----------------------------------------------------------

    async def _pre_handoff(
        self, tool_args: dict[str, Any], tool_context: ToolContext
    ) -> dict[str, Any] | None:
        """``pre_handoff`` for ADK's ``transfer_to_agent``: a ``Deny`` keeps the current
        agent and the model reads the reason."""
        state = self._of(tool_context)
        if state is None:
            return None
        run = state.run
        call_id = tool_context.function_call_id or ""
        to_agent = str(tool_args.get("agent_name", ""))
        try:
            got = await run.fire(
                "pre_handoff",
                PreHandoffContext,
                from_agent=run.agent,
                to_agent=to_agent,
                tool_call_id=call_id,
            )
            if isinstance(got, Ask):
                CAPABILITIES.require("pre_handoff", "ask")
            if isinstance(got, Deny):
                reason = got.text()
                state.answered.add(call_id)
                await self._tool_message(state, call_id, "transfer_to_agent", reason, True)
                return {"error": reason}
            state.delegations[call_id] = (time.perf_counter(), to_agent, None)
            return None
        except BaseException as exc:
            await self._fail(state, exc)
            raise

    async def _subagent_start(
        self, tool: AgentTool, tool_args: dict[str, Any], tool_context: ToolContext
    ) -> None:
        state = self._of(tool_context)
        if state is None:
            return
        call_id = tool_context.function_call_id or ""
        # the sub-agent runs on a Runner of its own, in this task: its run's parent is ours
        token = enter_run(state.run)
        state.delegations[call_id] = (time.perf_counter(), tool.agent.name, token)
        task = tool_args.get("request", "")
        try:
            await state.run.fire(
                "on_subagent_start",
                SubagentStartContext,
                subagent=tool.agent.name,
                task=task if isinstance(task, str) else result_text(task),
                tool_call_id=call_id,
            )
        except BaseException as exc:
            await self._fail(state, exc)
            raise

    async def _delegated(
        self, tool: BaseTool, tool_context: ToolContext, result: Any, error: BaseException | None
    ) -> None:
        """``on_handoff`` after a transfer, ``on_subagent_stop`` after a sub-agent."""
        state = self._of(tool_context)
        if state is None:
            return
        call_id = tool_context.function_call_id or ""
        delegation = state.delegations.pop(call_id, None)
        if delegation is None:
            return
        started, to_agent, token = delegation
        if token is not None:
            leave_run(token)  # set in another context: it ends with it
        run = state.run
        try:
            if isinstance(tool, TransferToAgentTool):
                if error is None:
                    await run.fire(
                        "on_handoff",
                        OnHandoffContext,
                        from_agent=run.agent,
                        to_agent=to_agent,
                        tool_call_id=call_id,
                    )
                    await self._tool_message(state, call_id, tool.name, result_text(result), False)
                return
            await run.fire(
                "on_subagent_stop",
                SubagentStopContext,
                subagent=to_agent,
                tool_call_id=call_id,
                result=result,
                error=error,
                duration=time.perf_counter() - started,
            )
        except BaseException as exc:
            await self._fail(state, exc)
            raise

    async def _tool_answer(
        self,
        state: _Run,
        outcome: ToolOutcome,
        tool_context: ToolContext,
        result: Any,
    ) -> dict[str, Any] | None:
        """The outcome as ADK's function response (``None``: ADK's own ``result`` stands),
        and its tool message (``on_message``)."""
        call = outcome.call
        if outcome.terminate:
            CAPABILITIES.require("on_tool_call_result", "terminate")
            state.terminated = True
            tool_context.actions.skip_summarization = True
        if outcome.is_error:
            text = outcome.error_text()
            await self._tool_message(state, call.id, call.name, text, True)
            return {"error": text}
        text = outcome.text if outcome.text is not None else result_text(outcome.result)
        await self._tool_message(state, call.id, call.name, text, False)
        if result is not None and outcome.result is result:
            return None
        return tool_response(outcome.result)

    async def _tool_message(
        self, state: _Run, call_id: str, name: str, text: str, is_error: bool
    ) -> None:
        if state.run.listened("on_message"):
            await state.run.message(
                ChatMessage(
                    role="tool", content=text, tool_call_id=call_id, name=name, is_error=is_error
                )
            )

    # --- events and the end -----------------------------------------------------------------

    async def on_event_callback(
        self, *, invocation_context: InvocationContext, event: Event
    ) -> Event | None:
        """The final answer: ``on_loop_end``, ``post_agent`` (which may rewrite or withhold
        it: the caller and the session get what it left) and its ``on_message``."""
        if event.partial or event.author == "user" or event.content is None:
            return None
        state = self._runs.get(invocation_context.invocation_id)
        if state is None or state.run.ended is not None:
            return None
        answered = None
        if state.models and not event.get_function_responses():
            answered = await self._answered_elsewhere(state, event)
            if answered is not None:
                event = answered
        if event.error_code is not None or not event.is_final_response():
            return answered
        final = await self._final(state, event)
        return final if final is not None else answered

    async def _answered_elsewhere(self, state: _Run, event: Event) -> Event | None:
        """A model call the hook layer reached but ADK did not make: the agent's own
        ``before_model_callback`` answered it (ADK then calls no after-model callback). Its
        answer is the framework's answer: the hook layer ends with it (``on_response``)."""
        for key, call in list(state.models.items()):
            if call.agent != event.author:
                continue
            del state.models[key]
            response = LlmResponse(content=event.content, usage_metadata=event.usage_metadata)
            try:
                call.read = read_response(response)
                call.pending.handoff.give(call.read)
                got = await self._model_answer(state, await finish(call.pending), call)
            except BaseException as exc:
                await self._fail(state, exc)
                raise
            if got is None:
                return None
            return event.model_copy(update={"content": got.content})
        return None

    async def _final(self, state: _Run, event: Event) -> Event | None:
        run = state.run
        if state.denied is not None:
            state.final = run.denied_response(state.denied)
            return None
        if event.get_function_calls() or event.get_function_responses():
            if state.terminated:
                state.final = run.answer(None, "terminated")
            return None  # a pause (a confirmation asked) or a long-running call
        try:
            await run.loop_end()
            text = text_of(event.content)
            if not run.listened("post_agent") and not run.listened("on_message"):
                # the answer is built once, at the end
                state.answer, state.answered_run = text, True
                return None
            got = await run.post_agent(run.answer(text), input=state.input)
            final = run.denied_response(got) if isinstance(got, Deny) else got
            state.final = final
            if run.listened("on_message"):
                await run.message(ChatMessage(role="assistant", content=final.content))
            if final.content != text and event.content is not None:
                return event.model_copy(
                    update={"content": patch_text(event.content, final.content)}
                )
            return None
        except BaseException as exc:
            await self._fail(state, exc)
            raise

    async def after_run_callback(self, *, invocation_context: InvocationContext) -> None:
        """The invocation ended without an error: done, paused, or aborted."""
        state = self._runs.pop(invocation_context.invocation_id, None)
        if state is None:
            return
        self._unwatch(state)
        run = state.run
        if state.paused and not invocation_context.is_aborted:
            try:
                await run.paused(lambda: run.answer(None, "paused", pending=state.paused))
            finally:  # the confirmation resumes the invocation: its counts wait for it there,
                # and in the session's state, which the session service persists
                carried = run.carry(state.paused)
                PAUSED_RUNS.keep([(PAUSE_KEY, run.run_id)], carried)
                await _keep_in_session(invocation_context, {_stored(run.run_id): carried.dump()})
            return
        try:
            if invocation_context.is_aborted:
                await run.abort("aborted")
            elif state.final is not None:
                await run.done(state.final)
            elif state.answered_run:
                await run.done(lambda: run.answer(state.answer))
            else:
                # ADK ends a run whose caller stopped reading its events (an early close) the
                # way it ends a completed one
                await run.abort("the caller stopped reading the run's events")
        finally:
            if state.carried_in_session:  # a run resumes once: its stored counts are spent
                await _keep_in_session(invocation_context, {_stored(run.run_id): None})

    async def on_run_error_callback(
        self, *, invocation_context: InvocationContext, error: Exception
    ) -> None:
        """The invocation failed: ``on_chat_error`` with the exception ADK raises."""
        state = self._runs.pop(invocation_context.invocation_id, None)
        if state is not None:
            self._unwatch(state)
            await state.run.error(error)


async def _call_model(
    agent: Any, view: RequestView, request: ProviderRequest, llm_request: LlmRequest
) -> ProviderResponse:
    """Call the agent's model directly (a second call of one hook layer: a retry)."""
    again = llm_request.model_copy(deep=True)
    write_request(view, request, again)
    model = agent.canonical_model
    last: LlmResponse | None = None
    async for response in model.generate_content_async(again, stream=False):
        if not response.partial:
            last = response
    if last is None:
        raise RuntimeError(f"model {model.model!r} answered nothing")
    return read_response(last)


def _withheld(chunk: LlmResponse) -> LlmResponse:
    """A streamed chunk with its text taken out (what a gated stream passes on)."""
    content = chunk.content
    if content is None or not any(p.text for p in content.parts or ()):
        return chunk
    parts = [p for p in content.parts or () if not p.text]
    return chunk.model_copy(update={"content": content.model_copy(update={"parts": parts})})


def _rejection(confirmation: ToolConfirmation) -> str:
    payload = confirmation.payload
    if isinstance(payload, dict) and isinstance(payload.get("reason"), str):
        return str(payload["reason"])
    if isinstance(payload, str) and payload:
        return payload
    return REJECTED


PAUSE_KEY = "adk"
"""The namespace of this bridge's paused runs in ``PAUSED_RUNS`` (by invocation id)."""


def _stored(invocation_id: str) -> str:
    """The session state key of a paused invocation's counts (``Carried.dump()``)."""
    return f"{STORED_KEY}:{invocation_id}"


async def _keep_in_session(ic: InvocationContext, delta: dict[str, Any]) -> None:
    """Write ``delta`` into the session's state the way ADK persists state: an event whose
    ``EventActions.state_delta`` the session service applies and stores (it carries no
    content, so no model and no agent router reads it as a turn)."""
    event = Event(
        invocation_id=ic.invocation_id,
        # the agent that ran is the author ADK's own state writes carry
        author=ic.agent.name if ic.agent is not None else "agenthooks",
        actions=EventActions(state_delta=delta),
    )
    await ic.session_service.append_event(ic.session, event)


__all__ = ["AgentHooksPlugin"]
