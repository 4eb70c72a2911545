"""Every event, declared once: one typed context class per lifecycle point, and on it the
``@event`` declaration of how the event behaves (its kind, what a handler may return, its
aliases, when it fires). The catalog, the ``EventName`` Literal, ``typed.py``, the README's
event table and ``agenthooks events --json`` are derived from these classes, in this file's
order.

Every context carries the common fields of ``EventContext``. Interceptors change a context by
returning a mapping of the keys their event accepts; the bus applies each return before the
next handler runs, so every handler sees what the previous one returned. Mutating the values
in place is unsupported (messages and calls are frozen).
"""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from ..messages import (
    AgentResponse,
    ChatMessage,
    PendingCall,
    ProviderRequest,
    ProviderResponse,
    ToolCall,
    Usage,
)
from ..tools import Scope, Tool
from .spec import EventSpec, event


class EventContext(BaseModel):
    """Fields every event carries."""

    model_config = ConfigDict(arbitrary_types_allowed=True, validate_assignment=False)

    run_id: str = ""
    parent_run_id: str | None = None
    session_id: str | None = None
    agent: str = ""
    branch: str = ""
    iteration: int | None = None
    usage: Usage = Field(default_factory=Usage)
    signal: asyncio.Event | None = None

    spec: ClassVar[EventSpec]
    """The event this context belongs to (set by its ``@event`` declaration)."""

    # which fields the uniform on_event record reports as input and output
    record_input: ClassVar[str | None] = None
    record_output: ClassVar[str | None] = None

    def record_io(self) -> tuple[Any, Any]:
        """(input, output) for the ``on_event`` record."""
        i, o = self.record_input, self.record_output
        return (getattr(self, i) if i else None, getattr(self, o) if o else None)


class _ShortCircuit(EventContext):
    short_circuit: str | None = None
    """The key an ordinary handler short-circuited with (what a guard sees), else ``None``."""


@event(
    "on_chat_start",
    "interceptor",
    deny=True,
    aliases=("onChatStart", "AgentStart", "BeforeRun", "beforeRun", "before_run"),
    doc="once at the start of a run, before the user message is appended",
)
class ChatStartContext(EventContext):
    """``on_chat_start``: once at the start of a run, before the user message is appended.
    Returns: ``Deny(reason)`` ends the run denied, or ``None``."""

    message: str = ""
    tools: list[str] = Field(default_factory=list)
    """The names of the tools the agent offers the model as the run starts."""
    record_input: ClassVar[str | None] = "message"


@event(
    "on_user_message",
    "interceptor",
    returns=("message",),
    deny=True,
    gate=True,
    aliases=("OnUserMessage", "user_message"),
    doc="when the user message arrives, before any provider call",
)
class UserMessageContext(EventContext):
    """``on_user_message``: the user message arrived, before any provider call.
    Returns: ``{"message": str}`` or ``Deny(reason)`` (the run ends denied, no provider call)."""

    message: str = ""
    record_input: ClassVar[str | None] = "message"


@event(
    "pre_agent",
    "interceptor",
    returns=("response",),
    short_circuit=("response",),
    deny=True,
    gate=True,
    aliases=("BeforeAgent", "before_agent", "onAgentStart"),
    doc="before an agent (top-level, sub-agent or handoff target) starts",
)
class PreAgentContext(_ShortCircuit):
    """``pre_agent``: before an agent (top-level, sub-agent, handoff target) starts its work.
    Returns: ``{"response": AgentResponse}`` skips the agent; ``Deny(reason)``."""

    input: str = ""
    response: AgentResponse | None = None
    record_input: ClassVar[str | None] = "input"
    record_output: ClassVar[str | None] = "response"


@event(
    "post_agent",
    "interceptor",
    returns=("response",),
    deny=True,
    aliases=("AfterAgent", "after_agent", "onAgentEnd"),
    doc="after an agent finishes, before its response reaches the caller",
)
class PostAgentContext(EventContext):
    """``post_agent``: after an agent finished, before its response reaches the caller.
    Returns: ``{"response": AgentResponse}``; ``Deny(reason)`` withholds the content."""

    input: str = ""
    response: AgentResponse = Field(default_factory=AgentResponse)
    record_input: ClassVar[str | None] = "input"
    record_output: ClassVar[str | None] = "response"


class SessionContext(EventContext):
    """``on_session_start`` (Returns: ``Deny(reason)``), ``on_session_end``, ``on_session_close``."""


