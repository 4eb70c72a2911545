"""``AgentHooksPlugin``: a Strands plugin that runs a HookBus's hooks, guards and middleware on
a Strands agent.

Where each event comes from:

- the agent-stream middleware stage (one invocation pass) opens the ``BridgeRun``: it fires
  ``on_chat_start`` / ``on_user_message`` (or ``on_run_resumed`` after an interrupt), ends the
  run with exactly one terminal event whatever happens inside, and gives a denied start its
  reason as the final answer;
- the model stage (``InvokeModelStage``) is one turn: ``on_loop_start``, then the model call
  through ``pre_request`` / the bus's provider middleware / ``on_model_error`` / ``on_response``;
  a final answer passes ``post_agent`` before Strands commits it;
- the tool stage (``ExecuteToolStage``) is one tool call through ``pre_tool_call`` / the bus's
  tool middleware / ``on_tool_call_error`` / ``on_tool_call_result``; an ``Ask`` pauses through a
  Strands interrupt;
- ``MessageAddedEvent`` gives ``on_message`` (and closes a tool turn with ``on_loop_end``);
  ``AfterToolsEvent`` ends the run after a batch every call of which asked to ``terminate``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import weakref
from collections.abc import AsyncGenerator, Callable, Mapping
from typing import TYPE_CHECKING, Any, cast

from strands.hooks import AfterInvocationEvent, AfterToolsEvent, MessageAddedEvent
from strands.interrupt import InterruptException
from strands.middleware import ExecuteToolStage, InvokeModelStage, ModelStopReason, ToolResultEvent
from strands.middleware._agent_stream import AgentStreamStage
from strands.plugins import Plugin
from strands.types._events import EventLoopStopEvent, TextStreamEvent

from agenthooks import (
    AgentHooksError,
    AgentResponse,
    Approve,
    ChatMessage,
    Deny,
    HookBus,
    PendingCall,
    ProviderResponse,
    ToolCall,
)
from agenthooks.bridges import (
    PAUSED_RUNS,
    STORED_KEY,
    SUBAGENT_EVENTS,
    Answer,
    BridgeRun,
    BridgeStream,
    BridgeTool,
    ToolOutcome,
    cancel_requested,
    delegate,
)
from agenthooks.errors import (
    ToolError,
    ToolValidationError,
    UnknownToolError,
    UnsupportedReturnError,
    ends_run,
)
from agenthooks.events import (
    GROUPS,
    PreAgentContext,
    ToolCallErrorContext,
    TransformContextContext,
)

from .capabilities import CAPABILITIES
from .tools import bridge_tool
from .translate import (
    Known,
    RequestView,
    from_chat_messages,
    message_text,
    message_to_chat,
    response_back,
    system_back,
    to_chat_messages,
    to_request,
    to_response,
    to_usage,
    tool_result_text,
    tool_specs_back,
    usage_back,
)

if TYPE_CHECKING:
    from strands import Agent
    from strands.middleware import ExecuteToolContext, InvokeModelContext
    from strands.middleware._agent_stream import AgentStreamContext
    from strands.types.content import Message
    from strands.types.tools import ToolResult, ToolSpec

    from agenthooks.messages import FinishReason

APPROVAL = "agenthooks.approval"
"""The name of the Strands interrupt an ``Ask`` raises (``result.interrupts[i].name``)."""

_MODEL_EVENTS = GROUPS["model_call"] | {"transform_context"}
_INPUT = frozenset({"on_chat_start", "on_user_message", "pre_agent", "post_agent"})
_FINAL = frozenset({"end_turn", "stop_sequence", "max_tokens"})
_TOOL_EVENTS = GROUPS["tool_call"]
_FINISH: dict[str, FinishReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "content_filtered": "content_filter",
    "guardrail_intervened": "content_filter",
}

Next = Callable[[Any], AsyncGenerator[Any, None]]


class _State:
    """What the bridge keeps about one Strands invocation pass."""

    __slots__ = (
        "run",
        "input",
        "answer",
        "failure",
        "terminate",
        "last_text",
        "between",
        "model_id",
        "resumed",
        "known",
        "said",
        "started",
        "quiet_model",
        "quiet_tools",
        "heard",
    )

    def __init__(self, run: BridgeRun, input: str, bus: HookBus) -> None:
        self.run = run
        listened = bus.listened
        # decided once per run: a stage nobody hears passes Strands' events through untouched
        stacks = bus.stacks
        # a post_agent guard (a redaction) gates the stream, as on our runtime: the answer's
        # text reaches the caller once it passed post_agent
        self.quiet_model = (
            not stacks.get("provider")
            and _MODEL_EVENTS.isdisjoint(listened)
            and not bus.guards("post_agent")
        )
        self.quiet_tools = not stacks.get("tool") and (_TOOL_EVENTS | SUBAGENT_EVENTS).isdisjoint(
            listened
        )
        self.heard = bool(listened)
        self.input = input
        self.answer: Answer | None = None
        """The final answer as ``post_agent`` left it (``None`` until one passed)."""
        self.failure: BaseException | None = None
        """An error of ours (a hook raised, a return the bridge cannot honour): the run ends
        with it, and the model never reads it."""
        self.terminate: dict[str, bool] = {}
        self.last_text: str | None = None
        self.between: list[ChatMessage] | None = None
        """The transcript after a turn's tool results: the next model call is a next turn."""
        self.model_id = ""
        self.resumed = False
        self.known: Known = {}
        self.said: tuple[Any, list[ChatMessage]] | None = None
        self.started = False
        """The messages of earlier model calls of the run, as read (by tracking id)."""
        """The run continues a paused one: its calls may carry a human's answer."""


