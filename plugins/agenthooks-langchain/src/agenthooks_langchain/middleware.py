"""``AgentHooksMiddleware``: a LangChain v1 ``AgentMiddleware`` that reports each run of a
``create_agent`` agent to a ``HookBus``, so the bus's hooks, guards, middleware and plugins
apply to it as to an agent of our own runtime."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Annotated, Any, NotRequired, cast
from uuid import UUID

from langchain.agents.middleware import (
    AgentMiddleware,
    AgentState,
    ExtendedModelResponse,
    ModelRequest,
    ModelResponse,
    ToolCallRequest,
)
from langchain.agents.middleware.types import OmitFromSchema
from langchain_core.messages import (
    AIMessage,
    AnyMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, ToolException
from langgraph.config import get_config
from langgraph.errors import GraphBubbleUp
from langgraph.types import Command, interrupt

from agenthooks import Deny, HookBus
from agenthooks.bridges import (
    PAUSED_RUNS,
    Answer,
    BridgeError,
    BridgeRun,
    BridgeTool,
    Delegation,
    ToolOutcome,
)
from agenthooks.errors import ToolValidationError, UnsupportedReturnError
from agenthooks.events import (
    GROUPS,
    PreAgentContext,
    TransformContextContext,
)
from agenthooks.messages import (
    AgentResponse,
    PendingCall,
    ProviderRequest,
    ProviderResponse,
    Usage,
)
from agenthooks.messages import ToolCall as OurToolCall
from agenthooks.plugins import Decision, serialize_result

from . import watch
from .approval import approval_request, decision_of
from .capabilities import CAPABILITIES
from .tools import bridge_tool
from .translate import (
    Reader,
    messages_out,
    model_name,
    request_in,
    response_in,
    response_out,
    text_of,
    tool_name,
    tool_schema,
    usage_in,
    with_text,
)

RUN_KEY = "agenthooks_run"
"""The state key that keeps a run's id across a pause (a resumed run keeps its id)."""
PAUSE_KEY = "langchain"
"""The namespace of this bridge's paused runs in ``PAUSED_RUNS`` (by thread id)."""

_MODEL_EVENTS = GROUPS["model_call"]
_TOOL_EVENTS = GROUPS["tool_call"]
_FIXED_REQUEST_FIELDS = ("model", "temperature", "reasoning_effort", "response_format")
_DELEGATING: ContextVar[Delegation | None] = ContextVar("agenthooks_langchain_tool", default=None)
"""The bridged tool call whose body is running: an agent run that starts inside it is a
sub-agent of that call's run (LangChain's own notion: an agent invoked from a tool)."""


class AgentHooksState(AgentState[Any]):
    """The agent state with the bridge's run (private: not in the input or output): its id
    and the id of the user message it answers, so a run resumed after a pause keeps its id."""

    agenthooks_run: NotRequired[Annotated[dict[str, Any], OmitFromSchema(input=True, output=True)]]


@dataclass(eq=False)
class _Run:
    """What the middleware keeps of one graph run beside its ``BridgeRun``."""

    bridge: BridgeRun
    input: str = ""
    start: int = 0
    """Where this run's messages begin in the state's messages."""
    denied: Deny | None = None
    """The ``pre_request`` deny that ended the run."""
    asked: list[PendingCall] = field(default_factory=list)
    last: AIMessage | None = None
    """The latest answer of the model (the final one is committed after ``post_agent``)."""
    read: Reader = field(default_factory=Reader)
    """Each LangChain message of the run as a ``ChatMessage``, translated once."""
    final: Answer | None = None
    """The answer the run ends with (after ``post_agent``), once the model gave it: built
    only if a handler hears it."""
    skip: AgentResponse | None = None
    """The answer a ``pre_agent`` handler gave in the agent's place."""
    input_id: str | None = None
    """The id of the user message the run answers."""
    resuming: list[PendingCall] | None = None
    """The calls a resumed run waited on, until its ``on_run_resumed`` fired."""

    def kept(self) -> dict[str, Any]:
        """What the state keeps of the run, so a resumed run goes on where it paused."""
        bridge = self.bridge
        return {
            "id": bridge.run_id,
            "input": self.input_id,
            "iteration": bridge.iteration,
            "usage": bridge.usage.model_dump(),
        }