@event(
    "on_session_start",
    "interceptor",
    deny=True,
    aliases=("onSessionStart",),
    doc="on a session's first chat()",
)
class SessionStartContext(SessionContext):
    """``on_session_start``: on a session's first chat. Returns: ``Deny(reason)`` denies that
    chat and every later one."""

    tools: list[str] = Field(default_factory=list)
    """The names of the tools the agent offers the model as the session starts."""


@event(
    "on_session_end",
    "observer",
    teardown=True,
    groups=("after_answer",),
    aliases=("onSessionEnd",),
    doc="after every chat() of a session (finally)",
)
class SessionEndContext(SessionContext):
    """``on_session_end``: after every chat of a session, whatever happened. Observer."""


@event("on_session_close", "observer", doc="once, when a Session is closed")
class SessionCloseContext(SessionContext):
    """``on_session_close``: once, when the session is closed. Observer."""


class LoopContext(EventContext):
    """``on_loop_start`` / ``on_loop_end``: each iteration, 0-indexed ``iteration``."""


@event(
    "on_loop_start",
    "observer",
    aliases=("LoopStart",),
    doc="at the start of each iteration (turn)",
)
class LoopStartContext(LoopContext):
    """``on_loop_start``: a turn starts (``iteration``, 0-indexed). Observer."""


@event(
    "transform_context",
    "interceptor",
    returns=("messages",),
    aliases=("TransformContext",),
    doc="per request, before it is built; never mutates stored history",
)
class TransformContextContext(EventContext):
    """``transform_context``: per request, before it is built; never changes stored history.
    Returns: ``{"messages": list[ChatMessage]}``."""

    messages: list[ChatMessage] = Field(default_factory=list)


@event(
    "pre_request",
    "interceptor",
    returns=("request", "response"),
    short_circuit=("response",),
    deny=True,
    gate=True,
    groups=("model_call",),
    aliases=("preRequest", "LlmCall", "PreModelCall", "pre_model_call", "onLlmStart"),
    doc="before each provider call",
)
class PreRequestContext(_ShortCircuit):
    """``pre_request``: before each provider call; also the context of the provider stack.
    Returns: ``{"request": ProviderRequest}``, ``{"response": ProviderResponse}`` (skips the
    provider), or ``Deny(reason)`` (no call, the run ends denied)."""

    request: ProviderRequest = Field(default_factory=ProviderRequest)
    response: ProviderResponse | None = None
    provider: Any = None
    """The provider the innermost call uses; a fallback middleware may pass another one on."""
    stream: bool = False
    """True when the call streams; ``chunks_sent`` counts the text chunks the caller already
    got (a retry middleware retries a streamed call only while it is 0)."""
    chunks_sent: int = 0
    record_input: ClassVar[str | None] = "request"
    record_output: ClassVar[str | None] = "response"


class StreamContext(EventContext):
    """``on_stream_start`` / ``_chunk`` (``delta``, ``accumulated``) / ``_end`` (``response``) /
    ``_error`` (``error``): around a streamed provider call. Observers."""

    request: ProviderRequest = Field(default_factory=ProviderRequest)
    delta: str = ""
    accumulated: str = ""
    response: ProviderResponse | None = None
    error: BaseException | None = None
    record_output: ClassVar[str | None] = "delta"


@event(
    "on_stream_start",
    "observer",
    groups=("stream",),
    aliases=("StreamStart",),
    doc="a streamed provider call starts",
)
class StreamStartContext(StreamContext):
    """``on_stream_start``: a streamed provider call starts (``request``). Observer."""


@event(
    "on_stream_chunk",
    "observer",
    groups=("stream",),
    aliases=("StreamChunk",),
    doc="each streamed text chunk: delta and accumulated text",
)
class StreamChunkContext(StreamContext):
    """``on_stream_chunk``: a text chunk arrived (``delta``, ``accumulated``). Observer."""


@event(
    "on_stream_end",
    "observer",
    groups=("stream",),
    aliases=("StreamEnd",),
    doc="a streamed provider call completed",
)
class StreamEndContext(StreamContext):
    """``on_stream_end``: the stream completed (``response``, ``accumulated``). Observer."""


@event(
    "on_stream_error",
    "observer",
    groups=("stream",),
    aliases=("StreamError",),
    doc="a streamed provider call failed",
)
class StreamErrorContext(StreamContext):
    """``on_stream_error``: the stream failed (``error``, ``accumulated``). Observer."""


