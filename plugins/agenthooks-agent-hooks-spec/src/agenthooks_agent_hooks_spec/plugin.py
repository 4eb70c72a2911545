"""AgentHooksSpec: AGENT-HOOKS-0.1 interceptors run as guards on an agenthooks bus.

One guard per mapped event projects the event's objects to the standard's JSON context
through the SDK's ``AgentContextBuilder``, emits it through the SDK's ``InterceptionEmitter``
(composition, approval, identity and records are the SDK's), and turns the outcome into what
the bus understands: a blocked emission is a ``Deny``, a transform is a return value that
writes the new value into what the run uses.

    agent_startup   on_chat_start (a Session: on_session_start)   top-level run only
    input           on_user_message                                top-level run only
    pre_model_call  pre_request                                    every run of the session
    post_model_call on_response                                    every run of the session
    pre_tool_call   pre_tool_call                                  every run of the session
    post_tool_call  on_tool_call_result / on_tool_call_error       calls that had a pre_tool_call
    output          post_agent                                     top-level run only
    agent_shutdown  on_chat_end (a Session: on_session_close)      top-level run only

A sub-agent's runs are calls of its caller's session (their branch is in
``extensions.agenthooks``); a run whose caller the spec never saw (the spec is installed on a
sub-agent's own bus only) is a top-level run of its own.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from agent_hooks import (
    AgentContext,
    AgentContextBuilder,
    ApprovalResolver,
    CompositionConfig,
    EnforcementMode,
    HostRegistry,
    InterceptionEmitter,
    InterceptionPoint,
    InterceptionRecord,
    Interceptor,
)
from agent_hooks.emitter import DEFAULT_TIMEOUT

from agenthooks import Deny, HookBus, RunAborted
from agenthooks.events import (
    ChatEndContext,
    ChatStartContext,
    EventContext,
    PostAgentContext,
    PreRequestContext,
    PreToolCallContext,
    ResponseContext,
    SessionContext,
    SessionStartContext,
    ToolErrorContext,
    ToolResultContext,
    UserMessageContext,
)

from . import projection as p
from .incremental import IncrementalOutput, segment_wire, self_deny
from .settings import SpecSettings

FRAMEWORK = "agenthooks"
"""``agent.framework`` of every context."""

Writer = Callable[[Any], Any]


@dataclass
class _Session:
    """One standard session: a bare ``chat()`` (with its sub-agent runs) or a ``Session``."""

    builder: AgentContextBuilder
    session_id: str
    denied: str | None = None
    tool_calls: int = 0
    open_calls: set[tuple[str, str]] = field(default_factory=set)
    models: dict[str, str] = field(default_factory=dict)


class AgentHooksSpec:
    """Run AGENT-HOOKS-0.1 ``interceptors`` on every run of a bus: ``bus.use(AgentHooksSpec(
    [policy]))`` returns the disposer.

    Fail closed: with zero interceptors in enforce mode every run is denied
    (``host_error:no_interceptor``); a context that cannot be built or a transform that cannot
    be written back denies the step (evaluate_only records it and goes on).

    Args:
        interceptors: Objects with ``intercept(context)`` (sync or async) returning a
            ``Verdict`` or a wire dict, given as a list or as a ``{name: interceptor}``
            mapping (the names go on the records).
        mode: ``"enforce"`` or ``"evaluate_only"``.
        composition: A ``CompositionConfig``; default ``sequential/first_deny``, stop.
        resolver: An ``ApprovalResolver`` that may lift liftable denies.
        timeout: Seconds each awaitable ``intercept`` / ``resolve`` may take; ``None``:
            unbounded.
        record_sink: Gets every ``InterceptionRecord`` as it is made.
        emitter: A ready ``InterceptionEmitter`` instead (one built from a host declaration,
            see ``from_declaration``); the other settings must then stay at their defaults.
        incremental_output: Mediate a streamed answer segment by segment (§12.1a): text
            reaches the consumer only under a verdict that covers it.
    """

    name = "agent-hooks-spec"

    def __init__(
        self,
        interceptors: Iterable[Interceptor] | Mapping[str, Interceptor] = (),
        *,
        mode: EnforcementMode | str = EnforcementMode.ENFORCE,
        composition: CompositionConfig | None = None,
        resolver: ApprovalResolver | None = None,
        timeout: float | None = DEFAULT_TIMEOUT,
        record_sink: Callable[[InterceptionRecord], None] | None = None,
        emitter: InterceptionEmitter | None = None,
        incremental_output: bool = False,
    ) -> None:
        options = SpecSettings.of(
            "AgentHooksSpec", mode=mode, timeout=timeout, incremental_output=incremental_output
        )
        named = _named(interceptors)
        if emitter is None:
            emitter = InterceptionEmitter(
                mode=options.mode,
                resolver=resolver,
                timeout=options.timeout,
                composition=composition,
            )
        elif (
            options.mode is not EnforcementMode.ENFORCE
            or composition is not None
            or resolver is not None
            or timeout != DEFAULT_TIMEOUT
        ):
            raise ValueError(
                "AgentHooksSpec(emitter=...) takes its mode, composition, resolver "
                "and timeout from the emitter: configure them there"
            )
        for interceptor_name, interceptor in named:
            emitter.register(interceptor, name=interceptor_name)
        if record_sink is not None:
            emitter.set_record_sink(record_sink)
        self.emitter = emitter
        """The SDK emitter every emission goes through (``results`` holds its records)."""
        self._sessions: dict[str, _Session] = {}
        self._run_keys: dict[str, str] = {}  # run id -> key of its session in _sessions
        self._roots: set[str] = set()  # runs whose input, output (and lifecycle) are emitted
        self.incremental_output = options.incremental_output
        """Streamed model calls are mediated segment by segment (``incremental.py``)."""
        self.middleware = [IncrementalOutput(self)] if options.incremental_output else []
        # run id -> the outcome a mediated stream settled, for its on_response
        self._streamed: dict[str, Deny | None] = {}

    @classmethod
    def from_env(
        cls,
        interceptors: Iterable[Interceptor] | Mapping[str, Interceptor] = (),
        *,
        composition: CompositionConfig | None = None,
        resolver: ApprovalResolver | None = None,
        record_sink: Callable[[InterceptionRecord], None] | None = None,
    ) -> AgentHooksSpec:
        """An ``AgentHooksSpec`` of ``interceptors`` whose ``mode``, ``timeout`` and
        ``incremental_output`` the ``AGENTHOOKS_AGENT_HOOKS_SPEC_*`` variables set (a
        deployment switching to ``evaluate_only`` without a code change).

        Raises:
            PluginOptionError: Naming the variable that is unknown or bad.
        """
        options = SpecSettings.from_env()
        return cls(
            interceptors,
            mode=options.mode,
            composition=composition,
            resolver=resolver,
            timeout=options.timeout,
            record_sink=record_sink,
            incremental_output=options.incremental_output,
        )

    @classmethod
    def from_declaration(
        cls,
        document: Any,
        registry: HostRegistry,
        *,
        record_sink: Callable[[InterceptionRecord], None] | None = None,
    ) -> AgentHooksSpec:
        """An ``AgentHooksSpec`` whose emitter is built from a host declaration ``document``
        (a dict) through the SDK's loader; a refused document raises ``DeclarationError``.
        A declaration whose resolved surface says ``buffered_output: false`` turns on
        incremental output."""
        emitter = InterceptionEmitter.from_declaration_value(document, registry)
        # the resolved surface, not the document: the loader fills what the document omits
        # (§7.7.4), so the value the emitter enforces is the one that counts
        resolved = emitter.declaration
        buffered = resolved.surface.get("buffered_output", True) if resolved is not None else True
        return cls(
            emitter=emitter,
            record_sink=record_sink,
            incremental_output=buffered is False,
        )

    @property
    def mode(self) -> EnforcementMode:
        """The emitter's enforcement mode."""
        return self.emitter.mode

    def setup(self, bus: HookBus) -> None:
        """Register one guard per mapped event (the plugin contract's ``setup(bus)``)."""
        # one loop over events of different context types: each handler takes its own
        handlers: tuple[tuple[str, Callable[[Any], Any]], ...] = (
            ("on_session_start", self._on_session_start),
            ("on_chat_start", self._on_chat_start),
            ("on_user_message", self._on_user_message),
            ("pre_request", self._on_pre_request),
            ("on_response", self._on_response),
            ("pre_tool_call", self._on_pre_tool_call),
            ("on_tool_call_result", self._on_tool_result),
            ("on_tool_call_error", self._on_tool_error),
            ("on_chat_end", self._on_chat_end),
            ("on_session_close", self._on_session_close),
        )
        for event, handler in handlers:
            bus.on(event, handler, guard=True)
        if self.incremental_output:
            # post_model_call verdicts gate what a stream releases (§12.1 exception): a guard on
            # post_agent would hold the whole answer back, so output runs last of the
            # ordinary handlers instead
            bus.on("post_agent", self._on_post_agent, priority=-(10**9))
        else:
            bus.on("post_agent", self._on_post_agent, guard=True)

    # agent_startup / agent_shutdown --------------------------------------------------------

    async def _on_session_start(self, ctx: SessionStartContext) -> Deny | None:
        key = ctx.session_id or ctx.run_id
        return await self._start(self._open(key, ctx), ctx, ctx.tools)

    async def _on_chat_start(self, ctx: ChatStartContext) -> Deny | None:
        parent_key = self._run_keys.get(ctx.parent_run_id or "")
        if parent_key is not None:  # a sub-agent's run: calls of its parent's session
            self._run_keys[ctx.run_id] = parent_key
            return None
        # a top-level run, or a run whose parent this spec never saw (the spec is installed on
        # a sub-agent's own bus only): its input and output are emitted
        self._roots.add(ctx.run_id)
        if ctx.session_id is not None and ctx.parent_run_id is None:
            self._run_keys[ctx.run_id] = ctx.session_id
            state = self._sessions.get(ctx.session_id)
            if state is None:  # installed after the session's first chat: it starts now
                return await self._start(self._open(ctx.session_id, ctx), ctx, ctx.tools)
            return Deny(state.denied) if state.denied is not None else None
        self._run_keys[ctx.run_id] = ctx.run_id  # one chat, one session of the standard
        return await self._start(self._open(ctx.run_id, ctx), ctx, ctx.tools)

    async def _start(self, state: _Session, ctx: EventContext, tools: list[str]) -> Deny | None:
        wire = self._stamp(state.builder.agent_startup(tools_registered=list(tools)), ctx)
        record = await self.emitter.emit_unchecked(wire)
        if record.proceeds:
            return None
        deny = _deny(record)
        state.denied = deny.text()
        return deny

    async def _on_chat_end(self, ctx: ChatEndContext) -> None:
        key = self._run_keys.pop(ctx.run_id, None)
        self._roots.discard(ctx.run_id)
        state = self._sessions.get(key) if key is not None else None
        if state is None:
            return
        state.models.pop(ctx.run_id, None)
        state.open_calls = {c for c in state.open_calls if c[0] != ctx.run_id}
        if key != ctx.run_id:  # a sub-agent's run, or one chat of a Session
            return
        del self._sessions[key]
        await self._shutdown(state, ctx, _end_reason(ctx), duration_seconds=ctx.duration)

    async def _on_session_close(self, ctx: SessionContext) -> None:
        state = self._sessions.pop(ctx.session_id or "", None)
        if state is not None:
            await self._shutdown(state, ctx, "error" if state.denied is not None else "completed")

    async def _shutdown(
        self, state: _Session, ctx: EventContext, reason: str, **summary: Any
    ) -> None:
        wire = state.builder.agent_shutdown(reason=reason, tool_calls=state.tool_calls, **summary)
        # nothing is left to refuse at shutdown: the record is the outcome
        await self.emitter.emit_unchecked(self._stamp(wire, ctx))

    # input / output ---------------------------------------------------------------------------

    async def _on_user_message(self, ctx: UserMessageContext) -> Any:
        if ctx.run_id not in self._roots:
            return None
        return await self._guard(
            ctx,
            InterceptionPoint.INPUT,
            lambda b: b.input(content=ctx.message, role="user"),
            lambda c: c["input"]["content"],
            lambda v: {"message": p.text_from_wire(v, "$target.content")},
        )

    async def _on_post_agent(self, ctx: PostAgentContext) -> Any:
        if ctx.run_id not in self._roots:
            return None
        response = ctx.response
        return await self._guard(
            ctx,
            InterceptionPoint.OUTPUT,
            lambda b: b.output(content=response.content),
            lambda c: c["output"]["content"],
            lambda v: {
                "response": response.model_copy(
                    update={"content": p.text_from_wire(v, "$target.content", nullable=True)}
                )
            },
        )

    # model calls ------------------------------------------------------------------------------

    async def _on_pre_request(self, ctx: PreRequestContext) -> Any:
        request = ctx.request
        model_id = request.model or _provider_model(ctx.provider)
        state = self._state(ctx)
        if state is not None:
            state.models[ctx.run_id] = model_id

        def build(b: AgentContextBuilder) -> AgentContext:
            tools = p.tools_to_wire(request)
            return b.pre_model_call(
                model_id=model_id, messages=p.request_to_wire(request), tools=tools or None
            )

        return await self._guard(
            ctx,
            InterceptionPoint.PRE_MODEL_CALL,
            build,
            lambda c: c["messages"],
            lambda v: {"request": p.request_from_wire(request, v)},
        )

    async def _on_response(self, ctx: ResponseContext) -> Any:
        if ctx.run_id in self._streamed:  # a mediated stream emitted and settled it already
            return self._streamed.pop(ctx.run_id)
        return await self._post_model_call(ctx, ctx.response)

    async def _post_model_call(
        self, ctx: ResponseContext | PreRequestContext, response: Any
    ) -> Any:
        state = self._state(ctx)
        model_id = self._model_id(ctx, state)

        def build(b: AgentContextBuilder) -> AgentContext:
            wire = p.response_to_wire(response)
            return b.post_model_call(
                model_id=model_id,
                content=wire["content"],
                tool_calls=wire["tool_calls"],
                finish_reason=wire["finish_reason"],
                usage=p.usage_to_wire(response.usage),
            )

        return await self._guard(
            ctx,
            InterceptionPoint.POST_MODEL_CALL,
            build,
            lambda c: c["response"],
            lambda v: {"response": p.response_from_wire(response, v)},
        )

    def _model_id(self, ctx: ResponseContext | PreRequestContext, state: _Session | None) -> str:
        return (state.models.get(ctx.run_id) if state is not None else None) or ctx.request.model

    # incremental output (incremental.py) ------------------------------------------------------

    async def segment(self, ctx: PreRequestContext, text: str) -> Deny | None:
        """``post_model_call`` on the text streamed so far (``finish_reason: incremental``):
        None releases it, a ``Deny`` withholds it and the rest."""
        state = self._state(ctx)
        if state is None:
            return self._failed(None, InterceptionPoint.POST_MODEL_CALL, "no session for the run")
        try:
            wire = segment_wire(self, state, ctx, self._model_id(ctx, state), text)
        except p.ProjectionError as exc:
            return self._failed(state, InterceptionPoint.POST_MODEL_CALL, str(exc))
        before = p.fingerprint(wire["response"])
        record = await self.emitter.emit_unchecked(wire)
        if not record.proceeds:
            return _deny(record)
        if p.fingerprint(wire["response"]) != before:
            return Deny(
                "host_error:streaming_unsupported: a streamed segment cannot be transformed"
            )
        return None

    def residue(self, ctx: PreRequestContext, text: str, detail: str | None = None) -> Deny:
        """Text no emission allowed (a cut stream's tail): denied and recorded as such."""
        state = self._state(ctx)
        if state is None:
            return Deny("host_error:streaming_unsupported")
        wire = segment_wire(self, state, ctx, self._model_id(ctx, state), text)
        return self_deny(self, wire, detail)

    async def final(self, ctx: PreRequestContext, response: Any) -> Any:
        """``post_model_call`` on the whole streamed response (its last segment's cover)."""
        return await self._post_model_call(ctx, response)

    def settled(self, ctx: PreRequestContext, outcome: Deny | None) -> None:
        """What ``on_response`` answers for this run's mediated call."""
        self._streamed[ctx.run_id] = outcome

    # tool calls -------------------------------------------------------------------------------

    async def _on_pre_tool_call(self, ctx: PreToolCallContext) -> Any:
        call = ctx.call
        call_id = ctx.tool_call_id or call.id
        state = self._state(ctx)

        def proceeded() -> None:
            if state is not None:
                state.open_calls.add((ctx.run_id, call_id))
                state.tool_calls += 1

        return await self._guard(
            ctx,
            InterceptionPoint.PRE_TOOL_CALL,
            lambda b: b.pre_tool_call(
                call_id=call_id, name=call.name, args=p.to_json(call.arguments, "$target")
            ),
            lambda c: c["tool_call"]["args"],
            lambda v: {"call": p.args_from_wire(call, v)},
            proceeded=proceeded,
        )

    def _take_open(self, ctx: ToolResultContext | ToolErrorContext) -> _Session | None:
        """The session of a call that had a ``pre_tool_call`` emission, which it closes."""
        state = self._state(ctx)
        key = (ctx.run_id, ctx.tool_call_id or ctx.call.id)
        if state is None or key not in state.open_calls:
            return None
        state.open_calls.discard(key)
        return state

    async def _on_tool_result(self, ctx: ToolResultContext) -> Any:
        if self._take_open(ctx) is None:
            return None
        call = ctx.call
        return await self._guard(
            ctx,
            InterceptionPoint.POST_TOOL_CALL,
            lambda b: b.post_tool_call(
                call_id=ctx.tool_call_id or call.id,
                name=call.name,
                args=p.to_json(call.arguments, "$.tool_call.args"),
                value=p.result_to_wire(ctx.result),
                is_error=False,
                duration_ms=ctx.duration * 1000,
            ),
            lambda c: c["tool_result"]["value"],
            lambda v: {"result": v},
        )

    async def _on_tool_error(self, ctx: ToolErrorContext) -> Any:
        if ctx.recovered:  # an ordinary handler recovered: on_tool_call_result reports it
            return None
        if self._take_open(ctx) is None:
            return None
        call = ctx.call
        outcome = await self._guard(
            ctx,
            InterceptionPoint.POST_TOOL_CALL,
            lambda b: b.post_tool_call(
                call_id=ctx.tool_call_id or call.id,
                name=call.name,
                args=p.to_json(call.arguments, "$.tool_call.args"),
                value=p.error_to_wire(ctx.error),
                is_error=True,
                duration_ms=ctx.duration * 1000,
            ),
            lambda c: c["tool_result"]["value"],
            lambda v: {"error": p.error_from_wire(v)},
        )
        if isinstance(outcome, Deny):  # on_tool_call_error cannot deny: the error becomes it
            return {"error": outcome.text(call.name)}
        return outcome

    # the one emission path --------------------------------------------------------------------

    async def _guard(
        self,
        ctx: EventContext,
        point: InterceptionPoint,
        build: Callable[[AgentContextBuilder], AgentContext],
        read: Callable[[AgentContext], Any],
        write: Writer,
        proceeded: Callable[[], None] | None = None,
    ) -> Any:
        """Build the context, emit it, and answer the bus: ``Deny`` when the emission blocked
        (or the context could not be built or written back, in enforce mode), the write-back
        return when a transform changed the target, else ``None``."""
        state = self._state(ctx)
        if state is None:
            return self._failed(
                None,
                point,
                f"no session for run {ctx.run_id!r}: install the plugin before the run starts",
            )
        try:
            wire = self._stamp(build(state.builder), ctx)
        except p.ProjectionError as exc:
            return self._failed(state, point, str(exc))
        before = p.fingerprint(read(wire))
        record = await self.emitter.emit_unchecked(wire)
        if not record.proceeds:
            return _deny(record)
        if proceeded is not None:
            proceeded()
        after = read(wire)  # the emitter writes transforms into the context it was given
        if p.fingerprint(after) == before:
            return None
        try:
            return write(after)
        except p.ProjectionError as exc:
            return self._failed(state, point, f"write-back: {exc}")

    def _failed(self, state: _Session | None, point: InterceptionPoint, detail: str) -> Deny | None:
        """A projection failure: the SDK's fail-closed host record, then a deny (enforce)."""
        if state is None:
            self.emitter.record_host_failure(point, detail)
        else:
            self.emitter.record_host_failure(
                point, detail, session_id=state.session_id, sequence=_next_sequence(state.builder)
            )
        if self.emitter.mode is EnforcementMode.EVALUATE_ONLY:
            return None
        return Deny(f"host_error:context_invalid: {detail}")

    # sessions ---------------------------------------------------------------------------------

    def _open(self, key: str, ctx: EventContext) -> _Session:
        builder = AgentContextBuilder(
            agent_id=ctx.agent,
            framework=FRAMEWORK,
            session_id=key,
            agent_name=ctx.agent,
            session_started_at=_now(),
        )
        state = self._sessions[key] = _Session(builder, key)
        return state

    def _state(self, ctx: EventContext) -> _Session | None:
        key = self._run_keys.get(ctx.run_id)
        return self._sessions.get(key) if key is not None else None

    @staticmethod
    def _stamp(wire: AgentContext, ctx: EventContext) -> AgentContext:
        """Where in agenthooks the emission comes from (a sub-agent's branch included)."""
        origin = {"run_id": ctx.run_id, "agent": ctx.agent, "branch": ctx.branch}
        if ctx.parent_run_id is not None:
            origin["parent_run_id"] = ctx.parent_run_id
        wire["extensions"] = {"agenthooks": {k: v for k, v in origin.items() if v}}
        return wire