class AgentHooksPlugin(Plugin):
    """Run a ``HookBus``'s hooks, guards and middleware on a Strands agent.

    ``Agent(model=..., tools=..., plugins=[AgentHooksPlugin(bus)])``. One plugin may serve
    several agents; each invocation of an agent is one agenthooks run.

    Args:
        bus: The bus whose handlers, guards and middleware apply.

    An ``Ask`` from ``pre_tool_call`` pauses the agent with a Strands interrupt named
    ``agenthooks.approval`` (``result.stop_reason == "interrupt"``); resume with
    ``agent([{"interruptResponse": {"interruptId": i.id, "response": Approve()}}])``:
    ``Approve()`` or ``True`` run the call, ``Deny(reason)`` or ``False`` refuse it (the
    reason is its tool message). ``{"approved": bool, "reason": str}`` says the same in JSON,
    for a session that is stored between the pause and the answer.
    """

    name = "agenthooks"

    def __init__(self, bus: HookBus) -> None:
        super().__init__()
        self.bus = bus
        self._states: dict[int, _State] = {}
        self._bridge_tools: weakref.WeakKeyDictionary[Any, BridgeTool] = weakref.WeakKeyDictionary()
        self._added: weakref.WeakKeyDictionary[Any, set[str]] = weakref.WeakKeyDictionary()
        self._added_strong: dict[int, set[str]] = {}

    def init_agent(self, agent: Agent) -> None:
        """Register the bridge's middleware and hooks on ``agent`` (Strands calls this).

        The model and tool stages join the agent at the start of the first run whose bus hears
        them: an agent whose bus hears nothing keeps Strands' own model and tool calls, with
        not one layer more.
        """
        agent.add_middleware(AgentStreamStage, self._stream)
        agent.add_hook(self._message_added, MessageAddedEvent)
        agent.add_hook(self._after_tools, AfterToolsEvent)
        agent.add_hook(self._after_invocation, AfterInvocationEvent)

    # --- the run ---------------------------------------------------------------------------

    async def _stream(self, ctx: AgentStreamContext, next_fn: Next) -> AsyncGenerator[Any, None]:
        agent = ctx.agent
        key = id(agent)
        if key in self._states:  # a nested pass of a run already open (never expected)
            async for event in next_fn(ctx):
                yield event
            return
        # Strands hands a pass the interrupts it resumes (empty otherwise): ours carry the run
        asked = [
            i for i in ctx._interrupts.values() if i.name == APPROVAL and isinstance(i.reason, dict)
        ]
        text = _user_text(ctx.messages) if not _INPUT.isdisjoint(self.bus.listened) else ""
        if asked:  # the paused run goes on
            run_id = str(asked[0].reason.get("run_id") or "") or None
        else:
            run_id = _trace_id(agent)
        run = BridgeRun(
            self.bus,
            CAPABILITIES,
            agent=str(getattr(agent, "name", None) or "agent"),
            run_id=run_id,
            session_id=getattr(agent, "session_id", None),
        )
        state = _State(run, text, self.bus)
        state.resumed = bool(asked)
        self._stages(agent, state)
        self._states[key] = state
        try:
            async with run:
                try:
                    if asked:
                        await self._resumed(run, asked, agent)
                    else:
                        names = agent.tool_names if run.listened("on_chat_start") else []
                        got = await run.start(text, tools=names)
                        if isinstance(got, Deny):
                            answer = run.denied_response(got)
                            yield _stop_event(agent, ctx, answer.content or "")
                            await run.done(answer)
                            return
                        if got != text:
                            ctx = dataclasses.replace(
                                ctx, messages=_rewrite_user(ctx.messages, got)
                            )
                        state.input = got
                    stop: EventLoopStopEvent | None = None
                    async for event in next_fn(ctx):
                        if isinstance(event, EventLoopStopEvent):
                            stop = event
                        yield event
                except GeneratorExit:
                    # the caller stopped reading the stream: the run is aborted
                    await run.abort("stream closed")
                    raise
                except Exception as exc:
                    raise _ours(state, exc) from None
                if state.failure is not None:
                    raise state.failure
                if stop is not None:
                    await self._finish(state, stop, agent)
        finally:
            if self._states.get(key) is state:
                del self._states[key]
            run.detach()

    async def _pre_agent(self, run: BridgeRun, text: str) -> AgentResponse | Deny | None:
        """``pre_agent``: the answer that skips the agent, the denial, or ``None`` to run it."""
        if not run.listened("pre_agent"):
            return None
        got = await run.fire("pre_agent", PreAgentContext, input=text)
        if isinstance(got, Deny):
            CAPABILITIES.require("pre_agent", "deny")
            return got
        if isinstance(got, PreAgentContext) and got.response is not None:
            CAPABILITIES.require("pre_agent", "response")
            return got.response
        return None

    async def _skipped(self, state: _State, skip: AgentResponse | Deny) -> ModelStopReason:
        """The model call a ``pre_agent`` return replaces: a denial's reason ends the run
        (``post_agent`` does not fire); a short-circuit's answer passes ``post_agent``."""
        if isinstance(skip, Deny):
            denied = state.run.denied_response(skip)
            state.answer, text = denied, denied.content
        else:
            text = skip.content
        stop = ModelStopReason(
            stop_reason="end_turn",
            message={"role": "assistant", "content": [{"text": text or ""}]},
            usage={"inputTokens": 0, "outputTokens": 0, "totalTokens": 0},
            metrics={"latencyMs": 0},
        )
        return stop if isinstance(skip, Deny) else await self._settle(state, stop)

    def _stages(self, agent: Any, state: _State) -> None:
        """Add the model and tool stages to ``agent`` once a run's bus hears them."""
        try:
            added = self._added.setdefault(agent, set())
        except TypeError:  # an agent that cannot be weakly referenced: both stages, at once
            added = self._added_strong.setdefault(id(agent), set())
        if state.heard and "model" not in added:
            added.add("model")
            agent.add_middleware(InvokeModelStage, self._model)
        if not state.quiet_tools and "tool" not in added:
            added.add("tool")
            agent.add_middleware(ExecuteToolStage, self._tool)

    async def _resumed(self, run: BridgeRun, asked: list[Any], agent: Any) -> None:
        """``on_run_resumed``: the calls the run waited on and the answers it resumes with."""
        decisions = {
            str(i.reason.get("tool_call_id", "")): _decision(i.response)
            for i in asked
            if i.response is not None
        }
        pending = _pending(asked)
        # the run goes on with its turns, tool calls, usage and plugins' state, as its pause
        # left them in this process, or in agent.state (a session manager restored it in
        # another); its id is in the interrupts' reasons
        carried = PAUSED_RUNS.resume(
            [(PAUSE_KEY, run.run_id)], agent.state.get(STORED_KEY), run.run_id
        )
        if carried is not None:
            run.resume_from(carried)
            if agent.state.get(STORED_KEY) is not None:  # a run resumes once
                agent.state.delete(STORED_KEY)
        await run.resumed(pending, decisions)

    async def _finish(self, state: _State, stop: EventLoopStopEvent, agent: Any) -> None:
        run = state.run
        stop_reason, message, _metrics, _request_state, interrupts, structured, *_ = stop["stop"]
        if stop_reason == "interrupt":
            pending = _pending(
                [i for i in interrupts or () if i.name == APPROVAL and isinstance(i.reason, dict)]
            )
            try:
                await run.paused(lambda: run.answer(None, "paused", pending=pending))
            finally:  # the interrupts resume it: its counts and plugins' state wait there,
                # and in agent.state, which Strands' session managers persist with the
                # interrupts, for a resume in another process
                carried = run.carry(pending)
                PAUSED_RUNS.keep([(PAUSE_KEY, run.run_id)], carried)
                agent.state.set(STORED_KEY, carried.dump())
            return
        if stop_reason == "cancelled":
            await run.abort("cancelled")
            return
        answer = state.answer
        await run.done(
            answer
            if answer is not None
            else lambda: run.answer(
                message_text(message), _finish_reason(stop_reason), output=structured
            )
        )

    async def _after_invocation(self, event: AfterInvocationEvent) -> None:
        # Strands ends its pass here, also when the caller closed the stream early: the pass's
        # generators are then left to the garbage collector, so our stage never sees the close
        key = id(event.agent)
        state = self._states.get(key)
        if state is not None and state.run.ended is None:
            del self._states[key]
            state.run.detach()  # here, in the caller's context: the stage closes later, elsewhere
            await state.run.abort("stream closed")

    # --- one model turn --------------------------------------------------------------------

    async def _model(self, ctx: InvokeModelContext, next_fn: Next) -> AsyncGenerator[Any, None]:
        state = self._states.get(id(ctx.agent))
        if state is None:
            async for event in next_fn(ctx):
                yield event
            return
        run = state.run
        try:
            if not state.started:
                # the agent starts its work once the user message is in: pre_agent
                state.started = True
                if not state.resumed:
                    skip = await self._pre_agent(run, state.input)
                    if skip is not None:
                        yield await self._skipped(state, skip)
                        return
            if state.between is not None:
                transcript, state.between = state.between, None
                if await self._between_turns(state, transcript):
                    yield await self._stopped(state)
                    return
            await run.loop_start()
            if state.quiet_model:
                # no model hook hears the call: it streams through untouched, and nothing is
                # translated unless a stream observer listens
                stream = run.stream(_view(ctx, state.known).request) if run.stream_heard else None
                stop: ModelStopReason | None = None
                try:
                    if stream is not None:
                        await stream.start()
                    async for event in next_fn(ctx):
                        if isinstance(event, ModelStopReason):
                            stop = event
                            continue
                        if stream is not None:
                            await _chunk(stream, event)
                        yield event
                except Exception as exc:
                    if stream is not None:
                        await stream.error(exc)
                    raise
                if stop is None:
                    return
                if stream is not None:
                    await stream.end(to_response(stop.stop_reason, stop.message, stop.usage))
                if state.heard:
                    run.add_usage(to_usage(stop.usage))
                yield await self._settle(state, stop)
                return
            async for event in self._hooked_model(state, ctx, next_fn, []):
                yield event
        except Exception as exc:
            raise _ours(state, exc) from None

    async def _between_turns(self, state: _State, transcript: list[ChatMessage]) -> bool:
        """Between two turns (``BridgeRun.between_turns``); True when a handler stops the
        run. Strands calls the agent's own model with the agent's transcript, so no return
        of ``prepare_next_turn`` can be honoured (the declaration says so)."""
        run = state.run
        if not run.between_turns_heard:
            return False
        assistant = next((m for m in reversed(transcript) if m.role == "assistant"), None)
        count = len(assistant.tool_calls) if assistant is not None else 0
        turn = await run.between_turns(
            message=assistant,
            tool_messages=transcript[len(transcript) - count :] if count else [],
            new_messages=transcript,
            messages=transcript,
            model=state.model_id,
        )
        return turn.stop

    async def _stopped(self, state: _State) -> ModelStopReason:
        """A ``should_stop`` ended the run: the last assistant text is the answer."""
        run = state.run
        got = await run.post_agent(run.stopped_response(state.last_text), input=state.input)
        state.answer = run.denied_response(got) if isinstance(got, Deny) else got
        return ModelStopReason(
            stop_reason="end_turn",
            message={"role": "assistant", "content": [{"text": state.answer.content or ""}]},
            usage={"inputTokens": 0, "outputTokens": 0, "totalTokens": 0},
            metrics={"latencyMs": 0},
        )

    async def _hooked_model(
        self, state: _State, ctx: InvokeModelContext, next_fn: Next, buffered: list[Any]
    ) -> AsyncGenerator[Any, None]:
        run = state.run
        view = _view(ctx, state.known)
        state.model_id = view.request.model
        request = view.request
        if run.listened("transform_context"):
            shaped = await run.fire(
                "transform_context", TransformContextContext, messages=list(request.messages)
            )
            if isinstance(shaped, TransformContextContext) and shaped.messages != request.messages:
                CAPABILITIES.require("transform_context", "messages")
                request = request.model_copy(update={"messages": list(shaped.messages)})
        seen: dict[str, Any] = {}

        async def call(request: Any) -> ProviderResponse:
            call_ctx = ctx
            if request is not view.request and request != view.request:
                _require_same_call(view.request, request)
                call_ctx = ctx.replace(
                    messages=cast(
                        "list[Message]", from_chat_messages(request.messages, view.transcript)
                    ),
                    system_prompt=system_back(request.system, view.system_prompt),
                    tool_specs=cast(
                        "list[ToolSpec]", tool_specs_back(request.tools, view.tool_specs)
                    ),
                )
            # the run's lock is held across the call (model_call): stream observers are
            # dispatched directly
            stream = run.stream(request)
            stop: ModelStopReason | None = None
            try:
                if stream is not None:
                    await stream.start()
                async for event in next_fn(call_ctx):
                    if isinstance(event, ModelStopReason):
                        stop = event
                        continue
                    if stream is not None:
                        await _chunk(stream, event)
                    buffered.append(event)
            except Exception as exc:
                if stream is not None:
                    await stream.error(exc)
                raise
            if stop is None:
                raise RuntimeError("the Strands model stage ended without a ModelStopReason")
            chat = message_to_chat(stop.message)[0]
            response = to_response(stop.stop_reason, stop.message, stop.usage, chat)
            seen["chat"] = chat
            if stream is not None:
                await stream.end(response)
            seen["stop"], seen["response"] = stop, response
            return response

        got = await run.model_call(request, call)
        if isinstance(got, Deny):
            for event in buffered:  # the streamed text is withheld: the reason is the answer
                if not isinstance(event, TextStreamEvent):
                    yield event
            # a run-ending deny: the reason is the answer, post_agent does not fire
            answer = run.denied_response(got)
            state.answer = answer
            await run.loop_end()
            yield ModelStopReason(
                stop_reason="end_turn",
                message={"role": "assistant", "content": [{"text": answer.content or ""}]},
                usage={"inputTokens": 0, "outputTokens": 0, "totalTokens": 0},
                metrics={"latencyMs": 0},
            )
            return
        original: ModelStopReason | None = seen.get("stop")
        if original is not None and (got is seen["response"] or got == seen["response"]):
            stop = original
            # Strands commits this very message: on_message reads it as the call did
            state.said = (original.message, [seen["chat"]])
        else:
            stop_reason, message = response_back(got, original.message if original else None)
            stop = ModelStopReason(
                stop_reason=stop_reason,  # type: ignore[arg-type]
                message=message,  # type: ignore[arg-type]
                usage=usage_back(got.usage),  # type: ignore[arg-type]
                metrics=original.metrics if original else {"latencyMs": 0},
            )
        settled = await self._settle(state, stop)
        # the caller reads the text the hooks left (a redaction, a rewrite), never the text
        # the model streamed: the deltas go out once the answer passed its hooks
        final = message_text(settled.message) or ""
        streamed = "".join(str(e["data"]) for e in buffered if isinstance(e, TextStreamEvent))
        for event in buffered:
            if streamed == final or not isinstance(event, TextStreamEvent):
                yield event
        if streamed != final and final:
            yield TextStreamEvent(delta={"text": final}, text=final)
        yield settled

    async def _settle(self, state: _State, stop: ModelStopReason) -> ModelStopReason:
        """The model's answer as Strands will commit it: a final answer passes ``post_agent``
        first (its turn ends before), as on our runtime."""
        message = stop.message
        blocks = message.get("content", [])
        text = message_text(message)
        state.last_text = text
        if any("toolUse" in b for b in blocks) or stop.stop_reason not in _FINAL:
            return stop
        run = state.run
        await run.loop_end()
        usage, iterations = run.usage, run.iterations

        def answer() -> AgentResponse:
            # built only for a handler that hears the answer (post_agent, the run's end),
            # without validation, every field given (pydantic inspects a default factory's
            # signature on each model_construct): every value is one of ours already
            return AgentResponse.model_construct(
                content=text,
                finish_reason=_finish_reason(stop.stop_reason),
                messages=[],
                usage=usage,
                iterations=iterations,
                agent=run.agent,
                output=None,
                pending=[],
            )

        got = await run.post_agent(answer, input=state.input)
        if isinstance(got, Deny):
            got = run.denied_response(got)
        state.answer = got
        if not isinstance(got, AgentResponse) or got.content == text:
            return stop
        rewritten = ProviderResponse(
            content=got.content, finish_reason="stop", usage=to_usage(stop.usage)
        )
        _, new_message = response_back(rewritten, message)
        return ModelStopReason(
            stop_reason=stop.stop_reason,
            message=new_message,  # type: ignore[arg-type]
            usage=stop.usage,
            metrics=stop.metrics,
        )

    # --- one tool call ---------------------------------------------------------------------

    async def _tool(self, ctx: ExecuteToolContext, next_fn: Next) -> AsyncGenerator[Any, None]:
        state = self._states.get(id(ctx.agent))
        if state is None or state.quiet_tools:
            async for event in next_fn(ctx):
                yield event
            return
        if ctx.tool is None:
            name = ctx.tool_use["name"]
            unknown = UnknownToolError(f"the agent has no tool {name!r}")
            try:
                events = [
                    e
                    async for e in self._refused(state, ctx, next_fn, None, unknown, "unknown_tool")
                ]
            except Exception as exc:  # ours: see below
                if state.failure is None:
                    state.failure = exc
                events = [
                    _error_result(
                        str(ctx.tool_use["toolUseId"]), f'Tool call "{name}" did not complete'
                    )
                ]
            for event in events:
                yield event
            return
        run = state.run
        tool_use = ctx.tool_use
        call_id = str(tool_use["toolUseId"])
        tool = self._tool_of(ctx.tool)
        try:
            answer = _answer(ctx) if state.resumed else None
            if isinstance(answer, Deny):
                reason = answer.text(tool.name)
                await run.fire(
                    "on_tool_call_error",
                    ToolCallErrorContext,
                    call=ToolCall(
                        id=call_id, name=tool.name, arguments=dict(tool_use.get("input") or {})
                    ),
                    tool=tool,
                    tool_call_id=call_id,
                    error=reason,
                    source="denied",
                )
                yield _error_result(call_id, reason)
                return
            raw_input = tool_use.get("input") or {}
            try:
                arguments = tool.validate(dict(raw_input))
            except ToolValidationError as exc:
                async for event in self._refused(state, ctx, next_fn, tool, exc, "validation"):
                    yield event
                return
            call = ToolCall(id=call_id, name=tool.name, arguments=arguments)
            buffered: list[Any] = []
            seen: dict[str, Any] = {}

            async def invoke(args: dict[str, Any]) -> Any:
                subagent = _subagent(ctx.tool)
                if subagent is None:
                    return await run_body(args)
                task = args.get("input")
                return await delegate(
                    run,
                    subagent,
                    task if isinstance(task, str) else json.dumps(args),
                    call_id,
                    lambda: run_body(args),
                )

            async def run_body(args: dict[str, Any]) -> Any:
                # unchanged arguments: the body gets the model's input, as Strands gives it
                # (a @tool validates it again, to the same values)
                call_ctx = (
                    ctx if args == arguments else ctx.replace(tool_use={**tool_use, "input": args})
                )
                result: ToolResultEvent | None = None
                async for event in next_fn(call_ctx):
                    if isinstance(event, ToolResultEvent):
                        result = event
                    else:
                        buffered.append(event)
                if result is None:  # the tool was interrupted: Strands halts the agent
                    seen["interrupted"] = True
                    return None
                seen["event"] = result
                if result.exception is not None:
                    raise result.exception
                value = _result_value(result.tool_result)
                seen["value"] = value
                return value

            outcome = await run.tool_call(call, tool, invoke, approved=answer is not None)
        except InterruptException:
            raise
        except (Exception, asyncio.CancelledError) as exc:
            # ours (a hook raised, an unsupported return, a handler's CancelledError): the model
            # never reads it; the call's tool message says only that it did not complete, and
            # the run ends with the error (a cancellation: on_chat_abort), never as a tool error
            # Strands would report to the model and go on from. The caller's own cancellation
            # goes on as it is.
            if isinstance(exc, asyncio.CancelledError) and cancel_requested():
                raise
            if state.failure is None:
                state.failure = exc
            yield _error_result(call_id, f'Tool call "{tool.name}" did not complete')
            return
        for event in buffered:
            yield event
        if seen.get("interrupted"):
            return
        if outcome.asked is not None:
            ctx.interrupt(
                APPROVAL,
                reason={
                    "run_id": run.run_id,
                    "tool_call_id": call_id,
                    "tool": call.name,
                    "arguments": dict(outcome.call.arguments),
                    "reason": outcome.asked,
                },
            )
        if outcome.terminate:
            state.terminate[call_id] = True
        yield _result_event(outcome, seen, call_id)

    def _tool_of(self, agent_tool: Any) -> BridgeTool:
        """The ``BridgeTool`` of a Strands tool, built once per tool object."""
        try:
            tool = self._bridge_tools.get(agent_tool)
        except TypeError:  # a tool that cannot be weakly referenced: described per call
            return bridge_tool(agent_tool)
        if tool is None:
            tool = self._bridge_tools[agent_tool] = bridge_tool(agent_tool)
        return tool

    async def _refused(
        self,
        state: _State,
        ctx: ExecuteToolContext,
        next_fn: Next,
        tool: BridgeTool | None,
        exc: ToolError,
        source: str,
    ) -> AsyncGenerator[Any, None]:
        """A call Strands will refuse (arguments the tool's own schema rejects, a tool it does
        not have): ``on_tool_call_error`` (``source`` ``"validation"`` or
        ``"unknown_tool"``) hears it and may recover or reword it; else Strands reports it as
        it would."""
        tool_use = ctx.tool_use
        call_id = str(tool_use["toolUseId"])
        arguments = tool_use.get("input")
        call = ToolCall(
            id=call_id,
            name=str(tool_use["name"]),
            arguments=dict(arguments) if isinstance(arguments, dict) else {},
        )
        outcome = await state.run.tool_failed(call, tool, exc, source)
        if outcome.error is None:  # a handler recovered: the model reads its result
            yield ToolResultEvent(
                {
                    "toolUseId": call_id,
                    "status": "success",
                    "content": [{"text": outcome.text or ""}],
                }
            )
            return
        if outcome.error is not exc:  # a handler reworded the error
            yield _error_result(call_id, outcome.error_text())
            return
        async for event in next_fn(ctx):
            yield event

    # --- messages and batches --------------------------------------------------------------

    async def _message_added(self, event: MessageAddedEvent) -> None:
        state = self._states.get(id(event.agent))
        if state is None:
            return
        run = state.run
        message = event.message
        results = any("toolResult" in b for b in message.get("content", []))
        if run.listened("on_message"):
            said = state.said
            if said is not None and said[0] is message:
                chats = said[1]
            else:
                chats = to_chat_messages([message]).messages
            for chat in chats:
                await run.message(chat)
        if results:
            await run.loop_end()
            if state.failure is not None:
                raise state.failure
            if run.listened("prepare_next_turn") or run.listened("should_stop"):
                state.between = to_chat_messages(event.agent.messages).messages

    async def _after_tools(self, event: AfterToolsEvent) -> None:
        state = self._states.get(id(event.agent))
        if state is None or not state.terminate:
            return
        ids = [
            str(b["toolResult"]["toolUseId"])
            for b in event.message.get("content", [])
            if "toolResult" in b
        ]
        every = bool(ids) and all(state.terminate.get(i) for i in ids)
        state.terminate.clear()
        if not every:
            return
        run = state.run
        got = await run.post_agent(run.answer(state.last_text, "terminated"), input=state.input)
        state.answer = run.denied_response(got) if isinstance(got, Deny) else got
        text = state.answer.content
        event.end_turn = [{"text": text}] if text else True