@event(
    "on_response",
    "interceptor",
    returns=("response",),
    deny=True,
    groups=("model_call",),
    aliases=(
        "onResponse",
        "LlmResponse",
        "ThinkEnd",
        "PostModelCall",
        "post_model_call",
        "onLlmEnd",
    ),
    doc="after the provider returns, before the assistant message is appended",
)
class ResponseContext(EventContext):
    """``on_response``: after the provider returned (or a short-circuit supplied a response).
    Returns: ``{"response": ProviderResponse}``; ``Deny(reason)`` discards it and ends the run."""

    request: ProviderRequest = Field(default_factory=ProviderRequest)
    response: ProviderResponse = Field(default_factory=ProviderResponse)
    record_input: ClassVar[str | None] = "request"
    record_output: ClassVar[str | None] = "response"


@event(
    "on_model_error",
    "interceptor",
    returns=("response", "error"),
    recovery=("response",),
    groups=("model_call",),
    aliases=("OnModelError", "model_error"),
    doc="when a provider call fails (after retry middleware gives up)",
)
class ModelErrorContext(EventContext):
    """``on_model_error``: a provider call failed (after retry middleware gave up).
    Returns: ``{"response": ProviderResponse}`` recovers (first recovery wins) or
    ``{"error": exc}`` replaces the error."""

    request: ProviderRequest = Field(default_factory=ProviderRequest)
    error: BaseException | None = None
    response: ProviderResponse | None = None
    recovered: bool = False
    record_input: ClassVar[str | None] = "request"
    record_output: ClassVar[str | None] = "response"


@event(
    "on_output",
    "interceptor",
    returns=("output", "error"),
    deny=True,
    doc="an agent with an output_type answered: the answer checked against it, before post_agent",
)
class OutputContext(EventContext):
    """``on_output``: the final answer of an agent with an ``output_type``, checked against it,
    before ``post_agent``. ``text`` is the answer as the model gave it; ``output`` the validated
    value, or ``None`` with ``error`` (the ``ValidationError``) when it failed; ``attempt``
    counts the answers checked in this run (1 first), ``retries_left`` the corrections left.
    Returns: ``{"output": value}`` accepts the answer as ``value`` (validated against the
    type), ``{"error": exc_or_text}`` rejects it (the correction names it; an ``error`` returned
    by any handler wins over an ``output``), ``Deny(reason)`` discards it and ends the run
    denied."""

    text: str = ""
    output_type: Any = None
    output: Any = None
    error: BaseException | str | None = None
    attempt: int = 1
    retries_left: int = 0
    record_input: ClassVar[str | None] = "text"
    record_output: ClassVar[str | None] = "output"


@event(
    "on_message",
    "observer",
    aliases=("onMessage",),
    doc="after every message commit to history",
)
class MessageContext(EventContext):
    """``on_message``: after every message commit to history. Observer."""

    message: ChatMessage = Field(default_factory=lambda: ChatMessage(role="user"))
    record_output: ClassVar[str | None] = "message"


class _ToolEvent(EventContext):
    call: ToolCall = Field(default_factory=lambda: ToolCall(id="", name=""))
    tool: Tool[Any] | None = None
    tool_call_id: str = ""
    scope: Scope | None = None

    @property
    def tool_name(self) -> str:
        """The called tool's name (what ``match=`` tests)."""
        return self.call.name

    def record_io(self) -> tuple[Any, Any]:
        return self.call.arguments, getattr(self, "result", None)


@event(
    "pre_tool_call",
    "interceptor",
    returns=("call", "result", "error"),
    short_circuit=("result", "error"),
    deny=True,
    ask=True,
    gate=True,
    match="tool_name",
    groups=("tool_call",),
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
)
class PreToolCallContext(_ToolEvent, _ShortCircuit):
    """``pre_tool_call``: arguments validated, before the handler runs; also the context of the
    tool stack. Returns: ``{"call": ToolCall}`` (arguments only), ``{"result": value}`` or
    ``{"error": exc}`` (short-circuits), ``Deny(reason)`` (an error the model reads), or
    ``Ask(reason)`` (the call waits for a human: the run pauses after its batch)."""

    result: Any = None
    error: BaseException | str | None = None


