"""One typed context per lifecycle point.

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


class ChatStartContext(EventContext):
    """``on_chat_start``: once at the start of a run, before the user message is appended.
    Returns: ``Deny(reason)`` ends the run denied, or ``None``."""

    message: str = ""
    tools: list[str] = Field(default_factory=list)
    """The names of the tools the agent offers the model as the run starts."""
    record_input: ClassVar[str | None] = "message"


class UserMessageContext(EventContext):
    """``on_user_message``: the user message arrived, before any provider call.
    Returns: ``{"message": str}`` or ``Deny(reason)`` (the run ends denied, no provider call)."""

    message: str = ""
    record_input: ClassVar[str | None] = "message"


class PreAgentContext(_ShortCircuit):
    """``pre_agent``: before an agent (top-level, sub-agent, handoff target) starts its work.
    Returns: ``{"response": AgentResponse}`` skips the agent; ``Deny(reason)``."""

    input: str = ""
    response: AgentResponse | None = None
    record_input: ClassVar[str | None] = "input"
    record_output: ClassVar[str | None] = "response"


class PostAgentContext(EventContext):
    """``post_agent``: after an agent finished, before its response reaches the caller.
    Returns: ``{"response": AgentResponse}``; ``Deny(reason)`` withholds the content."""

    input: str = ""
    response: AgentResponse = Field(default_factory=AgentResponse)
    record_input: ClassVar[str | None] = "input"
    record_output: ClassVar[str | None] = "response"


class SessionContext(EventContext):
    """``on_session_start`` (Returns: ``Deny(reason)``), ``on_session_end``, ``on_session_close``."""


class SessionEndContext(SessionContext):
    """``on_session_end``: after every chat of a session, whatever happened. Observer."""


class SessionCloseContext(SessionContext):
    """``on_session_close``: once, when the session is closed. Observer."""


class SessionStartContext(SessionContext):
    """``on_session_start``: on a session's first chat. Returns: ``Deny(reason)`` denies that
    chat and every later one."""

    tools: list[str] = Field(default_factory=list)
    """The names of the tools the agent offers the model as the session starts."""


class LoopContext(EventContext):
    """``on_loop_start`` / ``on_loop_end``: each iteration, 0-indexed ``iteration``."""


class LoopStartContext(LoopContext):
    """``on_loop_start``: a turn starts (``iteration``, 0-indexed). Observer."""


class LoopEndContext(LoopContext):
    """``on_loop_end``: a turn ended, its tool messages appended. Observer."""


class TransformContextContext(EventContext):
    """``transform_context``: per request, before it is built; never changes stored history.
    Returns: ``{"messages": list[ChatMessage]}``."""

    messages: list[ChatMessage] = Field(default_factory=list)


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


class StreamStartContext(StreamContext):
    """``on_stream_start``: a streamed provider call starts (``request``). Observer."""


class StreamChunkContext(StreamContext):
    """``on_stream_chunk``: a text chunk arrived (``delta``, ``accumulated``). Observer."""


class StreamEndContext(StreamContext):
    """``on_stream_end``: the stream completed (``response``, ``accumulated``). Observer."""


class StreamErrorContext(StreamContext):
    """``on_stream_error``: the stream failed (``error``, ``accumulated``). Observer."""


class ResponseContext(EventContext):
    """``on_response``: after the provider returned (or a short-circuit supplied a response).
    Returns: ``{"response": ProviderResponse}``; ``Deny(reason)`` discards it and ends the run."""

    request: ProviderRequest = Field(default_factory=ProviderRequest)
    response: ProviderResponse = Field(default_factory=ProviderResponse)
    record_input: ClassVar[str | None] = "request"
    record_output: ClassVar[str | None] = "response"


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


class PreToolCallContext(_ToolEvent, _ShortCircuit):
    """``pre_tool_call``: arguments validated, before the handler runs; also the context of the
    tool stack. Returns: ``{"call": ToolCall}`` (arguments only), ``{"result": value}`` or
    ``{"error": exc}`` (short-circuits), ``Deny(reason)`` (an error the model reads), or
    ``Ask(reason)`` (the call waits for a human: the run pauses after its batch)."""

    result: Any = None
    error: BaseException | str | None = None


class ToolCallResultContext(_ToolEvent):
    """``on_tool_call_result``: after the handler returned, before the tool message is written.
    Returns: ``{"result": value}``, ``{"terminate": True}``, or ``Deny(reason)``."""

    result: Any = None
    duration: float = 0.0
    terminate: bool = False


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


class PrepareNextTurnContext(TurnContext):
    """``prepare_next_turn``: after a turn and its tool results, before the next request.
    Returns: ``{"provider", "model", "thinking", "messages"}`` (absent keys keep the value)."""


class ShouldStopContext(TurnContext):
    """``should_stop``: before the next request. Returns: ``True`` stops gracefully."""


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


class MemoryReadContext(MemoryContext):
    """``on_memory_read``: a memory read (``key``, ``value``). Observer."""


class MemoryWriteContext(MemoryContext):
    """``on_memory_write``: a memory write (``key``, ``value``). Observer."""


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


class SubagentStartContext(SubagentContext):
    """``on_subagent_start``: an agent delegates ``task`` to ``subagent`` (as a tool)."""


class SubagentStopContext(SubagentContext):
    """``on_subagent_stop``: the sub-agent returned (``result``, ``error``, ``duration``)."""


class HandoffContext(_ShortCircuit):
    """``pre_handoff`` (Returns: ``Deny(reason)`` keeps the current agent; ``Ask(reason)``
    pauses the run) and ``on_handoff``."""

    from_agent: str = ""
    to_agent: str = ""


class PreHandoffContext(HandoffContext):
    """``pre_handoff``: before control passes from ``from_agent`` to ``to_agent``.
    Returns: ``Deny(reason)`` keeps the current agent; the reason becomes the tool message.
    ``Ask(reason)`` pauses the run: the handoff call waits for a human's decision."""


