"""``OtelPlugin``: an ``invoke_agent`` span per run, a ``chat`` span per model call and an
``execute_tool`` span per tool call, named and attributed after the OpenTelemetry GenAI
semantic conventions.

Every handler is an observer registered first (highest priority, so no other handler's
short-circuit or deny hides an event from it) with ``errors="isolate"``, and swallows its own
exceptions: a broken exporter or tracer never changes a run.

Captured content, error texts and deny reasons pass through the redaction of every redacting
plugin that reaches the run (``agenthooks.redaction``), whatever order the plugins were
installed in: no span carries text a redaction would have removed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from typing import Any

from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.trace import (
    NonRecordingSpan,
    Span,
    SpanContext,
    SpanKind,
    TraceFlags,
    Tracer,
    TracerProvider,
)

from agenthooks import HookBus, RunAborted
from agenthooks.events import (
    ChatAbortContext,
    ChatDoneContext,
    ChatEndContext,
    ChatErrorContext,
    ChatPausedContext,
    ChatStartContext,
    EventContext,
    HandoffContext,
    MessageContext,
    ModelErrorContext,
    PreRequestContext,
    PreToolCallContext,
    ResponseContext,
    RunResumedContext,
    SubagentContext,
    ToolErrorContext,
    ToolResultContext,
)
from agenthooks.plugins import ExportRedaction

from . import attributes as a
from .middleware import SpanContextMiddleware
from .settings import OtelSettings
from .spans import OpenSpan, deny_failure, safe, swallowed

FIRST = 10**9
"""The handlers' priority: before every ordinary handler of an event."""

ToolKey = tuple[str, str]