@event(
    "on_tool_call_result",
    "interceptor",
    returns=("result", "terminate"),
    deny=True,
    match="tool_name",
    groups=("tool_call",),
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
)
class ToolCallResultContext(_ToolEvent):
    """``on_tool_call_result``: after the handler returned, before the tool message is written.
    Returns: ``{"result": value}``, ``{"terminate": True}``, or ``Deny(reason)``."""

    result: Any = None
    duration: float = 0.0
    terminate: bool = False


@event(
    "on_tool_call_error",
    "interceptor",
    returns=("error", "result", "terminate"),
    recovery=("result",),
    match="tool_name",
    groups=("tool_call",),
    aliases=("onToolCallError", "ToolError", "OnToolError", "tool_error"),
    doc="when a tool call errors (handler, validation, unknown, disabled, denied, truncated)",
)
class ToolCallErrorContext(_ToolEvent):
    """``on_tool_call_error``: a tool call failed; ``source`` is ``handler``, ``validation``,
    ``unknown_tool``, ``disabled``, ``denied`` or ``truncated`` (the answer was cut off by the
    token limit, so the call did not run: ``TruncatedCallError``). Returns: ``{"error": exc}``
    replaces, ``{"result": value}`` recovers (first wins; ignored for ``denied``), ``{"terminate": True}``."""

    error: BaseException | str | None = None
    source: str = "handler"
    result: Any = None
    recovered: bool = False
    duration: float = 0.0
    terminate: bool = False


@event(
    "on_loop_end",
    "observer",
    aliases=("LoopEnd",),
    doc="at the end of each iteration, after its tool messages",
)
class LoopEndContext(LoopContext):
    """``on_loop_end``: a turn ended, its tool messages appended. Observer."""


class TurnContext(EventContext):
    """``prepare_next_turn`` (Returns: ``{"provider", "model", "thinking", "messages"}``) and
    ``should_stop`` (Returns: ``True`` stops gracefully)."""

    message: ChatMessage | None = None
    tool_messages: list[ChatMessage] = Field(default_factory=list)
    new_messages: list[ChatMessage] = Field(default_factory=list)
    messages: list[ChatMessage] = Field(default_factory=list)
    provider: Any = None
    model: str = ""
    thinking: str | None = None


@event(
    "prepare_next_turn",
    "interceptor",
    returns=("provider", "model", "thinking", "messages"),
    groups=("between_turns",),
    aliases=("PrepareNextTurn",),
    doc="after a turn and its tool results, before the next request",
)
class PrepareNextTurnContext(TurnContext):
    """``prepare_next_turn``: after a turn and its tool results, before the next request.
    Returns: ``{"provider", "model", "thinking", "messages"}`` (absent keys keep the value)."""


@event(
    "should_stop",
    "predicate",
    groups=("between_turns",),
    aliases=("ShouldStopAfterTurn",),
    doc="before the next request starts; True stops gracefully",
)
class ShouldStopContext(TurnContext):
    """``should_stop``: before the next request. Returns: ``True`` stops gracefully."""


@event("on_stop", "observer", aliases=("onStop",), doc="before a limit error is raised")
class StopContext(EventContext):
    """``on_stop``: before a limit error is raised; ``reason`` is ``max_turns``, ``max_budget``
    or a ``StopRun`` reason."""

    reason: str = ""
    record_output: ClassVar[str | None] = "reason"


class MemoryContext(EventContext):
    """``on_memory_read`` / ``_write`` (``key``, ``value``) and ``on_memory_error``
    (``operation``, ``key``, ``error``)."""

    key: str = ""
    value: Any = None
    operation: str | None = None
    error: BaseException | None = None
    record_input: ClassVar[str | None] = "key"
    record_output: ClassVar[str | None] = "value"


@event("on_memory_read", "observer", aliases=("MemoryRead",), doc="agent memory read")
class MemoryReadContext(MemoryContext):
    """``on_memory_read``: a memory read (``key``, ``value``). Observer."""


@event("on_memory_write", "observer", aliases=("MemoryWrite",), doc="agent memory write")
class MemoryWriteContext(MemoryContext):
    """``on_memory_write``: a memory write (``key``, ``value``). Observer."""


@event(
    "on_memory_error",
    "observer",
    aliases=("MemoryError",),
    doc="agent memory operation failed",
)
class MemoryErrorContext(MemoryContext):
    """``on_memory_error``: a memory operation failed (``operation``, ``key``, ``error``)."""