class AgentHooksMiddleware(AgentMiddleware[AgentHooksState, Any, Any]):
    """Reports every run of a LangChain ``create_agent`` agent to ``bus``: the same events,
    returns and guarantees as a run of our own runtime.

    List it first in ``middleware=[...]``, so its model and tool layers are the outermost ones
    (other middleware's retries and fallbacks run inside the hooks, as ``bus.use(...)``
    middleware does). A run starts at its first model call and ends when LangChain's graph
    run ends (``watch``), whatever ended it. Runs are asynchronous (``ainvoke``,
    ``astream``); an ``Ask`` needs a checkpointer.

    Args:
        bus: The bus whose handlers, guards and middleware apply to the agent's runs.
        agent: The agent's name on every context (default: the ``name`` given to
            ``create_agent``, else ``"agent"``).
        name: The middleware's name in the graph (two instances on one agent need two names).

    Example:
        ```python
        agent = create_agent(model, tools, middleware=[AgentHooksMiddleware(bus)])
        ```
    """

    state_schema = AgentHooksState

    def __init__(
        self, bus: HookBus, *, agent: str | None = None, name: str = "AgentHooksMiddleware"
    ) -> None:
        super().__init__()
        self.bus = bus
        self.agent = agent
        self._name = name
        self.tools: Sequence[BaseTool] = []
        self._bridge_tools: dict[int, tuple[BaseTool, BridgeTool]] = {}
        self._runs: dict[Any, _Run] = {}
        """The runs in progress, by LangChain's id of their graph run."""
        self._asked: dict[tuple[str | None, str], str] = {}
        """The calls this process paused, by (thread id, call id): at resume the interrupt
        answers them before their hooks run again."""
        watch.install()

    @property
    def name(self) -> str:
        """The middleware's name in the graph."""
        return self._name

    # --- model calls -------------------------------------------------------------------------

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any] | ExtendedModelResponse[Any]:
        """One model turn: ``on_loop_start``, then the model call through ``pre_request``, the
        bus's provider middleware, ``on_model_error`` and ``on_response``. The first call of a
        run starts it (``on_chat_start``, ``on_user_message``); the answer without tool calls
        ends it (``on_loop_end``, ``post_agent``)."""
        run, update = await self._model_run(request)
        if run.final is not None:  # the start was denied: its reason is the answer
            return _with_update(
                ModelResponse(
                    result=[AIMessage(content=run.bridge.built(run.final).content or "")]
                ),
                update,
            )
        if update.get("messages"):
            request = request.override(
                messages=cast("list[AnyMessage]", _replaced(request.messages, update["messages"]))
            )
        bridge = run.bridge
        bus = self.bus
        if bridge.iteration is not None:  # a turn with tool calls ended: the next one begins
            await bridge.loop_end()
            if bridge.between_turns_heard and await self._between_turns(run, request):
                await self._finish(run, request.messages, None, "stopped")
                update["jump_to"] = "end"
                return _with_update(ModelResponse(result=[]), update)
        if run.skip is not None:  # pre_agent answered for the agent: its answer is the run's
            skipped = ModelResponse(result=[AIMessage(content=run.skip.content or "")])
            finished = await self._finish(run, request.messages, skipped, run.skip.finish_reason)
            assert finished is not None
            return _with_update(finished, update)
        await bridge.loop_start()
        if "transform_context" in bus.listened:
            request = await self._transformed(run, request)
        answer = await self._model_call(run, request, handler)
        if bridge.session_id is not None:  # a checkpointer keeps the state: a pause may come
            update[RUN_KEY] = run.kept()  # after the call, so the call's usage is kept too
        ai = _ai_of(answer)
        if ai is not None:
            run.last = ai
            if run.denied is not None:
                run.final = bridge.denied_response(run.denied)
            elif ai.tool_calls and answer.structured_response is None:
                if "on_message" in bus.listened:
                    await bridge.message(run.read(ai))
            else:
                finished = await self._finish(run, request.messages, answer, "stop")
                assert finished is not None
                answer = finished
        return _with_update(answer, update)

    async def _transformed(self, run: _Run, request: ModelRequest[Any]) -> ModelRequest[Any]:
        """``transform_context``: the messages this request sends (the state keeps its own)."""
        read = [run.read(m) for m in request.messages]
        got = await run.bridge.fire("transform_context", TransformContextContext, messages=read)
        if not isinstance(got, TransformContextContext) or got.messages == read:
            return request
        CAPABILITIES.require("transform_context", "messages")
        return request.override(
            messages=cast("list[AnyMessage]", messages_out(got.messages, read, request.messages))
        )

    async def _model_call(
        self,
        run: _Run,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any]:
        """The model call through the hook layer and the bus's provider middleware: the
        response LangChain goes on with."""
        bridge = run.bridge
        bus = self.bus
        if not bus.provider_stack and _MODEL_EVENTS.isdisjoint(bus.listened):
            answer = await handler(request)  # nobody listens: nothing to translate
            ai = _ai_of(answer)
            if ai is not None and ai.usage_metadata:
                bridge.add_usage(usage_in(ai))
            return answer
        asked = request_in(
            request.messages,
            request.system_message,
            request.tools,
            request.model,
            request.tool_choice,
            run.read,
        )
        last: list[tuple[ModelResponse[Any], ProviderResponse | None]] = []

        async def call(sent: ProviderRequest) -> ProviderResponse:
            got = await handler(request if sent is asked else _rewritten(request, asked, sent))
            ai = _ai_of(got)
            read = response_in(ai) if ai is not None else None
            last.append((got, read))
            return read if read is not None else ProviderResponse()

        result = await bridge.model_call(asked, call)
        if isinstance(result, Deny):
            run.denied = result
            return ModelResponse(result=[AIMessage(content=result.text())])
        got, read = last[-1] if last else (None, None)
        if got is not None and result is read:
            return got  # nothing changed it: LangChain's own response
        original = _ai_of(got) if got is not None else None
        ai = response_out(result, original)
        rest = [m for m in got.result if m is not original] if got is not None else []
        return ModelResponse(
            result=[ai, *rest],
            structured_response=got.structured_response if got is not None else None,
        )

    async def _finish(
        self,
        run: _Run,
        messages: Sequence[BaseMessage],
        answer: ModelResponse[Any] | None,
        reason: str,
    ) -> ModelResponse[Any] | None:
        """The run has its answer: ``on_loop_end``, ``post_agent`` (which may rewrite or
        withhold it), the answer's ``on_message``; ``on_chat_done`` follows when the graph
        ends. Returns the answer as ``post_agent`` left it."""
        bridge = run.bridge
        await bridge.loop_end()
        final = _ai_of(answer) if answer is not None else run.last
        listened = self.bus.listened
        added = [*messages[run.start :], *([final] if answer and final else [])]
        usage, iterations = bridge.usage, bridge.iterations

        def response() -> AgentResponse:
            # built only for a handler that hears the answer (post_agent, the run's end)
            return AgentResponse(
                content=(text_of(final) or None) if final is not None else None,
                finish_reason=reason,
                messages=[run.read(m) for m in added],
                usage=usage,
                iterations=iterations,
                agent=bridge.agent,
                output=answer.structured_response if answer is not None else None,
            )

        got = await bridge.post_agent(response, input=run.input)
        if isinstance(got, Deny):
            run.final = bridge.denied_response(got, bridge.built(response).messages)
            committed: BaseMessage | None = None
            replacement = run.final.content
        else:
            run.final = got
            committed = final
            replacement = got.content if isinstance(got, AgentResponse) else None
        if (
            answer is not None
            and final is not None
            and (replacement is not None or committed is None)
        ):
            changed = with_text(final, replacement)
            assert isinstance(changed, AIMessage)
            answer = ModelResponse(
                result=[changed if m is final else m for m in answer.result],
                structured_response=answer.structured_response,
            )
            committed = changed if committed is not None else None
        if answer is not None and committed is not None and "on_message" in listened:
            await bridge.message(run.read(committed))
        return answer

    async def _between_turns(self, run: _Run, request: ModelRequest[Any]) -> bool:
        """``prepare_next_turn`` (where limits stop a run), then ``should_stop``: True ends the
        run gracefully. LangChain's model object makes the next call, so a
        ``prepare_next_turn`` return that changes it raises."""
        messages = [run.read(m) for m in request.messages]
        at = next(
            (i for i in range(len(messages) - 1, -1, -1) if messages[i].role == "assistant"),
            None,
        )
        turn = await run.bridge.between_turns(
            message=messages[at] if at is not None else None,
            tool_messages=messages[at + 1 :] if at is not None else [],
            new_messages=messages[run.start :],
            messages=messages,
            model=model_name(request.model),
        )
        return turn.stop

    # --- tool calls ----------------------------------------------------------------------------

    async def awrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command[Any]]],
    ) -> ToolMessage | Command[Any]:
        """One tool call through ``pre_tool_call``, the bus's tool middleware, the tool,
        ``on_tool_call_error`` and ``on_tool_call_result``; an ``Ask`` pauses the run with a
        LangGraph interrupt."""
        run = self._tool_run(request.state)
        tool = request.tool
        bus = self.bus
        if tool is None:  # not one of the agent's tools: LangChain answers the model itself
            return await handler(request)
        if not bus.tool_stack and _TOOL_EVENTS.isdisjoint(bus.listened):
            call_id = request.tool_call.get("id") or ""
            message = await _delegating(run, call_id, lambda: handler(request))
            await self._tool_message(run, message)
            return message

        described = self._describe(tool)
        raw = request.tool_call
        try:
            arguments = described.validate(raw["args"])
        except ToolValidationError:
            arguments = raw["args"]  # LangChain's validation answers the model, as without us
        call = OurToolCall(id=raw.get("id") or "", name=raw["name"], arguments=arguments)
        info = request.runtime.execution_info if request.runtime is not None else None
        thread = info.thread_id if info is not None else None
        key = (thread, call.id)

        if key in self._asked:  # this process paused it: the interrupt holds the answer now
            reason = self._asked[key]
            pending = PendingCall(
                call_id=call.id, tool=call.name, arguments=call.arguments, reason=reason
            )
            run.asked.append(pending)  # still pending if this resume did not answer it
            decision = decision_of(interrupt(approval_request(call, reason)), call)
            run.asked.remove(pending)
            del self._asked[key]
            await self._announce_resume(run, {call.id: decision})
            if isinstance(decision, Deny):
                return await self._refused(run, call, decision)
            return _answered(
                await self._call(run, request, handler, call, described, approved=True)
            )

        first = await self._call(run, request, handler, call, described, approved=False)
        if not isinstance(first, _Asked):
            return first
        result = first
        if thread is None:
            raise BridgeError(
                f"a pre_tool_call handler returned Ask({result.reason!r}) for {call.name!r}; "
                "pausing needs a checkpointer: create_agent(..., checkpointer=InMemorySaver())"
            )
        self._asked[key] = result.reason
        pending = PendingCall(
            call_id=call.id, tool=call.name, arguments=call.arguments, reason=result.reason
        )
        run.asked.append(pending)
        # the first time, interrupt() ends this call here and the run pauses; a run resumed in
        # a process that did not pause it gets the answer here
        decision = decision_of(interrupt(approval_request(call, result.reason)), call)
        self._asked.pop(key, None)
        run.asked.remove(pending)
        await self._announce_resume(run, {call.id: decision})
        if isinstance(decision, Deny):
            return await self._refused(run, call, decision)
        return _answered(await self._call(run, request, handler, call, described, approved=True))

    async def _call(
        self,
        run: _Run,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command[Any]]],
        call: OurToolCall,
        described: BridgeTool,
        *,
        approved: bool,
    ) -> ToolMessage | Command[Any] | _Asked:
        raw = request.tool_call
        seen: dict[str, Any] = {}

        async def invoke(arguments: dict[str, Any]) -> Any:
            sent = (
                request
                if arguments is call.arguments
                else request.override(tool_call={**raw, "args": arguments})
            )
            out = await _delegating(run, call.id, lambda: handler(sent))
            seen["out"] = out
            if not isinstance(out, ToolMessage):
                return out
            if out.status == "error":
                # a ToolException the tool's handle_tool_error wrote down: hooks see it raised
                seen["error"] = error = ToolException(text_of(out))
                raise error
            seen["content"] = out.content
            return out.content

        outcome = await run.bridge.tool_call(call, described, invoke, approved=approved)
        if outcome.asked is not None:
            return _Asked(outcome.asked)
        if outcome.terminate:
            CAPABILITIES.require(
                "on_tool_call_error" if outcome.error is not None else "on_tool_call_result",
                "terminate",
            )
        message = self._outcome_message(raw, outcome, seen)
        await self._tool_message(run, message)
        return message

    @staticmethod
    def _outcome_message(
        raw: Any, outcome: ToolOutcome, seen: dict[str, Any]
    ) -> ToolMessage | Command[Any]:
        """What LangChain gets for the call: its own message where the hooks changed nothing,
        else that message with only the content changed, or a new one."""
        out = seen.get("out")
        error = outcome.error
        if error is None:
            result = outcome.result
            if out is not None and (
                result is seen.get("content") or (result is out and "content" not in seen)
            ):
                return out  # type: ignore[no-any-return]
            text = outcome.text if outcome.text is not None else serialize_result(result)
            if isinstance(out, ToolMessage):
                return out.model_copy(update={"content": text, "status": "success"})
            return ToolMessage(content=text, tool_call_id=raw["id"], name=raw["name"])
        if error is seen.get("error") and isinstance(out, ToolMessage):
            return out  # LangChain's own error message
        if (
            outcome.source == "handler"
            and isinstance(error, BaseException)
            and "out" not in seen
            and not isinstance(error, ToolValidationError)
        ):
            # the tool raised and nothing recovered: the run fails with it, as without the bridge
            raise error
        return ToolMessage(
            content=outcome.error_text(), tool_call_id=raw["id"], name=raw["name"], status="error"
        )

    async def _refused(self, run: _Run, call: OurToolCall, decision: Deny) -> ToolMessage:
        message = ToolMessage(
            content=decision.text(call.name), tool_call_id=call.id, name=call.name, status="error"
        )
        await self._tool_message(run, message)
        return message

    async def _tool_message(self, run: _Run, message: ToolMessage | Command[Any]) -> None:
        if isinstance(message, ToolMessage) and "on_message" in self.bus.listened:
            await run.bridge.message(run.read(message))

    def _describe(self, tool: BaseTool) -> BridgeTool:
        known = self._bridge_tools.get(id(tool))
        if known is None or known[0] is not tool:
            known = self._bridge_tools[id(tool)] = (tool, bridge_tool(tool))
        return known[1]

    # --- runs ------------------------------------------------------------------------------------

    async def _model_run(self, request: ModelRequest[Any]) -> tuple[_Run, dict[str, Any]]:
        """The run of this model call and the state update it brings: a new run starts here
        (``on_chat_start``, ``on_user_message``, the user message's ``on_message``)."""
        config = get_config()
        graph = self._graph(config)
        run = self._runs.get(graph)
        if run is not None:
            return run, {}
        messages = request.messages
        human_at = _last_index(messages, HumanMessage)
        human: BaseMessage | None = messages[human_at] if human_at is not None else None
        kept = _kept(request.state)
        if kept is not None and human is not None and kept.get("input") == human.id:
            # a run paused by another middleware's interrupt, resumed into the model node
            run = self._resumed(graph, config, kept, len(request.state["messages"]))
            await self._announce_resume(run, {})
            return run, {}
        info = request.runtime.execution_info if request.runtime is not None else None
        delegation = _DELEGATING.get()
        bridge = self._bridge(
            config,
            (info.run_id if info is not None else None) or str(graph),
            parent_run_id=delegation.run.run_id if delegation is not None else None,
        )
        run = _Run(bridge, start=human_at if human_at is not None else len(messages))
        run.input = text_of(human) if human is not None else ""
        if delegation is not None:  # an agent a bridged tool call runs: its sub-agent
            await delegation.start(bridge.agent, run.input)
        self._follow(graph, run)
        run.input_id = human.id if human is not None else None
        # the state keeps the run's record for a resume, which needs a checkpointer and so a
        # thread: a run without one writes none (as after each model call)
        update: dict[str, Any] = {RUN_KEY: run.kept()} if bridge.session_id is not None else {}
        names = (
            [
                t.name if isinstance(t, BaseTool) else tool_name(tool_schema(t))
                for t in request.tools
            ]
            if "on_chat_start" in self.bus.listened
            else []
        )
        got = await bridge.start(run.input, tools=names)
        if isinstance(got, Deny):
            run.final = bridge.denied_response(got)
            return run, update
        if human is not None and got != run.input:
            human = with_text(human, got)
            update["messages"] = [human]
            run.input = got
        if human is not None and "on_message" in self.bus.listened:
            await bridge.message(run.read(human))
        if "pre_agent" in self.bus.listened:
            agreed = await bridge.fire(
                "pre_agent", PreAgentContext, input=run.input, response=None, short_circuit=None
            )
            if isinstance(agreed, Deny):
                CAPABILITIES.require("pre_agent", "deny")
                run.final = bridge.denied_response(agreed)
            elif isinstance(agreed, PreAgentContext) and agreed.response is not None:
                CAPABILITIES.require("pre_agent", "response")
                run.skip = agreed.response
        return run, update

    def _tool_run(self, state: Any) -> _Run:
        """The run of this tool call: the model's run, or a paused run resumed here, under
        the id it had."""
        config = get_config()
        graph = self._graph(config)
        run = self._runs.get(graph)
        if run is not None:
            return run
        kept = _kept(state)
        if kept is None:
            raise BridgeError(
                "AgentHooksMiddleware saw a tool call of a run it did not start: list it in "
                "create_agent(middleware=[...])"
            )
        return self._resumed(graph, config, kept, len(state.get("messages", ())))

    def _resumed(
        self, graph: UUID, config: RunnableConfig, kept: dict[str, Any], start: int
    ) -> _Run:
        """A paused run taken up again: its id, turns, tool calls, usage and plugins'
        per-run state as its pause left them in this process (``PAUSED_RUNS``), else its id,
        turns and usage as the graph's state kept them (another process)."""
        bridge = self._bridge(config, str(kept["id"]))
        carried = PAUSED_RUNS.take([(PAUSE_KEY, bridge.session_id)])
        if carried is not None and carried.run_id == bridge.run_id:
            bridge.resume_from(carried)
        else:
            carried = None
            bridge.iteration = kept.get("iteration")
            if kept.get("usage"):
                bridge.usage = Usage.model_validate(kept["usage"])
        run = _Run(bridge, start=start, input_id=kept.get("input"))
        run.resuming = list(carried.pending) if carried is not None else []
        self._follow(graph, run)
        return run

    async def _announce_resume(self, run: _Run, decisions: dict[str, Decision]) -> None:
        """``on_run_resumed``, once, before the resumed run's first hook: the calls it waited
        on and the decisions read so far (LangGraph resumes each paused call in a task of its
        own: the first to run reads its own decision)."""
        pending, run.resuming = run.resuming, None
        if pending is not None:
            await run.bridge.resumed(pending, decisions)

    def _graph(self, config: RunnableConfig) -> UUID:
        graph = watch.NODE_PARENTS.graph_run(config)
        if graph is None:
            raise BridgeError(
                "AgentHooksMiddleware runs only inside an agent built by "
                "langchain.agents.create_agent, run with ainvoke or astream"
            )
        return graph

    def _bridge(
        self, config: RunnableConfig, run_id: str, parent_run_id: str | None = None
    ) -> BridgeRun:
        return BridgeRun(
            self.bus,
            CAPABILITIES,
            agent=self.agent or (config.get("metadata") or {}).get("lc_agent_name") or "agent",
            run_id=run_id,
            session_id=(config.get("configurable") or {}).get("thread_id"),
            parent_run_id=parent_run_id,
        )

    def _follow(self, graph: UUID, run: _Run) -> None:
        """End ``run`` when its graph run ends: ``on_chat_done`` with the answer it had, or
        (an interrupt) ``on_chat_paused``, or (an exception) ``on_chat_error`` /
        ``on_chat_abort``; ``on_chat_end`` after each."""

        async def ending(error: BaseException | None, output: Any) -> None:
            self._runs.pop(graph, None)
            interrupted = watch.NODE_PARENTS.paused(graph)
            bridge = run.bridge
            if bridge.ended is not None:
                return
            if isinstance(error, (asyncio.CancelledError, KeyboardInterrupt)) or isinstance(
                getattr(error, "__cause__", None), asyncio.CancelledError
            ):
                # LangGraph raises a CancelledError a node raised (a handler's) as its own
                # NodeCancelledError, chained from it: the run was cancelled all the same
                await bridge.abort("cancelled")
            elif isinstance(error, GeneratorExit):  # the caller closed astream() early
                await bridge.abort("stream closed")
            elif error is not None and not isinstance(error, GraphBubbleUp):
                await bridge.error(error)
            elif error is not None or run.asked or interrupted:
                # an interrupt (ours or another middleware's) waits for a human
                last = (text_of(run.last) or None) if run.last is not None else None
                try:
                    await bridge.paused(lambda: bridge.answer(last, "paused", pending=run.asked))
                finally:  # the thread resumes it: its counts and plugins' state wait there
                    if bridge.session_id is not None:
                        PAUSED_RUNS.keep([(PAUSE_KEY, bridge.session_id)], bridge.carry(run.asked))
            elif run.final is not None:
                await bridge.done(run.final)
            else:  # another middleware ended the run before the model answered
                last = (text_of(run.last) or None) if run.last is not None else None
                await bridge.done(lambda: bridge.answer(last))

        self._runs[graph] = run
        watch.RUN_ENDS.endings[graph] = ending