def _named(
    interceptors: Iterable[Interceptor] | Mapping[str, Interceptor],
) -> list[tuple[str | None, Interceptor]]:
    if isinstance(interceptors, Mapping):
        pairs: list[tuple[str | None, Any]] = list(interceptors.items())
    else:
        pairs = [(None, i) for i in interceptors]
    for name, interceptor in pairs:
        if not callable(getattr(interceptor, "intercept", None)):
            raise TypeError(
                f"interceptor {name or interceptor!r} has no intercept(context) "
                "method; an AGENT-HOOKS-0.1 interceptor returns a Verdict from "
                "intercept(context)"
            )
    return pairs


def _deny(record: InterceptionRecord) -> Deny:
    """The bus's ``Deny`` for a blocked emission: the verdict's reason and message."""
    verdict = record.verdict
    text = ": ".join(part for part in (verdict.reason, verdict.message) if part)
    return Deny(text or None)


def _provider_model(provider: Any) -> str:
    """The model a request without ``model`` goes to: the provider's own, else its name."""
    for attr in ("model", "name"):
        value = getattr(provider, attr, None)
        if isinstance(value, str) and value:
            return value
    return ""


def _end_reason(ctx: ChatEndContext) -> str:
    if isinstance(ctx.error, (asyncio.CancelledError, RunAborted)):
        return "cancelled"
    if ctx.error is not None:
        return "error"
    if ctx.response is not None and ctx.response.finish_reason == "denied":
        return "error"
    return "completed"


def _next_sequence(builder: AgentContextBuilder) -> int:
    # the builder's methods are the only public source of the session's sequence numbers: a
    # host failure record takes the number its failed emission would have carried
    sequence: int = builder.agent_shutdown(reason="error")["sequence"]
    return sequence


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


__all__ = ["FRAMEWORK", "AgentHooksSpec"]