class SubagentContext(EventContext):
    """``on_subagent_start`` / ``on_subagent_stop`` (adds ``result``, ``error``, ``duration``).
    ``tool_call_id`` is the parent's tool call that delegates (sub-agent events belong to it)."""

    subagent: str = ""
    task: str = ""
    tool_call_id: str | None = None
    result: Any = None
    error: BaseException | None = None
    duration: float | None = None
    record_input: ClassVar[str | None] = "task"
    record_output: ClassVar[str | None] = "result"


@event(
    "on_subagent_start",
    "observer",
    match="subagent",
    aliases=("OnSubagentStart", "subagent_start", "onSubagentStart"),
    doc="an agent delegates to a sub-agent (as a tool)",
)
class SubagentStartContext(SubagentContext):
    """``on_subagent_start``: an agent delegates ``task`` to ``subagent`` (as a tool)."""


@event(
    "on_subagent_stop",
    "observer",
    match="subagent",
    aliases=("OnSubagentStop", "subagent_stop", "onSubagentStop"),
    doc="a sub-agent returned (result, error, duration)",
)
class SubagentStopContext(SubagentContext):
    """``on_subagent_stop``: the sub-agent returned (``result``, ``error``, ``duration``)."""


class HandoffContext(_ShortCircuit):
    """``pre_handoff`` (Returns: ``Deny(reason)`` keeps the current agent; ``Ask(reason)``
    pauses the run) and ``on_handoff``."""

    from_agent: str = ""
    to_agent: str = ""


@event(
    "pre_handoff",
    "interceptor",
    deny=True,
    ask=True,
    gate=True,
    match="to_agent",
    aliases=("beforeHandoff",),
    doc="before control passes to a handoff agent",
)
class PreHandoffContext(HandoffContext):
    """``pre_handoff``: before control passes from ``from_agent`` to ``to_agent``.
    Returns: ``Deny(reason)`` keeps the current agent; the reason becomes the tool message.
    ``Ask(reason)`` pauses the run: the handoff call waits for a human's decision."""


@event(
    "on_handoff",
    "observer",
    match="to_agent",
    aliases=("onHandoff",),
    doc="after a handoff happened",
)
class OnHandoffContext(HandoffContext):
    """``on_handoff``: control passed from ``from_agent`` to ``to_agent``. Observer."""


@event(
    "on_chat_done",
    "observer",
    groups=("after_answer",),
    aliases=("onChatDone", "afterRun"),
    doc="the run completed",
)
class ChatDoneContext(EventContext):
    """``on_chat_done``: the run completed; the response is about to return."""

    response: AgentResponse = Field(default_factory=AgentResponse)
    record_output: ClassVar[str | None] = "response"


@event(
    "on_chat_paused",
    "observer",
    doc="the run paused: a hook asked for a human's decision (Ask)",
)
class ChatPausedContext(EventContext):
    """``on_chat_paused``: the run paused (a hook returned ``Ask``): ``response`` has
    ``finish_reason="paused"`` and the calls it waits on in ``response.pending``; in a
    ``Session`` with a store the run is stored before this fires, so a handler may tell a
    human (or another process) at once. A terminal event: ``on_chat_end`` follows. Observer.

    ``state``: what the run carries across the pause for the plugins that keep per-run state
    (a limit's counters, an exporter's span): a handler puts its own JSON value under its
    plugin's name, and ``on_run_resumed`` hands the same mapping back, in any process."""

    response: AgentResponse = Field(default_factory=AgentResponse)
    state: dict[str, Any] = Field(default_factory=dict)
    record_output: ClassVar[str | None] = "response"


@event(
    "on_run_resumed",
    "observer",
    doc="a paused run continues (resume()), before the answered calls run",
)
class RunResumedContext(EventContext):
    """``on_run_resumed``: a paused run continues (``resume()``, in any process), before the
    answered calls run. ``pending`` are the calls it waited on; ``decisions`` the answer per
    call id (``Approve()`` or ``Deny(reason)``); ``records`` the number of ``on_event``
    records the run emitted before this resume (so an exporter numbering records per run
    continues at ``records + 1``); ``state`` what the plugins put in ``on_chat_paused``'s
    ``state`` when the run paused, by plugin name (read it to restore a plugin's per-run
    state). ``usage`` and ``iteration`` go on from the paused run's. Observer."""

    pending: list[PendingCall] = Field(default_factory=list)
    decisions: dict[str, Any] = Field(default_factory=dict)
    records: int = 0
    state: dict[str, Any] = Field(default_factory=dict)
    record_input: ClassVar[str | None] = "decisions"
    record_output: ClassVar[str | None] = "pending"