# --- helpers -------------------------------------------------------------------------------


async def _chunk(stream: BridgeStream, event: Any) -> None:
    """``on_stream_chunk`` for a text delta Strands streams (its other events are not text)."""
    if isinstance(event, TextStreamEvent):
        await stream.chunk(str(event["data"]))


def _ours(state: _State, exc: Exception) -> BaseException:
    """The error the caller gets: ours unwrapped from Strands' ``EventLoopException``."""
    failure = state.failure
    if failure is not None:
        seen: BaseException | None = exc
        while seen is not None:
            if seen is failure:
                return failure
            seen = seen.__cause__
    cause = exc.__cause__
    if type(exc).__name__ == "EventLoopException" and cause is not None and _hook_error(cause):
        return cause
    return exc


_PER_AGENT = ("model", "temperature", "reasoning_effort", "response_format", "tool_choice")


def _require_same_call(original: Any, request: Any) -> None:
    """A request rewrite may change the messages, the instructions and the tools; the model and
    its settings belong to the Strands agent's ``Model``, not to one call."""
    for field in _PER_AGENT:
        if getattr(request, field) != getattr(original, field):
            # a hook's return, not the model's failure: ends_run keeps it from on_model_error
            raise UnsupportedReturnError(
                "pre_request",
                f"request.{field}",
                CAPABILITIES.framework,
                f"Strands calls the agent's own Model; its {field} is set on that Model, "
                "not per call",
            )


