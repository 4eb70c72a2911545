"""The event catalog: every lifecycle point declared once, with its kind, context, what it may
return and the seed names that alias it (``spec/events.md`` is the contract)."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Literal

from ..errors import UnknownEventError
from . import contexts as c

Kind = Literal["observer", "interceptor", "predicate"]


@dataclass(frozen=True, slots=True)
class EventSpec:
    """How one event behaves on the bus.

    ``returns``: keys a handler may return; ``short_circuit``: keys that skip the remaining
    ordinary handlers and the downstream step; ``recovery``: keys where the first one wins;
    ``deny``: whether ``Deny`` is accepted; ``ask``: whether ``Ask`` is (the run then pauses);
    ``gate``: an isolated exception counts as ``Deny``;
    ``teardown``: every handler exception is logged and ignored; ``match``: the context
    attribute ``match=`` tests; ``groups``: the sets the runtime asks about at once
    (``model_call`` and ``tool_call``: the hook layer of each call; ``stream``;
    ``between_turns``; ``after_answer``: the work left once a run has its answer).
    """

    name: str
    kind: Kind
    context: type[c.EventContext]
    returns: frozenset[str] = frozenset()
    short_circuit: frozenset[str] = frozenset()
    recovery: frozenset[str] = frozenset()
    deny: bool = False
    ask: bool = False
    gate: bool = False
    teardown: bool = False
    match: str | None = None
    aliases: tuple[str, ...] = ()
    doc: str = ""
    groups: frozenset[str] = frozenset()

    @property
    def kind_label(self) -> str:
        """The kind as the catalog table shows it."""
        if self.kind != "interceptor":
            return self.kind
        if self.short_circuit:
            return "interceptor, short-circuit"
        if not self.returns:
            return "interceptor (Deny only)"
        return "interceptor"

    @property
    def may_return(self) -> str:
        """What a handler may return, as text."""
        if self.kind == "predicate":
            return "True stops"
        parts = [f'{{"{k}"}}' for k in sorted(self.returns)]
        if self.deny:
            parts.append("Deny(reason)")
        if self.ask:
            parts.append("Ask(reason)")
        return ", ".join(parts) or "-"


def _s(*names: str) -> frozenset[str]:
    return frozenset(names)


_TOOL = "tool_name"

CATALOG: dict[str, EventSpec] = {
    s.name: s
    for s in [
        EventSpec(
            "on_chat_start",
            "interceptor",
            c.ChatStartContext,
            deny=True,
            aliases=("onChatStart", "AgentStart", "BeforeRun", "beforeRun", "before_run"),
            doc="once at the start of a run, before the user message is appended",
        ),
        EventSpec(
            "on_user_message",
            "interceptor",
            c.UserMessageContext,
            _s("message"),
            deny=True,
            gate=True,
            aliases=("OnUserMessage", "user_message"),
            doc="when the user message arrives, before any provider call",
        ),
        EventSpec(
            "pre_agent",
            "interceptor",
            c.PreAgentContext,
            _s("response"),
            _s("response"),
            deny=True,
            gate=True,
            aliases=("BeforeAgent", "before_agent", "onAgentStart"),
            doc="before an agent (top-level, sub-agent or handoff target) starts",
        ),
        EventSpec(
            "post_agent",
            "interceptor",
            c.PostAgentContext,
            _s("response"),
            deny=True,
            aliases=("AfterAgent", "after_agent", "onAgentEnd"),
            doc="after an agent finishes, before its response reaches the caller",
        ),
        EventSpec(
            "on_session_start",
            "interceptor",
            c.SessionStartContext,
            deny=True,
            aliases=("onSessionStart",),
            doc="on a session's first chat()",
        ),
        EventSpec(
            "on_session_end",
            "observer",
            c.SessionEndContext,
            teardown=True,
            groups=_s("after_answer"),
            aliases=("onSessionEnd",),
            doc="after every chat() of a session (finally)",
        ),
        EventSpec(
            "on_session_close",
            "observer",
            c.SessionCloseContext,
            doc="once, when a Session is closed",
        ),
        EventSpec(
            "on_loop_start",
            "observer",
            c.LoopStartContext,
            aliases=("LoopStart",),
            doc="at the start of each iteration (turn)",
        ),
        EventSpec(
            "transform_context",
            "interceptor",
            c.TransformContextContext,
            _s("messages"),
            aliases=("TransformContext",),
            doc="per request, before it is built; never mutates stored history",
        ),
        EventSpec(
            "pre_request",
            "interceptor",
            c.PreRequestContext,
            _s("request", "response"),
            _s("response"),
            deny=True,
            gate=True,
            groups=_s("model_call"),
            aliases=("preRequest", "LlmCall", "PreModelCall", "pre_model_call", "onLlmStart"),
            doc="before each provider call",
        ),
        EventSpec(
            "on_stream_start",
            "observer",
            c.StreamStartContext,
            groups=_s("stream"),
            aliases=("StreamStart",),
            doc="a streamed provider call starts",
        ),
        EventSpec(
            "on_stream_chunk",
            "observer",
            c.StreamChunkContext,
            groups=_s("stream"),
            aliases=("StreamChunk",),
            doc="each streamed text chunk: delta and accumulated text",
        ),
        EventSpec(
            "on_stream_end",
            "observer",
            c.StreamEndContext,
            groups=_s("stream"),
            aliases=("StreamEnd",),
            doc="a streamed provider call completed",
        ),
        EventSpec(
            "on_stream_error",
            "observer",
            c.StreamErrorContext,
            groups=_s("stream"),
            aliases=("StreamError",),
            doc="a streamed provider call failed",
        ),
        EventSpec(
            "on_response",
            "interceptor",
            c.ResponseContext,
            _s("response"),
            deny=True,
            groups=_s("model_call"),
            aliases=(
                "onResponse",
                "LlmResponse",
                "ThinkEnd",
                "PostModelCall",
                "post_model_call",
                "onLlmEnd",
            ),
            doc="after the provider returns, before the assistant message is appended",
        ),
        EventSpec(
            "on_model_error",
            "interceptor",
            c.ModelErrorContext,
            _s("response", "error"),
            recovery=_s("response"),
            groups=_s("model_call"),
            aliases=("OnModelError", "model_error"),
            doc="when a provider call fails (after retry middleware gives up)",
        ),
        EventSpec(
            "on_output",
            "interceptor",
            c.OutputContext,
            _s("output", "error"),
            deny=True,
            doc="an agent with an output_type answered: the answer checked against it, "
            "before post_agent",
        ),
        EventSpec(
            "on_message",
            "observer",
            c.MessageContext,
            aliases=("onMessage",),
            doc="after every message commit to history",
        ),
        EventSpec(
            "pre_tool_call",
            "interceptor",
            c.PreToolCallContext,
            _s("call", "result", "error"),
            _s("result", "error"),
            deny=True,
            ask=True,
            gate=True,
            match=_TOOL,
            groups=_s("tool_call"),
            aliases=(
                "preToolCall",
                "BeforeTool",
                "BeforeToolCall",
                "PreToolUse",
                "pre_tool_use",
                "beforeToolCall",
                "onToolStart",
            ),
            doc="after arguments validate, before the tool handler runs",
        ),
        EventSpec(
            "on_tool_call_result",
            "interceptor",
            c.ToolCallResultContext,
            _s("result", "terminate"),
            deny=True,
            match=_TOOL,
            groups=_s("tool_call"),
            aliases=(
                "onToolCallResult",
                "AfterTool",
                "AfterToolCall",
                "PostToolUse",
                "post_tool_use",
                "afterToolCall",
                "onToolEnd",
            ),
            doc="after a handler returns, before the tool message is serialized",
        ),
        EventSpec(
            "on_tool_call_error",
            "interceptor",
            c.ToolCallErrorContext,
            _s("error", "result", "terminate"),
            recovery=_s("result"),
            match=_TOOL,
            groups=_s("tool_call"),
            aliases=("onToolCallError", "ToolError", "OnToolError", "tool_error"),
            doc="when a tool call errors (handler, validation, unknown, disabled, denied, truncated)",
        ),
        EventSpec(
            "on_loop_end",
            "observer",
            c.LoopEndContext,
            aliases=("LoopEnd",),
            doc="at the end of each iteration, after its tool messages",
        ),
        EventSpec(
            "prepare_next_turn",
            "interceptor",
            c.PrepareNextTurnContext,
            _s("provider", "model", "thinking", "messages"),
            groups=_s("between_turns"),
            aliases=("PrepareNextTurn",),
            doc="after a turn and its tool results, before the next request",
        ),
        EventSpec(
            "should_stop",
            "predicate",
            c.ShouldStopContext,
            groups=_s("between_turns"),
            aliases=("ShouldStopAfterTurn",),
            doc="before the next request starts; True stops gracefully",
        ),
        EventSpec(
            "on_stop",
            "observer",
            c.StopContext,
            aliases=("onStop",),
            doc="before a limit error is raised",
        ),
        EventSpec(
            "on_memory_read",
            "observer",
            c.MemoryReadContext,
            aliases=("MemoryRead",),
            doc="agent memory read",
        ),
        EventSpec(
            "on_memory_write",
            "observer",
            c.MemoryWriteContext,
            aliases=("MemoryWrite",),
            doc="agent memory write",
        ),
        EventSpec(
            "on_memory_error",
            "observer",
            c.MemoryErrorContext,
            aliases=("MemoryError",),
            doc="agent memory operation failed",
        ),
        EventSpec(
            "on_subagent_start",
            "observer",
            c.SubagentStartContext,
            match="subagent",
            aliases=("OnSubagentStart", "subagent_start", "onSubagentStart"),
            doc="an agent delegates to a sub-agent (as a tool)",
        ),
        EventSpec(
            "on_subagent_stop",
            "observer",
            c.SubagentStopContext,
            match="subagent",
            aliases=("OnSubagentStop", "subagent_stop", "onSubagentStop"),
            doc="a sub-agent returned (result, error, duration)",
        ),
        EventSpec(
            "pre_handoff",
            "interceptor",
            c.PreHandoffContext,
            deny=True,
            ask=True,
            gate=True,
            match="to_agent",
            aliases=("beforeHandoff",),
            doc="before control passes to a handoff agent",
        ),
        EventSpec(
            "on_handoff",
            "observer",
            c.OnHandoffContext,
            match="to_agent",
            aliases=("onHandoff",),
            doc="after a handoff happened",
        ),
        EventSpec(
            "on_chat_done",
            "observer",
            c.ChatDoneContext,
            groups=_s("after_answer"),
            aliases=("onChatDone", "afterRun"),
            doc="the run completed",
        ),
        EventSpec(
            "on_chat_paused",
            "observer",
            c.ChatPausedContext,
            doc="the run paused: a hook asked for a human's decision (Ask)",
        ),
        EventSpec(
            "on_run_resumed",
            "observer",
            c.RunResumedContext,
            doc="a paused run continues (resume()), before the answered calls run",
        ),
        EventSpec(
            "on_chat_abort",
            "observer",
            c.ChatAbortContext,
            teardown=True,
            aliases=("onChatAbort",),
            doc="the run was cancelled",
        ),
        EventSpec(
            "on_chat_error",
            "observer",
            c.ChatErrorContext,
            teardown=True,
            aliases=("onChatError",),
            doc="the run ended with a non-abort error",
        ),
        EventSpec(
            "on_chat_end",
            "observer",
            c.ChatEndContext,
            teardown=True,
            groups=_s("after_answer"),
            aliases=("AgentEnd", "AfterRun", "after_run"),
            doc="always, once, right after the terminal event",
        ),
        EventSpec(
            "on_scope_register",
            "observer",
            c.ScopeRegisterContext,
            aliases=("onScopeRegister",),
            doc="after agent.scopes.register(scope)",
        ),
        EventSpec(
            "on_scope_unregister",
            "observer",
            c.ScopeUnregisterContext,
            aliases=("onScopeUnregister",),
            doc="after agent.scopes.unregister(name)",
        ),
        EventSpec(
            "on_event",
            "observer",
            c.EventRecord,
            aliases=("OnEvent",),
            doc="once per emission of every other event, with one uniform record",
        ),
    ]
}

ALIASES: dict[str, str] = {a: s.name for s in CATALOG.values() for a in s.aliases}


def resolve(name: str) -> EventSpec:
    """The spec of a canonical event name or alias; ``UnknownEventError`` suggests the closest."""
    spec = CATALOG.get(name)
    if spec is not None:
        return spec
    canonical = ALIASES.get(name)
    if canonical is not None:
        return CATALOG[canonical]
    if not isinstance(name, str):
        raise UnknownEventError(repr(name), [])
    close = difflib.get_close_matches(name, [*CATALOG, *ALIASES], n=3, cutoff=0.6)
    if not close:
        close = difflib.get_close_matches(name.lower(), list(CATALOG), n=3, cutoff=0.4)
    raise UnknownEventError(name, close)


EVENT_NAMES: tuple[str, ...] = tuple(CATALOG)

GROUPS: dict[str, frozenset[str]] = {
    group: frozenset(s.name for s in CATALOG.values() if group in s.groups)
    for group in sorted({g for s in CATALOG.values() for g in s.groups})
}
"""Each group's events, derived from the declarations."""

__all__ = [
    "ALIASES",
    "CATALOG",
    "EVENT_NAMES",
    "GROUPS",
    "EventSpec",
    "Kind",
    "resolve",
]