async def _delegating(
    run: _Run, call_id: str, body: Callable[[], Awaitable[ToolMessage | Command[Any]]]
) -> ToolMessage | Command[Any]:
    """Run a tool body as a call that may run sub-agents: an agent run that starts inside it
    fires ``on_subagent_start`` on ``run``; each gets ``on_subagent_stop`` with the tool's
    answer (or its error) once the body ended."""
    delegation = Delegation(run.bridge, call_id)
    token = _DELEGATING.set(delegation)
    try:
        out = await body()
    except BaseException as exc:
        _DELEGATING.reset(token)
        await delegation.stop(error=exc)
        raise
    _DELEGATING.reset(token)
    await delegation.stop(result=text_of(out) if isinstance(out, ToolMessage) else out)
    return out


@dataclass(frozen=True)
class _Asked:
    reason: str


def _rewritten(
    request: ModelRequest[Any], asked: ProviderRequest, sent: ProviderRequest
) -> ModelRequest[Any]:
    """``request`` with what a ``pre_request`` handler changed in ``asked`` (now ``sent``)."""
    for name in _FIXED_REQUEST_FIELDS:
        if getattr(sent, name) != getattr(asked, name):
            raise UnsupportedReturnError(
                "pre_request",
                "request",
                "LangChain",
                f"the request's {name} cannot be changed (the agent's model object makes the "
                "call); change it with LangChain's own model middleware",
            )
    overrides: dict[str, Any] = {}
    if sent.messages is not asked.messages:
        overrides["messages"] = messages_out(sent.messages, asked.messages, request.messages)
    if sent.system != asked.system:
        if sent.system is None:
            overrides["system_message"] = None
        elif request.system_message is not None:
            overrides["system_message"] = with_text(request.system_message, sent.system)
        else:
            overrides["system_message"] = SystemMessage(content=sent.system)
    if sent.tools != asked.tools:
        offered = {tool_name(s): t for s, t in zip(asked.tools, request.tools)}
        names = [tool_name(s) for s in sent.tools]
        unknown = [n for n in names if n not in offered]
        if unknown:
            raise UnsupportedReturnError(
                "pre_request",
                "request",
                "LangChain",
                f"tools {unknown} are not the agent's: a request may offer fewer of the "
                "agent's tools, not others",
            )
        overrides["tools"] = [offered[n] for n in names]
    if sent.tool_choice != asked.tool_choice:
        overrides["tool_choice"] = sent.tool_choice
    return request.override(**overrides) if overrides else request