@event(
    "on_chat_abort",
    "observer",
    teardown=True,
    aliases=("onChatAbort",),
    doc="the run was cancelled",
)
class ChatAbortContext(EventContext):
    """``on_chat_abort``: the run was cancelled (abort signal, task cancellation, stream closed)."""

    reason: Any = None


@event(
    "on_chat_error",
    "observer",
    teardown=True,
    aliases=("onChatError",),
    doc="the run ended with a non-abort error",
)
class ChatErrorContext(EventContext):
    """``on_chat_error``: the run ended with a non-abort error."""

    error: BaseException | None = None


@event(
    "on_chat_end",
    "observer",
    teardown=True,
    groups=("after_answer",),
    aliases=("AgentEnd", "AfterRun", "after_run"),
    doc="always, once, right after the terminal event",
)
class ChatEndContext(EventContext):
    """``on_chat_end``: always, once, right after the terminal event."""

    response: AgentResponse | None = None
    error: BaseException | None = None
    duration: float = 0.0
    record_output: ClassVar[str | None] = "response"


class ScopeContext(EventContext):
    """``on_scope_register`` / ``on_scope_unregister``: outside any chat."""

    scope: Scope | None = None


@event(
    "on_scope_register",
    "observer",
    aliases=("onScopeRegister",),
    doc="after agent.scopes.register(scope)",
)
class ScopeRegisterContext(ScopeContext):
    """``on_scope_register``: after ``agent.scopes.register(scope)``. Observer."""


@event(
    "on_scope_unregister",
    "observer",
    aliases=("onScopeUnregister",),
    doc="after agent.scopes.unregister(name)",
)
class ScopeUnregisterContext(ScopeContext):
    """``on_scope_unregister``: after ``agent.scopes.unregister(name)``. Observer."""


@event(
    "on_event",
    "observer",
    aliases=("OnEvent",),
    doc="once per emission of every other event, with one uniform record",
)
class EventRecord(EventContext):
    """``on_event``: one uniform record per emission of every other event, after its chain."""

    type: str = ""
    timestamp: float = 0.0
    tool_call_id: str | None = None
    tool_name: str | None = None
    input: Any = None
    output: Any = None
    is_error: bool = False
    duration: float | None = None
    error: str | None = None
    denied: str | None = None
    asked: str | None = None
    """The ``Ask`` reason when a handler paused the step (the run then ends paused)."""


ToolResultContext = ToolCallResultContext
"""The former name of ``ToolCallResultContext``."""
ToolErrorContext = ToolCallErrorContext
"""The former name of ``ToolCallErrorContext``."""


__all__ = [
    "ChatAbortContext",
    "ChatDoneContext",
    "ChatEndContext",
    "ChatErrorContext",
    "ChatPausedContext",
    "ChatStartContext",
    "EventContext",
    "EventRecord",
    "HandoffContext",
    "LoopContext",
    "LoopEndContext",
    "LoopStartContext",
    "MemoryContext",
    "MemoryErrorContext",
    "MemoryReadContext",
    "MemoryWriteContext",
    "MessageContext",
    "ModelErrorContext",
    "OnHandoffContext",
    "OutputContext",
    "PostAgentContext",
    "PreAgentContext",
    "PreHandoffContext",
    "PreRequestContext",
    "PreToolCallContext",
    "PrepareNextTurnContext",
    "ResponseContext",
    "RunResumedContext",
    "ScopeContext",
    "ScopeRegisterContext",
    "ScopeUnregisterContext",
    "SessionCloseContext",
    "SessionContext",
    "SessionEndContext",
    "SessionStartContext",
    "ShouldStopContext",
    "StopContext",
    "StreamChunkContext",
    "StreamContext",
    "StreamEndContext",
    "StreamErrorContext",
    "StreamStartContext",
    "SubagentContext",
    "SubagentStartContext",
    "SubagentStopContext",
    "ToolCallErrorContext",
    "ToolCallResultContext",
    "ToolErrorContext",
    "ToolResultContext",
    "TransformContextContext",
    "TurnContext",
    "UserMessageContext",
]