class OnHandoffContext(HandoffContext):
    """``on_handoff``: control passed from ``from_agent`` to ``to_agent``. Observer."""


class ChatDoneContext(EventContext):
    """``on_chat_done``: the run completed; the response is about to return."""

    response: AgentResponse = Field(default_factory=AgentResponse)
    record_output: ClassVar[str | None] = "response"


class ChatPausedContext(EventContext):
    """``on_chat_paused``: the run paused (a hook returned ``Ask``): ``response`` has
    ``finish_reason="paused"`` and the calls it waits on in ``response.pending``; in a
    ``Session`` with a store the run is stored before this fires, so a handler may tell a
    human (or another process) at once. A terminal event: ``on_chat_end`` follows. Observer."""

    response: AgentResponse = Field(default_factory=AgentResponse)
    record_output: ClassVar[str | None] = "response"


class RunResumedContext(EventContext):
    """``on_run_resumed``: a paused run continues (``resume()``, in any process), before the
    answered calls run. ``pending`` are the calls it waited on; ``decisions`` the answer per
    call id (``Approve()`` or ``Deny(reason)``); ``records`` the number of ``on_event``
    records the run emitted before this resume (so an exporter numbering records per run
    continues at ``records + 1``). Observer."""

    pending: list[PendingCall] = Field(default_factory=list)
    decisions: dict[str, Any] = Field(default_factory=dict)
    records: int = 0
    record_input: ClassVar[str | None] = "decisions"
    record_output: ClassVar[str | None] = "pending"


class ChatAbortContext(EventContext):
    """``on_chat_abort``: the run was cancelled (abort signal, task cancellation, stream closed)."""

    reason: Any = None


class ChatErrorContext(EventContext):
    """``on_chat_error``: the run ended with a non-abort error."""

    error: BaseException | None = None


class ChatEndContext(EventContext):
    """``on_chat_end``: always, once, right after the terminal event."""

    response: AgentResponse | None = None
    error: BaseException | None = None
    duration: float = 0.0
    record_output: ClassVar[str | None] = "response"


class ScopeContext(EventContext):
    """``on_scope_register`` / ``on_scope_unregister``: outside any chat."""

    scope: Scope | None = None


class ScopeRegisterContext(ScopeContext):
    """``on_scope_register``: after ``agent.scopes.register(scope)``. Observer."""


class ScopeUnregisterContext(ScopeContext):
    """``on_scope_unregister``: after ``agent.scopes.unregister(name)``. Observer."""


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