def _answered(result: ToolMessage | Command[Any] | _Asked) -> ToolMessage | Command[Any]:
    """The message of an approved call (an ``Ask`` counts as ``None`` for it, so it cannot
    ask again)."""
    assert not isinstance(result, _Asked)
    return result


def _kept(state: Any) -> dict[str, Any] | None:
    """The run the state remembers (its id and the id of the user message it answers)."""
    kept = state.get(RUN_KEY) if isinstance(state, dict) else None
    return kept if isinstance(kept, dict) else None


def _with_update(
    answer: ModelResponse[Any], update: dict[str, Any]
) -> ModelResponse[Any] | ExtendedModelResponse[Any]:
    """``answer``, with the state ``update`` the bridge has for this turn, if any."""
    if not update:
        return answer
    return ExtendedModelResponse(model_response=answer, command=Command(update=update))


def _replaced(messages: Sequence[BaseMessage], new: Sequence[BaseMessage]) -> list[BaseMessage]:
    """``messages`` with each message of ``new`` in place of the one with its id."""
    by_id = {m.id: m for m in new}
    return [by_id.get(m.id, m) if m.id is not None else m for m in messages]


def _ai_of(response: ModelResponse[Any] | None) -> AIMessage | None:
    if response is None:
        return None
    for message in response.result:
        if isinstance(message, AIMessage):
            return message
    return None


def _last_index(messages: Sequence[AnyMessage | BaseMessage], kind: type) -> int | None:
    for i in range(len(messages) - 1, -1, -1):
        if isinstance(messages[i], kind):
            return i
    return None


__all__ = ["RUN_KEY", "AgentHooksMiddleware", "AgentHooksState"]