def _hook_error(exc: BaseException) -> bool:
    # the core's own test (a hook raised, a StopRun, our store failed), and our own errors
    return ends_run(exc) or isinstance(exc, AgentHooksError)


def _view(ctx: InvokeModelContext, known: Known) -> RequestView:
    model_id = _model_id(ctx.model)
    return to_request(
        ctx.messages, ctx.system_prompt, ctx.tool_specs, ctx.tool_choice, model_id, known
    )


def _finish_reason(stop_reason: str) -> FinishReason:
    # Strands' own limits (limits={"turns": ...}) end a run gracefully: "stopped", as ours do
    if stop_reason.startswith("limit_"):
        return "stopped"
    return _FINISH.get(stop_reason, "stop")


def _model_id(model: Any) -> str:
    config = getattr(model, "config", None)
    return str(config.get("model_id", "") or "") if isinstance(config, dict) else ""


def _user_text(messages: list[Any]) -> str:
    for message in reversed(messages):
        if message.get("role") == "user":
            chats = message_to_chat(message)
            texts = [c.content for c in chats if c.role == "user" and c.content]
            return "".join(texts)
    return ""


def _rewrite_user(messages: list[Any], text: str) -> list[Any]:
    transcript = to_chat_messages(messages)
    chats = list(transcript.messages)
    for index in range(len(chats) - 1, -1, -1):
        if chats[index].role == "user":
            chats[index] = chats[index].model_copy(update={"content": text})
            break
    return from_chat_messages(chats, transcript)


