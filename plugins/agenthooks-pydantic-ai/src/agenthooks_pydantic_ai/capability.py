"""``AgentHooksCapability``: a Pydantic AI capability that reports every run to a HookBus.

It wraps the run (``wrap_run``), each model request (``wrap_model_request``) and each tool
execution (``wrap_tool_execute``), outermost in the capability chain, and hands each of them
to a ``BridgeRun``: the bus's events, hook layers and middleware stacks, the run's lock, and
exactly one terminal event per run. ``for_run`` gives every run its own instance, so one
capability serves concurrent runs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import replace
from typing import Any

from pydantic_ai import CallToolsNode, DeferredToolRequests, ToolDenied, UserPromptNode
from pydantic_ai.capabilities import AbstractCapability, CapabilityOrdering
from pydantic_ai.exceptions import (
    ApprovalRequired,
    ModelAPIError,
    ToolFailed,
    ToolFailedError,
    ToolRetryError,
)
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models import ModelRequestContext
from pydantic_ai.result import FinalResult
from pydantic_ai.run import AgentRunResult
from pydantic_ai.tools import RunContext, ToolDefinition
from pydantic_graph import End

from agenthooks import (
    AgentResponse,
    Approve,
    ChatMessage,
    ChatStartContext,
    Deny,
    HookBus,
    PendingCall,
    PreAgentContext,
    ProviderRequest,
    ProviderResponse,
    ToolCall,
    TransformContextContext,
)
from agenthooks.bridges import (
    PAUSED_RUNS,
    STORED_KEY,
    BridgeRun,
    Delegation,
    RunDenied,
    ToolOutcome,
    UnsupportedReturnError,
)
from agenthooks.errors import ProviderError
from agenthooks.events import GROUPS

from . import translate
from .approvals import ASK_REASON
from .capabilities import CAPABILITIES
from .tool_calls import (
    bridge_tool,
    framework_text,
    framework_tool_message,
    result_text,
    tool_message,
)

_MODEL_EVENTS = GROUPS["model_call"]
_TOOL_EVENTS = GROUPS["tool_call"]
_ANSWER_EVENTS = frozenset({"post_agent", "on_chat_done", "on_chat_paused", "on_chat_end"})
_delegating: ContextVar[Delegation | None] = ContextVar("agenthooks_pydantic_ai_tool", default=None)
"""The bridged tool call whose body is running: an agent run that starts inside it is a
sub-agent of that call (Pydantic AI's agent delegation: an agent called from a tool)."""
_UNREAD = AgentResponse()
"""The answer of a run whose answer no handler reads (nothing to build)."""


class AgentHooksCapability(AbstractCapability[Any]):
    """Run a Pydantic AI agent's hooks, guards, budgets and middleware from one HookBus.

    Add it to an agent (``Agent(model, capabilities=[AgentHooksCapability(bus)])``) or to a
    single run (``agent.run(prompt, capabilities=[...])``). It places itself outermost, so its
    hook layer wraps every other capability, as the hook layer wraps the middleware on
    agenthooks' own runtime.

    Args:
        bus: The bus whose handlers, guards and middleware apply to the agent's runs.
        agent: The agent's name on every context; default: the Pydantic AI agent's ``name``,
            else ``"agent"``.
    """

    def __init__(self, bus: HookBus, *, agent: str | None = None) -> None:
        if not isinstance(bus, HookBus):
            raise TypeError(
                f"AgentHooksCapability takes an agenthooks HookBus, not {type(bus).__name__}"
            )
        self.bus = bus
        self.agent = agent

    def __repr__(self) -> str:
        return f"AgentHooksCapability({self.bus!r})"

    def get_ordering(self) -> CapabilityOrdering:
        """Outermost: the hook layer sees what the model and the tools really get."""
        return CapabilityOrdering(position="outermost")

    async def for_run(self, ctx: RunContext[Any]) -> AbstractCapability[Any]:
        """A fresh instance holding this run's state."""
        return _RunHooks(self.bus, agent=self.agent)


class _RunHooks(AgentHooksCapability):
    """One run's instance: its ``BridgeRun`` and what the run carries between hooks."""

    def __init__(self, bus: HookBus, *, agent: str | None = None) -> None:
        super().__init__(bus, agent=agent)
        self.run: BridgeRun | None = None
        self.denied: Deny | None = None
        """A Deny that ends the run: the next model request answers with its reason."""
        self.denied_by = "on_chat_start"
        self.prompt = ""
        self.rewritten_prompt: str | list[Any] | None = None
        self.instead: AgentResponse | None = None
        """The answer a ``pre_agent`` handler gave in the agent's place."""
        self.stopped: str | None = None
        """Set when ``should_stop`` ended the run: its answer."""
        self.held: ChatMessage | None = None
        """The last assistant message without tool calls: announced (``on_message``) after
        ``post_agent`` when it is the answer, at the next turn when it is not."""
        self.history_length = 0
        self.scanned = 0
        """How many messages of the history ``_framework_results`` has looked at."""
        self.announced: set[str] = set()
        """The tool calls whose result ``on_message`` announced."""
        self.read: translate.ReadCache = {}
        """What each message of the run's history read as (each is read once)."""
        self.resuming: list[PendingCall] | None = None
        """The calls a resumed run waited on, until its ``on_run_resumed`` fired."""

    async def for_run(self, ctx: RunContext[Any]) -> AbstractCapability[Any]:
        return self

    # --- the run ----------------------------------------------------------------------

    async def wrap_run(
        self, ctx: RunContext[Any], *, handler: Callable[[], Any]
    ) -> AgentRunResult[Any]:
        bus = self.bus
        if not bus.listened and not any(bus.stacks.values()):
            # nobody listens and nothing wraps the calls: the run goes on as without the
            # bridge (decided once, at the start of the run)
            return await handler()  # type: ignore[no-any-return]
        name = self.agent or getattr(ctx.agent, "name", None) or "agent"
        run = BridgeRun(
            self.bus,
            CAPABILITIES,
            agent=name,
            run_id=ctx.run_id,
            session_id=ctx.conversation_id,
        )
        self.run = run
        self.history_length = len(ctx.messages)
        # an agent a tool of this run calls is a run of its own, whose parent is this one
        # (the run is the context's current run inside the block)
        async with run:
            await self._start(run, ctx)
            result: AgentRunResult[Any] = await handler()
            return await self._finish(run, result)
        raise AssertionError("unreachable: BridgeRun re-raises what ends the block")

    async def _start(self, run: BridgeRun, ctx: RunContext[Any]) -> None:
        tools = _tool_names(ctx) if run.listened("on_chat_start") else []
        prompt = ctx.prompt
        delegation = _delegating.get()
        if delegation is not None and delegation.run is not run:
            # an agent a bridged tool call runs: a sub-agent of that call
            task = prompt if isinstance(prompt, str) else _prompt_text(prompt or [])
            await delegation.start(run.agent, task)
        if prompt is None:
            # a run that goes on from a history (a resumed pause): no user message. A pause
            # of this process goes on with its id, counts, usage and plugins' state, and
            # starts with on_run_resumed (once the user-prompt node shows the decisions)
            # (or, resumed in another process, the counts its pause left in the history)
            carried = PAUSED_RUNS.resume(
                [(PAUSE_KEY, i) for i in _open_calls(ctx.messages)], _stored(ctx.messages)
            )
            if carried is not None:
                run.resume_from(carried)
                self.resuming = list(carried.pending)
                return
            got = await run.fire("on_chat_start", ChatStartContext, message="", tools=tools)
            if isinstance(got, Deny):
                CAPABILITIES.require("on_chat_start", "deny")
                self.denied = got
            return
        text = prompt if isinstance(prompt, str) else _prompt_text(prompt)
        self.prompt = text
        got_message = await run.start(text, tools)
        if isinstance(got_message, Deny):
            self.denied, self.denied_by = got_message, run.denied_by or "on_chat_start"
            return
        if got_message != text:
            self.prompt = got_message
            self.rewritten_prompt = _rewritten_prompt(prompt, got_message)
        if run.listened("on_message"):
            await run.message(ChatMessage(role="user", content=self.prompt))
        if run.listened("pre_agent"):
            agent = await run.fire("pre_agent", PreAgentContext, input=self.prompt)
            if isinstance(agent, Deny):
                CAPABILITIES.require("pre_agent", "deny")
                self.denied, self.denied_by = agent, "pre_agent"
            elif isinstance(agent, PreAgentContext) and agent.response is not None:
                CAPABILITIES.require("pre_agent", "response")
                self.instead = agent.response

    async def _finish(self, run: BridgeRun, result: AgentRunResult[Any]) -> AgentRunResult[Any]:
        await run.loop_end()
        if self.denied is not None:
            await run.done(run.denied_response(self.denied))
            return result
        if self.instead is not None:
            await run.done(self.instead)
            return result
        if self.stopped is not None:
            # a turn of tool calls only has no text
            await run.done(run.stopped_response(self.stopped or None, output=result.output))
            return result
        output = result.output
        if isinstance(output, DeferredToolRequests):
            await self._flush_held(run)
            paused = self._paused_response(run, output)
            try:
                await run.paused(paused)
            finally:  # the deferred calls resume it: its counts and plugins' state wait there,
                # and in the history a resume in another process is handed
                carried = run.carry(paused.pending)
                PAUSED_RUNS.keep([(PAUSE_KEY, p.call_id) for p in paused.pending], carried)
                _keep_in_history(result.all_messages(), carried.dump())
            return result
        if _ANSWER_EVENTS.isdisjoint(run.bus.listened):
            await self._flush_held(run)
            await run.done(_UNREAD)
            return result
        response = self._answer(run, result)
        got = await run.post_agent(response, input=self.prompt)
        if isinstance(got, Deny):
            if not isinstance(output, str):
                raise RunDenied(got.text(), event="post_agent")
            result = _with_answer(result, got.text())
            self.held = None
            await run.done(run.denied_response(got, response.messages))
            return result
        if got is not response:
            if not isinstance(output, str) and got.output is not output and got.output != output:
                # the run's stored history keeps the structured answer as the model gave it
                # (Pydantic AI exposes no way to rewrite it): handing back a rewritten output
                # with the original in the history would leak what a redaction removed
                raise UnsupportedReturnError(
                    "post_agent",
                    "response",
                    CAPABILITIES.framework,
                    "a structured output stays in the run's history as the model gave it, so a "
                    "rewritten one (a redaction) cannot reach the caller alone",
                )
            result = self._apply_answer(result, response, got)
        if self.held is not None:
            held, self.held = self.held, None
            if got.content != held.content and got.content is not None:
                held = held.model_copy(update={"content": got.content})
            await run.message(held)
        await run.done(got)
        return result

    def _answer(self, run: BridgeRun, result: AgentRunResult[Any]) -> AgentResponse:
        output = result.output
        held = self.held
        content = output if isinstance(output, str) else held.content if held else None
        return AgentResponse(
            content=content,
            messages=translate.chat_messages(result.new_messages(), self.read).messages,
            usage=run.usage,
            iterations=(run.iteration or 0) + (run.iteration is not None),
            agent=run.agent,
            output=output,
        )

    def _apply_answer(
        self, result: AgentRunResult[Any], before: AgentResponse, after: AgentResponse
    ) -> AgentRunResult[Any]:
        output = result.output
        if after.output is not before.output and after.output != before.output:
            return replace(result, output=after.output)
        if isinstance(output, str) and after.content != before.content:
            return _with_answer(result, after.content or "")
        return result

    def _paused_response(self, run: BridgeRun, requests: DeferredToolRequests) -> AgentResponse:
        pending = [
            PendingCall(
                call_id=part.tool_call_id,
                tool=part.tool_name,
                arguments=translate.tool_call(part).arguments,
                reason=str(requests.metadata.get(part.tool_call_id, {}).get(ASK_REASON, "")),
            )
            for part in requests.approvals
        ]
        return AgentResponse(
            finish_reason="paused",
            usage=run.usage,
            iterations=(run.iteration or 0) + (run.iteration is not None),
            agent=run.agent,
            pending=pending,
        )

    async def before_node_run(self, ctx: RunContext[Any], *, node: Any) -> Any:
        # the first request is built from the user-prompt node: a rewritten user message
        # goes there, so the model and the history both get it
        if self.resuming is not None and isinstance(node, UserPromptNode) and self.run:
            pending, self.resuming = self.resuming, None
            await self.run.resumed(pending, _decisions(node.deferred_tool_results))
        if self.rewritten_prompt is not None and isinstance(node, UserPromptNode):
            prompt, self.rewritten_prompt = self.rewritten_prompt, None
            return replace(node, user_prompt=prompt)
        return node

    async def after_node_run(self, ctx: RunContext[Any], *, node: Any, result: Any) -> Any:
        # a should_stop that said True answered the request in the model's place: the run ends
        # with that answer here, also when it has no text (after a turn of tool calls only),
        # which Pydantic AI would otherwise send back to the model as an empty response
        if self.stopped is not None and isinstance(result, CallToolsNode):
            return End(FinalResult(self.stopped))
        return result

    # --- model requests -----------------------------------------------------------------

    async def wrap_model_request(
        self,
        ctx: RunContext[Any],
        *,
        request_context: ModelRequestContext,
        handler: Callable[[ModelRequestContext], Any],
    ) -> ModelResponse:
        run = self.run
        if run is None:  # a run nobody listens to
            return await handler(request_context)  # type: ignore[no-any-return]
        if request_context.streaming and (
            run.bus.guards("post_agent") or run.bus.guards("on_response")
        ):
            # run_stream() hands the model's text to the caller as it streams, before
            # on_response and post_agent: a guard on the answer (a redaction) could not keep
            # its promise, so the run is refused before any text leaves
            raise UnsupportedReturnError(
                "post_agent",
                "response",
                CAPABILITIES.framework,
                "agent.run_stream() hands the model's text to the caller before on_response "
                "and post_agent; with a guard on the answer, run the agent with agent.run()",
            )
        if self.denied is not None:
            return self._denied_answer(request_context, self.denied)
        if self.instead is not None:
            # pre_agent answered for the agent: the model is not called
            if not _text_is_an_answer(request_context):
                raise UnsupportedReturnError(
                    "pre_agent",
                    "response",
                    CAPABILITIES.framework,
                    "a structured output_type takes its answer from the model",
                )
            return ModelResponse(parts=[TextPart(content=self.instead.content or "")])
        if run.listened("on_message"):
            await self._framework_results(run, request_context)
        await self._flush_held(run)
        if run.iteration is not None:
            await run.loop_end()
            if run.between_turns_heard:
                stop = await self._between_turns(run, request_context)
                if stop is not None:
                    return stop
        await run.loop_start()
        bus = run.bus
        if "transform_context" in bus.listened:
            request_context = await self._transform_context(run, request_context)
        if _MODEL_EVENTS.isdisjoint(bus.listened) and not bus.stacks.get("provider"):
            response: ModelResponse = await handler(request_context)
            if bus.listened:  # a later context carries the run's usage
                run.add_usage(translate.usage(response.usage))
            await self._announce(run, response)
            return response
        view = translate.provider_request(request_context, self.read)
        called = False

        translated: list[BaseException] = []
        produced: list[tuple[ProviderResponse, ModelResponse]] = []

        async def call(request: ProviderRequest) -> ProviderResponse:
            nonlocal called
            context = translate.apply_request(view, request, request_context)
            try:
                if not called:
                    called = True
                    answer: ModelResponse = await handler(context)
                else:
                    # Pydantic AI lets a wrapper call its handler once; a retrying
                    # middleware's further attempts go to the model itself
                    answer = await context.model.request(
                        context.messages,
                        context.model_settings,
                        context.model_request_parameters,
                    )
            except ModelAPIError as exc:
                # middleware (a retry) and on_model_error read agenthooks' provider errors
                error = translate.provider_error(exc)
                translated.append(error)
                raise error from exc
            read = translate.provider_response(answer)
            produced.append((read, answer))
            return read

        original: BaseException | None = None
        try:
            got = await run.model_call(view.request, call)
        except ProviderError as exc:
            if exc not in translated or exc.__cause__ is None:
                raise
            original = exc.__cause__
        if original is not None:
            # nothing recovered: the caller gets the framework's own error, as without the
            # bridge (raised outside the handler above, so its context stays its own)
            raise original
        if isinstance(got, Deny):
            self.denied_by = "on_response" if produced else "pre_request"
            return self._denied_answer(request_context, got)
        if produced and got is produced[-1][0]:
            response = produced[-1][1]  # what the model said, untouched: the very object
        else:
            response = translate.model_response(got, None)
        if run.listened("on_message"):
            self._announce_read(run, got)
            if self.held is None and got.tool_calls:
                await run.message(translate.assistant_of(got))
        return response

    async def _transform_context(
        self, run: BridgeRun, request_context: ModelRequestContext
    ) -> ModelRequestContext:
        """``transform_context``: the messages this request sends (the history is kept)."""
        transcript = translate.chat_messages(request_context.messages, self.read)
        messages = list(transcript.messages)
        got = await run.fire("transform_context", TransformContextContext, messages=messages)
        if not isinstance(got, TransformContextContext) or got.messages == transcript.messages:
            return request_context
        CAPABILITIES.require("transform_context", "messages")
        return replace(request_context, messages=translate.model_messages(transcript, got.messages))

    async def _between_turns(
        self, run: BridgeRun, request_context: ModelRequestContext
    ) -> ModelResponse | None:
        """``prepare_next_turn`` then ``should_stop`` between two model turns (the limits
        plugin counts turns, tokens and cost there). Pydantic AI's agent picks the next
        turn's model and history itself, so a return that changes them is a typed error,
        never ignored. A ``should_stop`` that says True ends the run without calling the
        model: the last assistant text is the answer (the response this returns)."""
        transcript = translate.chat_messages(request_context.messages, self.read)
        messages = transcript.messages
        last = max((i for i, m in enumerate(messages) if m.role == "assistant"), default=-1)
        message = messages[last] if last >= 0 else None
        turn = await run.between_turns(
            message=message,
            tool_messages=[m for m in messages[last + 1 :] if m.role == "tool"],
            new_messages=translate.chat_messages(
                request_context.messages[self.history_length :], self.read
            ).messages,
            messages=messages,
            model=request_context.model.model_name,
        )
        if not turn.stop:
            return None
        if not _text_is_an_answer(request_context):
            raise UnsupportedReturnError(
                "should_stop",
                "True",
                CAPABILITIES.framework,
                "a structured output_type takes its answer from the model",
            )
        last_text = message.content if message is not None else None
        self.stopped = last_text or ""
        # the run's answer in the model's place (after_node_run ends the run on it)
        return ModelResponse(parts=[TextPart(content=self.stopped)] if self.stopped else [])

    def _denied_answer(self, request_context: ModelRequestContext, deny: Deny) -> ModelResponse:
        """The run ends denied: the reason is the answer where the output may be text, else
        the caller gets ``RunDenied``."""
        self.denied = deny
        if not _text_is_an_answer(request_context):
            raise RunDenied(deny.text(), event=self.denied_by)
        return ModelResponse(parts=[TextPart(content=deny.text())], finish_reason="stop")

    async def _announce(self, run: BridgeRun, response: ModelResponse) -> None:
        if run.listened("on_message"):
            read = translate.provider_response(response)
            self._announce_read(run, read)
            if self.held is None and read.tool_calls:
                await run.message(translate.assistant_of(read))

    def _announce_read(self, run: BridgeRun, response: ProviderResponse) -> None:
        """An answer without tool calls is held: announced after ``post_agent`` when it ends
        the run, at the next turn when it does not."""
        if not response.tool_calls and (response.content or response.thinking_blocks):
            self.held = translate.assistant_of(response)

    async def _tool_said(self, run: BridgeRun, message: ChatMessage) -> None:
        """``on_message`` for a tool result (each call gets one)."""
        self.announced.add(message.tool_call_id or "")
        await run.message(message)

    async def _framework_results(
        self, run: BridgeRun, request_context: ModelRequestContext
    ) -> None:
        """``on_message`` for the tool results Pydantic AI wrote itself, with no tool
        execution the bridge saw: arguments that did not validate (a retry prompt), an
        unknown tool, a call denied when a paused run resumed."""
        messages = request_context.messages
        for message in messages[max(self.scanned, self.history_length) :]:
            if not isinstance(message, ModelRequest):
                continue
            for part in message.parts:
                if isinstance(part, (ToolReturnPart, RetryPromptPart)):
                    if part.tool_call_id in self.announced:
                        continue
                    chat = translate.chat_messages([message]).messages
                    said = next((m for m in chat if m.tool_call_id == part.tool_call_id), None)
                    if said is not None:
                        await self._tool_said(run, said)
        self.scanned = len(messages)

    async def _flush_held(self, run: BridgeRun) -> None:
        if self.held is not None:
            held, self.held = self.held, None
            await run.message(held)

    # --- tool calls ---------------------------------------------------------------------

    async def wrap_tool_execute(
        self,
        ctx: RunContext[Any],
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: dict[str, Any],
        handler: Callable[[dict[str, Any]], Any],
    ) -> Any:
        run = self.run
        if run is None:  # a run nobody listens to
            return await handler(args)
        handler = _delegating_to(run, call.tool_call_id, handler)
        bus = run.bus
        if _TOOL_EVENTS.isdisjoint(bus.listened) and not bus.stacks.get("tool"):
            return await self._plain_tool(run, call, args, handler)
        raised: list[BaseException] = []

        async def invoke(arguments: dict[str, Any]) -> Any:
            try:
                return await handler(arguments)
            except (ToolRetryError, ToolFailedError) as exc:
                # what the tool raised (ModelRetry, ToolFailed) is what hooks see
                raised.append(exc)
                cause = exc.__cause__
                if isinstance(cause, Exception):
                    raise cause from None
                raise
            except Exception as exc:
                raised.append(exc)
                raise

        outcome = await run.tool_call(
            ToolCall(id=call.tool_call_id, name=call.tool_name, arguments=args),
            bridge_tool(ctx, tool_def),
            invoke,
            approved=ctx.tool_call_approved,
        )
        return await self._settle(run, outcome, raised)

    async def _plain_tool(
        self,
        run: BridgeRun,
        call: ToolCallPart,
        args: dict[str, Any],
        handler: Callable[[dict[str, Any]], Any],
    ) -> Any:
        if not run.listened("on_message"):
            return await handler(args)
        try:
            result = await handler(args)
        except (ToolRetryError, ToolFailedError) as exc:
            await self._tool_said(run, framework_tool_message(call, exc))
            raise
        text = result if isinstance(result, str) else result_text(result)
        await self._tool_said(
            run,
            ChatMessage(
                role="tool", content=text, tool_call_id=call.tool_call_id, name=call.tool_name
            ),
        )
        return result

    async def _settle(
        self, run: BridgeRun, outcome: ToolOutcome, raised: list[BaseException]
    ) -> Any:
        call = outcome.call
        if outcome.asked is not None:
            # the framework's own human in the loop: the run ends with DeferredToolRequests
            raise ApprovalRequired(metadata={ASK_REASON: outcome.asked})
        if outcome.terminate:
            CAPABILITIES.require(
                "on_tool_call_error" if outcome.is_error else "on_tool_call_result", "terminate"
            )
        error = outcome.error
        if error is not None:
            if raised and (error is raised[-1] or error is raised[-1].__cause__):
                # the tool's own exception, nothing recovered it: the framework goes on as it
                # would without the bridge (a retry prompt, a failed result, or the run fails)
                original = raised[-1]
                if isinstance(original, (ToolRetryError, ToolFailedError)) and run.listened(
                    "on_message"
                ):
                    await self._tool_said(
                        run, tool_message(call, framework_text(original), is_error=True)
                    )
                raise original
            text = outcome.error_text()
            if run.listened("on_message"):
                await self._tool_said(run, tool_message(call, text, is_error=True))
            if outcome.denied:
                return ToolDenied(text)
            raise ToolFailed(text)
        if run.listened("on_message"):
            text = outcome.text if outcome.text is not None else result_text(outcome.result)
            await self._tool_said(run, tool_message(call, text, is_error=False))
        return outcome.result


# --- helpers ---------------------------------------------------------------------------


def _delegating_to(
    run: BridgeRun, call_id: str, handler: Callable[[dict[str, Any]], Any]
) -> Callable[[dict[str, Any]], Any]:
    """``handler`` (a tool body) as a call that may run sub-agents: an agent run that starts
    inside it fires ``on_subagent_start`` on ``run``; each gets ``on_subagent_stop`` with the
    tool's result (or its error) once the body ended."""

    async def delegating(arguments: dict[str, Any]) -> Any:
        delegation = Delegation(run, call_id)
        token = _delegating.set(delegation)
        try:
            result = await handler(arguments)
        except BaseException as exc:
            _delegating.reset(token)
            await delegation.stop(error=exc)
            raise
        _delegating.reset(token)
        await delegation.stop(result=result)
        return result

    return delegating


def _text_is_an_answer(request_context: ModelRequestContext) -> bool:
    """Whether plain text ends the run as its output (``str`` among the output types).

    Read before the model resolves the request: an ``"auto"`` mode is a structured output
    still to be resolved; native and prompted outputs parse the text as JSON.
    """
    parameters = request_context.model_request_parameters
    return parameters.allow_text_output and parameters.output_mode in ("text", "tool")


def _tool_names(ctx: RunContext[Any]) -> list[str]:
    """The agent's function tools, by name (``on_chat_start``'s ``tools``). Toolsets that
    list their tools only once the run asks them (MCP servers) are not known this early."""
    manager = ctx.tool_manager
    if manager is not None and manager.tools is not None:
        return [name for name, tool in manager.tools.items() if tool.tool_def.kind != "output"]
    names: list[str] = []
    for toolset in getattr(ctx.agent, "toolsets", ()):
        tools = getattr(toolset, "tools", None)
        if isinstance(tools, Mapping):
            names.extend(str(name) for name in tools)
    return names


def _prompt_text(prompt: Sequence[Any]) -> str:
    return "\n".join(item for item in prompt if isinstance(item, str))


def _rewritten_prompt(prompt: str | Sequence[Any], text: str) -> str | list[Any]:
    """The prompt with a handler's text: images and files stay, the text items become
    ``text`` (in place of the first one)."""
    if isinstance(prompt, str):
        return text
    items: list[Any] = []
    placed = False
    for item in prompt:
        if isinstance(item, str):
            if not placed:
                items.append(text)
                placed = True
        else:
            items.append(item)
    if not placed:
        items.insert(0, text)
    return items


def _with_answer(result: AgentRunResult[Any], text: str) -> AgentRunResult[Any]:
    """``result`` answering ``text``: its output, and the text of the last response in the
    run's history (what a stored conversation keeps)."""
    history: list[ModelMessage] = result.all_messages()
    if history and isinstance(history[-1], ModelResponse):
        last = history[-1]
        history[-1] = translate.model_response(
            ProviderResponse(
                content=text,
                tool_calls=translate.provider_response(last).tool_calls,
                thinking_blocks=translate.provider_response(last).thinking_blocks,
            ),
            last,
        )
    return replace(result, output=text)


PAUSE_KEY = "pydantic-ai"
"""The namespace of this bridge's paused runs in ``PAUSED_RUNS`` (by deferred call id)."""


def _keep_in_history(messages: Sequence[ModelMessage], dump: dict[str, Any]) -> None:
    """Keep a paused run's counts (``Carried.dump()``) in the ``metadata`` of the response
    whose calls it waits on: data for the application, never sent to the model, and kept by
    ``ModelMessagesTypeAdapter`` with the history the caller stores for the resume."""
    for message in reversed(messages):
        if isinstance(message, ModelResponse):
            message.metadata = {**(message.metadata or {}), STORED_KEY: dump}
            return


def _stored(messages: Sequence[ModelMessage]) -> object:
    """What ``_keep_in_history`` kept on the last response of ``messages`` (``None``: nothing)."""
    for message in reversed(messages):
        if isinstance(message, ModelResponse):
            return (message.metadata or {}).get(STORED_KEY)
    return None


def _open_calls(messages: Sequence[ModelMessage]) -> list[str]:
    """The ids of the last model response's tool calls: a resumed pause's deferred calls."""
    for message in reversed(messages):
        if isinstance(message, ModelResponse):
            return [p.tool_call_id for p in message.parts if isinstance(p, ToolCallPart)]
    return []


def _decisions(results: Any) -> dict[str, Any]:
    """The answers a resumed run got (``DeferredToolResults.approvals``), as decisions."""
    approvals = getattr(results, "approvals", None) or {}
    decisions: dict[str, Any] = {}
    for call_id, answer in approvals.items():
        if isinstance(answer, ToolDenied):
            decisions[call_id] = Deny(answer.message)
        elif answer is False:
            decisions[call_id] = Deny()
        else:
            decisions[call_id] = Approve()
    return decisions


__all__ = ["AgentHooksCapability"]