class OtelPlugin:
    """OpenTelemetry spans for agent runs, model calls and tool calls.

    Install one instance on every bus whose runs it should trace: a sub-agent with a bus of
    its own is traced (and parented under its parent's ``execute_tool`` span) when the same
    instance is installed on that bus too.

    Args:
        tracer_provider: Where the spans go; default: the global one (``opentelemetry.trace``).
        capture_content: Add the messages, instructions, tool arguments and tool results as
            ``gen_ai.*`` attributes; off by default, since they may hold personal data.

    Raises:
        PluginOptionError: An option has a bad value.
    """

    name = "otel"
    version = "0.1.0"
    priority = FIRST
    errors = "isolate"

    def __init__(
        self, tracer_provider: TracerProvider | None = None, capture_content: bool = False
    ) -> None:
        options = OtelSettings.of(
            "OtelPlugin", tracer_provider=tracer_provider, capture_content=capture_content
        )
        self.capture_content: bool = options.capture_content
        self._tracer: Tracer = (
            tracer_provider.get_tracer("agenthooks_otel", self.version)
            if tracer_provider is not None
            else trace.get_tracer("agenthooks_otel", self.version)
        )
        self._agents: dict[str, OpenSpan] = {}
        self._chats: dict[str, OpenSpan] = {}
        self._tools: dict[ToolKey, OpenSpan] = {}
        # (parent run_id, sub-agent name) -> [(task, delegating tool_call_id)], oldest first:
        # how a sub-agent's first event finds the parent's execute_tool span
        self._delegations: dict[tuple[str, str], list[tuple[str, str]]] = {}
        self.middleware = [SpanContextMiddleware(self)]
        self._redaction = ExportRedaction()

    @classmethod
    def from_env(cls) -> OtelPlugin:
        """The plugin the ``AGENTHOOKS_OTEL_*`` variables configure, on the global tracer
        provider (the ``otel`` entry point builds it so): ``CAPTURE_CONTENT`` (``1`` / ``0``).

        Raises:
            PluginOptionError: Naming the variable that is unknown or bad.
        """
        return cls(capture_content=OtelSettings.from_env().capture_content)

    def setup(self, bus: HookBus) -> Callable[[], None]:
        """Follow the redacting plugins that reach the bus's runs; returns the undo."""
        return self._redaction.watch(bus)

    def _redact(self, run_id: str) -> Callable[[Any], Any]:
        """What run ``run_id``'s captured texts pass through before they become attributes."""
        return partial(self._redaction, run_id=run_id)

    # lookups (also used by the middleware) -------------------------------------------------

    def current_span(self, ctx: Any) -> Span | None:
        """The open span a provider-stack or tool-stack context belongs to, if any."""
        call_id = getattr(ctx, "tool_call_id", None)
        found = (
            self._tools.get((ctx.run_id, call_id))
            if call_id is not None
            else self._chats.get(ctx.run_id)
        )
        return found.span if found is not None else None

    @property
    def open_spans(self) -> int:
        """How many spans are open right now (0 between runs)."""
        return len(self._agents) + len(self._chats) + len(self._tools)

    # runs ----------------------------------------------------------------------------------

    def _agent(
        self, ctx: EventContext, task: str | None = None, parent: Context | None = None
    ) -> OpenSpan:
        """The run's ``invoke_agent`` span, started on the run's first event (under
        ``parent`` when given: a resumed run's, under the span its pause ended)."""
        found = self._agents.get(ctx.run_id)
        if found is not None:
            return found
        attrs: dict[str, Any] = {
            a.OPERATION: "invoke_agent",
            a.AGENT_NAME: ctx.agent,
            a.RUN_ID: ctx.run_id,
            a.BRANCH: ctx.branch,
        }
        if ctx.parent_run_id is not None:
            attrs[a.PARENT_RUN_ID] = ctx.parent_run_id
        if ctx.session_id is not None:
            attrs[a.CONVERSATION_ID] = ctx.session_id
        span = self._tracer.start_span(
            f"invoke_agent {ctx.agent}",
            context=parent if parent is not None else self._parent(ctx, task),
            kind=SpanKind.INTERNAL,
            attributes=attrs,
        )
        opened = self._agents[ctx.run_id] = OpenSpan(span, redact=self._redact(ctx.run_id))
        return opened

    def _parent(self, ctx: EventContext, task: str | None) -> Context | None:
        """A top-level run joins the caller's current context (``None``); a sub-agent's run
        goes under the parent's ``execute_tool`` span of the delegating call."""
        parent_run = ctx.parent_run_id
        if parent_run is None:
            return None
        parent: OpenSpan | None = None
        pending = self._delegations.get((parent_run, ctx.agent))
        if pending:
            index = next((i for i, (t, _) in enumerate(pending) if t == task), 0)
            _, call_id = pending.pop(index)
            if not pending:
                del self._delegations[(parent_run, ctx.agent)]
            parent = self._tools.get((parent_run, call_id))
        if parent is None:
            parent = self._agents.get(parent_run)
        return trace.set_span_in_context(parent.span) if parent is not None else None

    @safe
    def on_chat_start(self, ctx: ChatStartContext) -> None:
        """Open the run's ``invoke_agent`` span (a sub-agent's under its delegating call's span)."""
        opened = self._agent(ctx, ctx.message)
        if self.capture_content:  # set when the span ends, once the run's redaction is known
            opened.input = ctx.message

    @safe
    def on_handoff(self, ctx: HandoffContext) -> None:
        """Add an ``agenthooks.handoff`` event, naming both agents, to the run's span."""
        self._agent(ctx).span.add_event(
            "agenthooks.handoff", {"from_agent": ctx.from_agent, "to_agent": ctx.to_agent}
        )

    @safe
    def on_chat_done(self, ctx: ChatDoneContext) -> None:
        """Mark the run's span denied when the run ended with ``finish_reason="denied"``."""
        if ctx.response.finish_reason == "denied":
            self._agent(ctx).deny(ctx.response.content or "denied")

    @safe
    def on_chat_error(self, ctx: ChatErrorContext) -> None:
        """Record the run's exception on its span."""
        opened = self._agent(ctx)
        if ctx.error is not None:
            opened.record_exception(ctx.error)

    @safe
    def on_chat_abort(self, ctx: ChatAbortContext) -> None:
        """Set the abort reason, redacted, on the run's span."""
        opened = self._agent(ctx)
        opened.span.set_attribute(a.ABORT_REASON, str(opened.redact(str(ctx.reason))))

    @safe
    def on_chat_paused(self, ctx: ChatPausedContext) -> None:
        """Keep the run's span in the pause (``ctx.state["otel"]``: its trace and span ids),
        so the resumed run's span joins the same trace, in any process."""
        found = self._agents.get(ctx.run_id)
        if found is None:
            return
        span = found.span.get_span_context()
        if span.is_valid:
            ctx.state[self.name] = {
                "trace_id": format(span.trace_id, "032x"),
                "span_id": format(span.span_id, "016x"),
                "trace_flags": int(span.trace_flags),
            }

    @safe
    def on_run_resumed(self, ctx: RunResumedContext) -> None:
        """Open the resumed run's ``invoke_agent`` span as a child of the span its pause
        ended, in the same trace (a new trace when the pause kept none)."""
        if ctx.run_id in self._agents:
            return
        kept = ctx.state.get(self.name)
        parent: Context | None = None
        if isinstance(kept, dict):
            paused = SpanContext(
                trace_id=int(kept["trace_id"], 16),
                span_id=int(kept["span_id"], 16),
                is_remote=True,
                trace_flags=TraceFlags(int(kept.get("trace_flags", 1))),
            )
            parent = trace.set_span_in_context(NonRecordingSpan(paused))
        opened = self._agent(ctx, parent=parent)
        opened.span.set_attribute(a.RESUMED, True)

    @safe
    def on_chat_end(self, ctx: ChatEndContext) -> None:
        """The run is over: its leftover chat and tool spans end with the run's outcome (an
        abort: "cancelled"), then the ``invoke_agent`` span."""
        run_id = ctx.run_id
        error = ctx.error
        aborted = isinstance(error, (asyncio.CancelledError, RunAborted))
        leftovers = [self._tools.pop(key) for key in [k for k in self._tools if k[0] == run_id]]
        chat = self._chats.pop(run_id, None)
        if chat is not None:
            leftovers.append(chat)
        for key in [k for k in self._delegations if k[0] == run_id]:
            del self._delegations[key]
        for opened in leftovers:
            with swallowed("end_leftover_span", run_id=run_id):
                if opened.error_type is None and error is not None:
                    opened.fail(
                        a.error_type(error), "cancelled" if aborted else a.error_text(error)
                    )
                elif (
                    opened.error_type is None
                    and ctx.response is not None
                    and ctx.response.finish_reason == "denied"
                ):
                    opened.deny(ctx.response.content or "denied")
                opened.end()
        agent = self._agent(ctx)
        del self._agents[run_id]
        try:
            span = agent.span
            if agent.input is not None:
                span.set_attribute(
                    a.INPUT_MESSAGES, a.text_messages("user", agent.input, redact=agent.redact)
                )
            span.set_attribute(a.INPUT_TOKENS, ctx.usage.input_tokens)
            span.set_attribute(a.OUTPUT_TOKENS, ctx.usage.output_tokens)
            response = ctx.response
            if response is not None:
                span.set_attribute(a.FINISH_REASONS, (response.finish_reason,))
                if response.agent is not None:
                    span.set_attribute(a.RESPONSE_AGENT, response.agent)
                if self.capture_content:
                    span.set_attribute(
                        a.OUTPUT_MESSAGES,
                        a.text_messages(
                            "assistant",
                            response.content,
                            response.finish_reason,
                            redact=agent.redact,
                        ),
                    )
            if error is not None:
                agent.fail(a.error_type(error), "cancelled" if aborted else a.error_text(error))
        finally:
            agent.end()
            self._redaction.forget(run_id)

    # model calls ---------------------------------------------------------------------------

    @safe
    def pre_request(self, ctx: PreRequestContext) -> None:
        """Open the model call's ``chat`` span under the run's span."""
        parent = self._agent(ctx)
        stale = self._chats.pop(ctx.run_id, None)
        if stale is not None:
            stale.end()
        attrs: dict[str, Any] = {
            a.OPERATION: "chat",
            a.RUN_ID: ctx.run_id,
            a.REQUEST_STREAM: ctx.stream,
        }
        provider = getattr(ctx.provider, "name", None)
        if isinstance(provider, str) and provider:
            attrs[a.PROVIDER] = provider
        if ctx.session_id is not None:
            attrs[a.CONVERSATION_ID] = ctx.session_id
        model = ctx.request.model or _default_model(ctx.provider)
        span = self._tracer.start_span(
            f"chat {model}" if model else "chat",
            context=trace.set_span_in_context(parent.span),
            kind=SpanKind.CLIENT,
            attributes=attrs,
        )
        self._chats[ctx.run_id] = opened = OpenSpan(span, redact=self._redact(ctx.run_id))
        self._request_attributes(opened, ctx)

    def _request_attributes(
        self, opened: OpenSpan, ctx: PreRequestContext | ResponseContext | ModelErrorContext
    ) -> None:
        """The request as sent: set when the call starts, refreshed once the ``pre_request``
        chain (which may change the model or the messages) has run."""
        request = ctx.request
        span = opened.span
        model = request.model or _default_model(getattr(ctx, "provider", None))
        if model:  # else keep what the span has (the name "chat", or an earlier model)
            span.update_name(f"chat {model}")
            span.set_attribute(a.REQUEST_MODEL, model)
        if request.temperature is not None:
            span.set_attribute(a.REQUEST_TEMPERATURE, request.temperature)
        if self.capture_content:
            redact = opened.redact
            span.set_attribute(a.INPUT_MESSAGES, a.input_messages(request.messages, redact))
            if request.system:
                span.set_attribute(
                    a.SYSTEM_INSTRUCTIONS, a.system_instructions(request.system, redact)
                )

    def _chat(self, ctx: ResponseContext | ModelErrorContext) -> OpenSpan:
        found = self._chats.get(ctx.run_id)
        if found is None:  # pre_request unseen (the plugin was installed mid-call)
            span = self._tracer.start_span(
                "chat",
                context=trace.set_span_in_context(self._agent(ctx).span),
                kind=SpanKind.CLIENT,
                attributes={a.OPERATION: "chat", a.RUN_ID: ctx.run_id},
            )
            found = self._chats[ctx.run_id] = OpenSpan(span, redact=self._redact(ctx.run_id))
        return found

    @safe
    def on_model_error(self, ctx: ModelErrorContext) -> None:
        """Mark the call's ``chat`` span failed; it stays open, as a hook may still recover."""
        opened = self._chat(ctx)
        self._request_attributes(opened, ctx)
        opened.saw_error = True
        if ctx.error is not None:
            opened.fail(a.error_type(ctx.error), a.error_text(ctx.error))
            opened.record_exception(ctx.error)
        # the span stays open: a recovery's on_response, else the run's on_chat_end, ends it

    @safe
    def on_response(self, ctx: ResponseContext) -> None:
        """End the call's ``chat`` span with the finish reason, usage and response model."""
        opened = self._chat(ctx)
        del self._chats[ctx.run_id]
        try:
            self._request_attributes(opened, ctx)
            span = opened.span
            response = ctx.response
            span.set_attribute(a.FINISH_REASONS, (response.finish_reason,))
            span.set_attribute(a.INPUT_TOKENS, response.usage.input_tokens)
            span.set_attribute(a.OUTPUT_TOKENS, response.usage.output_tokens)
            raw = response.raw
            if isinstance(raw, dict):
                if isinstance(raw.get("model"), str):
                    span.set_attribute(a.RESPONSE_MODEL, raw["model"])
                if isinstance(raw.get("id"), str):
                    span.set_attribute(a.RESPONSE_ID, raw["id"])
            if self.capture_content:
                span.set_attribute(a.OUTPUT_MESSAGES, a.output_messages(response, opened.redact))
            if opened.saw_error:  # a hook recovered: the run got a response after all
                span.set_attribute(a.RECOVERED, True)
                opened.error_type = opened.error_text = None
        finally:
            opened.end()

    # tool calls ----------------------------------------------------------------------------

    def _tool(self, ctx: PreToolCallContext | ToolResultContext | ToolErrorContext) -> OpenSpan:
        key = (ctx.run_id, ctx.tool_call_id)
        found = self._tools.get(key)
        if found is not None:
            return found
        attrs: dict[str, Any] = {
            a.OPERATION: "execute_tool",
            a.TOOL_NAME: ctx.call.name,
            a.TOOL_CALL_ID: ctx.tool_call_id,
            a.TOOL_TYPE: "function",
            a.RUN_ID: ctx.run_id,
        }
        if ctx.tool is not None and ctx.tool.description:
            attrs[a.TOOL_DESCRIPTION] = ctx.tool.description
        redact = self._redact(ctx.run_id)
        if self.capture_content:
            attrs[a.TOOL_ARGUMENTS] = a.dumps(redact(ctx.call.arguments))
        span = self._tracer.start_span(
            f"execute_tool {ctx.call.name}",
            context=trace.set_span_in_context(self._agent(ctx).span),
            kind=SpanKind.INTERNAL,
            attributes=attrs,
        )
        found = self._tools[key] = OpenSpan(span, redact=redact)
        return found

    @safe
    def pre_tool_call(self, ctx: PreToolCallContext) -> None:
        """Open the call's ``execute_tool`` span."""
        self._tool(ctx)

    @safe
    def on_tool_call_result(self, ctx: ToolResultContext) -> None:
        """Note that the tool returned; the call's tool message ends its span (``on_message``)."""
        self._tool(ctx).saw_result = True

    @safe
    def on_tool_call_error(self, ctx: ToolErrorContext) -> None:
        """Mark the call's ``execute_tool`` span failed or denied, with the error's source."""
        opened = self._tool(ctx)
        opened.saw_error = True
        opened.span.set_attribute(a.ERROR_SOURCE, ctx.source)
        if ctx.source == "denied":
            deny_failure(opened, a.error_text(ctx.error))
            return
        opened.fail(a.error_type(ctx.error), a.error_text(ctx.error))
        if isinstance(ctx.error, BaseException):
            opened.record_exception(ctx.error)

    @safe
    def on_message(self, ctx: MessageContext) -> None:
        """A tool message is the call's final outcome (after every hook had its say): the
        ``execute_tool`` span ends here."""
        message = ctx.message
        if message.role != "tool" or message.tool_call_id is None:
            return
        key = (ctx.run_id, message.tool_call_id)
        opened = self._tools.get(key)
        if opened is None:
            return
        text = message.content or ""
        if message.is_error:
            if opened.saw_error:
                if opened.denied is None:
                    opened.error_text = text
            elif opened.saw_result:  # a later on_tool_call_result handler denied the result
                deny_failure(opened, text)
            else:  # written by the teardown of an aborted or failed run: on_chat_end ends it
                return
        elif opened.saw_error:  # an on_tool_call_error handler recovered
            opened.span.set_attribute(a.RECOVERED, True)
            opened.error_type = opened.error_text = None
        del self._tools[key]
        try:
            if self.capture_content and not message.is_error:
                opened.span.set_attribute(a.TOOL_RESULT, str(opened.redact(text)))
        finally:
            opened.end()

    @safe
    def on_subagent_start(self, ctx: SubagentContext) -> None:
        """Note a delegation by tool call: the sub-agent's run span goes under that call's span."""
        call_id = ctx.tool_call_id
        if call_id is None:  # not a delegation through a tool call: parent under the run
            return
        self._delegations.setdefault((ctx.run_id, ctx.subagent), []).append((ctx.task, call_id))
        opened = self._tools.get((ctx.run_id, call_id))
        if opened is not None:
            opened.span.set_attribute(a.SUBAGENT, ctx.subagent)

    def teardown(self) -> None:
        """Removed from its bus: end every span still open, so none leaks."""
        for opened in [*self._tools.values(), *self._chats.values(), *self._agents.values()]:
            with swallowed("teardown"):
                opened.end()
        self._tools.clear()
        self._chats.clear()
        self._agents.clear()
        self._delegations.clear()


def _default_model(provider: Any) -> str | None:
    """The model a provider asks for when the request names none (``OpenAIChatProvider``'s
    ``model``)."""
    model = getattr(provider, "model", None)
    return model if isinstance(model, str) and model else None


__all__ = ["FIRST", "OtelPlugin"]