def _trace_id(agent: Any) -> str | None:
    span = getattr(agent, "trace_span", None)
    if span is None:
        return None
    context = span.get_span_context()
    if not context.is_valid:
        return None
    return f"{context.trace_id:032x}"


def _stop_event(agent: Any, ctx: AgentStreamContext, text: str) -> EventLoopStopEvent:
    message = {"role": "assistant", "content": [{"text": text}]}
    return EventLoopStopEvent(
        "end_turn",
        message,  # type: ignore[arg-type]
        agent.event_loop_metrics,
        ctx.invocation_state.get("request_state", {}),
    )


def _answer(ctx: ExecuteToolContext) -> Approve | Deny | None:
    """A human's answer to this call's approval interrupt, when the agent resumed with one."""
    try:
        response = ctx.interrupt(APPROVAL).response
    except InterruptException:
        return None
    return _decision(response)


def _pending(asked: list[Any]) -> list[PendingCall]:
    """The calls our approval interrupts wait on, from what each interrupt carries."""
    return [
        PendingCall(
            call_id=str(i.reason.get("tool_call_id", "")),
            tool=str(i.reason.get("tool", "")),
            arguments=dict(i.reason.get("arguments", {})),
            reason=str(i.reason.get("reason", "")),
        )
        for i in asked
    ]


def _subagent(tool: Any) -> str | None:
    """The name of the agent ``tool`` runs (``agent.as_tool()``: a tool of type ``"agent"``),
    else ``None``."""
    if getattr(tool, "tool_type", None) != "agent":
        return None
    agent = getattr(tool, "agent", None)
    name = getattr(agent, "name", None)
    return name if isinstance(name, str) else str(tool.tool_name)


def _decision(response: Any) -> Approve | Deny:
    if isinstance(response, Approve | Deny):
        return response
    if response is True:
        return Approve()
    if isinstance(response, dict):
        if response.get("approved"):
            return Approve()
        return Deny(response.get("reason") or None)
    return Deny(response if isinstance(response, str) and response else None)


def _result_value(result: Mapping[str, Any]) -> Any:
    """What hooks see as a tool's result: its text (text and JSON parts), or its content
    blocks as they are when they hold more than text (an image)."""
    content = result.get("content", [])
    if all("text" in b or "json" in b for b in content):
        return tool_result_text(result)
    return content


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def _error_result(call_id: str, text: str) -> ToolResultEvent:
    return ToolResultEvent({"toolUseId": call_id, "status": "error", "content": [{"text": text}]})


def _result_event(outcome: ToolOutcome, seen: dict[str, Any], call_id: str) -> ToolResultEvent:
    """The outcome as the ``ToolResultEvent`` Strands acts on: the tool's own event when the
    hooks changed nothing, else one written from the outcome."""
    original: ToolResultEvent | None = seen.get("event")
    if outcome.error is not None:
        if original is not None and outcome.error is original.exception:
            return original
        exc = outcome.error if isinstance(outcome.error, Exception) else None
        return ToolResultEvent(
            {"toolUseId": call_id, "status": "error", "content": [{"text": outcome.error_text()}]},
            exception=exc,
        )
    if original is not None and "value" in seen and outcome.result is seen["value"]:
        return original
    result = outcome.result
    if isinstance(result, list) and all(isinstance(b, dict) for b in result):
        content: list[dict[str, Any]] = list(result)
    else:
        text = outcome.text if outcome.text is not None else _text(result)
        kept: list[dict[str, Any]] = []
        if original is not None:
            kept = [
                dict(b)
                for b in original.tool_result.get("content", [])
                if "text" not in b and "json" not in b
            ]
        content = [{"text": text}, *kept]
    result_block = {"toolUseId": call_id, "status": "success", "content": content}
    return ToolResultEvent(cast("ToolResult", result_block))


PAUSE_KEY = "strands"
"""The namespace of this bridge's paused runs in ``PAUSED_RUNS`` (by run id)."""

__all__ = ["APPROVAL", "AgentHooksPlugin"]
