"""Generated from the event declarations in ``contexts.py`` by ``python -m
agenthooks.events.generate``: do not edit. The event names as a Literal, and the typed
faces of ``on`` / ``once`` (a Literal event name gives the handler its context type)
and of ``@hook``."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar, overload

from .contexts import (
    ChatAbortContext,
    ChatDoneContext,
    ChatEndContext,
    ChatErrorContext,
    ChatPausedContext,
    ChatStartContext,
    EventContext,
    EventRecord,
    LoopEndContext,
    LoopStartContext,
    MemoryErrorContext,
    MemoryReadContext,
    MemoryWriteContext,
    MessageContext,
    ModelErrorContext,
    OnHandoffContext,
    OutputContext,
    PostAgentContext,
    PreAgentContext,
    PreHandoffContext,
    PrepareNextTurnContext,
    PreRequestContext,
    PreToolCallContext,
    ResponseContext,
    RunResumedContext,
    ScopeRegisterContext,
    ScopeUnregisterContext,
    SessionCloseContext,
    SessionEndContext,
    SessionStartContext,
    ShouldStopContext,
    StopContext,
    StreamChunkContext,
    StreamEndContext,
    StreamErrorContext,
    StreamStartContext,
    SubagentStartContext,
    SubagentStopContext,
    ToolCallErrorContext,
    ToolCallResultContext,
    TransformContextContext,
    UserMessageContext,
)

if TYPE_CHECKING:
    from ..bus.registry import Disposer, ErrorPolicy, Matcher

EventName = Literal[
    "on_chat_start",
    "on_user_message",
    "pre_agent",
    "post_agent",
    "on_session_start",
    "on_session_end",
    "on_session_close",
    "on_loop_start",
    "transform_context",
    "pre_request",
    "on_stream_start",
    "on_stream_chunk",
    "on_stream_end",
    "on_stream_error",
    "on_response",
    "on_model_error",
    "on_output",
    "on_message",
    "pre_tool_call",
    "on_tool_call_result",
    "on_tool_call_error",
    "on_loop_end",
    "prepare_next_turn",
    "should_stop",
    "on_stop",
    "on_memory_read",
    "on_memory_write",
    "on_memory_error",
    "on_subagent_start",
    "on_subagent_stop",
    "pre_handoff",
    "on_handoff",
    "on_chat_done",
    "on_chat_paused",
    "on_run_resumed",
    "on_chat_abort",
    "on_chat_error",
    "on_chat_end",
    "on_scope_register",
    "on_scope_unregister",
    "on_event",
]
"""Every canonical event name (aliases are accepted wherever a name is)."""

_H = TypeVar('_H', bound=Callable[[Any], Any])
_M = TypeVar('_M', bound=Callable[..., Any])
_ChatAbortContext = TypeVar('_ChatAbortContext', bound=Callable[[ChatAbortContext], Any])
_MChatAbortContext = TypeVar('_MChatAbortContext', bound=Callable[[Any, ChatAbortContext], Any])
_ChatDoneContext = TypeVar('_ChatDoneContext', bound=Callable[[ChatDoneContext], Any])
_MChatDoneContext = TypeVar('_MChatDoneContext', bound=Callable[[Any, ChatDoneContext], Any])
_ChatEndContext = TypeVar('_ChatEndContext', bound=Callable[[ChatEndContext], Any])
_MChatEndContext = TypeVar('_MChatEndContext', bound=Callable[[Any, ChatEndContext], Any])
_ChatErrorContext = TypeVar('_ChatErrorContext', bound=Callable[[ChatErrorContext], Any])
_MChatErrorContext = TypeVar('_MChatErrorContext', bound=Callable[[Any, ChatErrorContext], Any])
_ChatPausedContext = TypeVar('_ChatPausedContext', bound=Callable[[ChatPausedContext], Any])
_MChatPausedContext = TypeVar('_MChatPausedContext', bound=Callable[[Any, ChatPausedContext], Any])
_ChatStartContext = TypeVar('_ChatStartContext', bound=Callable[[ChatStartContext], Any])
_MChatStartContext = TypeVar('_MChatStartContext', bound=Callable[[Any, ChatStartContext], Any])
_EventRecord = TypeVar('_EventRecord', bound=Callable[[EventRecord], Any])
_MEventRecord = TypeVar('_MEventRecord', bound=Callable[[Any, EventRecord], Any])
_LoopEndContext = TypeVar('_LoopEndContext', bound=Callable[[LoopEndContext], Any])
_MLoopEndContext = TypeVar('_MLoopEndContext', bound=Callable[[Any, LoopEndContext], Any])
_LoopStartContext = TypeVar('_LoopStartContext', bound=Callable[[LoopStartContext], Any])
_MLoopStartContext = TypeVar('_MLoopStartContext', bound=Callable[[Any, LoopStartContext], Any])
_MemoryErrorContext = TypeVar('_MemoryErrorContext', bound=Callable[[MemoryErrorContext], Any])
_MMemoryErrorContext = TypeVar('_MMemoryErrorContext', bound=Callable[[Any, MemoryErrorContext], Any])
_MemoryReadContext = TypeVar('_MemoryReadContext', bound=Callable[[MemoryReadContext], Any])
_MMemoryReadContext = TypeVar('_MMemoryReadContext', bound=Callable[[Any, MemoryReadContext], Any])
_MemoryWriteContext = TypeVar('_MemoryWriteContext', bound=Callable[[MemoryWriteContext], Any])
_MMemoryWriteContext = TypeVar('_MMemoryWriteContext', bound=Callable[[Any, MemoryWriteContext], Any])
_MessageContext = TypeVar('_MessageContext', bound=Callable[[MessageContext], Any])
_MMessageContext = TypeVar('_MMessageContext', bound=Callable[[Any, MessageContext], Any])
_ModelErrorContext = TypeVar('_ModelErrorContext', bound=Callable[[ModelErrorContext], Any])
_MModelErrorContext = TypeVar('_MModelErrorContext', bound=Callable[[Any, ModelErrorContext], Any])
_OnHandoffContext = TypeVar('_OnHandoffContext', bound=Callable[[OnHandoffContext], Any])
_MOnHandoffContext = TypeVar('_MOnHandoffContext', bound=Callable[[Any, OnHandoffContext], Any])
_OutputContext = TypeVar('_OutputContext', bound=Callable[[OutputContext], Any])
_MOutputContext = TypeVar('_MOutputContext', bound=Callable[[Any, OutputContext], Any])
_PostAgentContext = TypeVar('_PostAgentContext', bound=Callable[[PostAgentContext], Any])
_MPostAgentContext = TypeVar('_MPostAgentContext', bound=Callable[[Any, PostAgentContext], Any])
_PreAgentContext = TypeVar('_PreAgentContext', bound=Callable[[PreAgentContext], Any])
_MPreAgentContext = TypeVar('_MPreAgentContext', bound=Callable[[Any, PreAgentContext], Any])
_PreHandoffContext = TypeVar('_PreHandoffContext', bound=Callable[[PreHandoffContext], Any])
_MPreHandoffContext = TypeVar('_MPreHandoffContext', bound=Callable[[Any, PreHandoffContext], Any])
_PrepareNextTurnContext = TypeVar('_PrepareNextTurnContext', bound=Callable[[PrepareNextTurnContext], Any])
_MPrepareNextTurnContext = TypeVar('_MPrepareNextTurnContext', bound=Callable[[Any, PrepareNextTurnContext], Any])
_PreRequestContext = TypeVar('_PreRequestContext', bound=Callable[[PreRequestContext], Any])
_MPreRequestContext = TypeVar('_MPreRequestContext', bound=Callable[[Any, PreRequestContext], Any])
_PreToolCallContext = TypeVar('_PreToolCallContext', bound=Callable[[PreToolCallContext], Any])
_MPreToolCallContext = TypeVar('_MPreToolCallContext', bound=Callable[[Any, PreToolCallContext], Any])
_ResponseContext = TypeVar('_ResponseContext', bound=Callable[[ResponseContext], Any])
_MResponseContext = TypeVar('_MResponseContext', bound=Callable[[Any, ResponseContext], Any])
_RunResumedContext = TypeVar('_RunResumedContext', bound=Callable[[RunResumedContext], Any])
_MRunResumedContext = TypeVar('_MRunResumedContext', bound=Callable[[Any, RunResumedContext], Any])
_ScopeRegisterContext = TypeVar('_ScopeRegisterContext', bound=Callable[[ScopeRegisterContext], Any])
_MScopeRegisterContext = TypeVar('_MScopeRegisterContext', bound=Callable[[Any, ScopeRegisterContext], Any])
_ScopeUnregisterContext = TypeVar('_ScopeUnregisterContext', bound=Callable[[ScopeUnregisterContext], Any])
_MScopeUnregisterContext = TypeVar('_MScopeUnregisterContext', bound=Callable[[Any, ScopeUnregisterContext], Any])
_SessionCloseContext = TypeVar('_SessionCloseContext', bound=Callable[[SessionCloseContext], Any])
_MSessionCloseContext = TypeVar('_MSessionCloseContext', bound=Callable[[Any, SessionCloseContext], Any])
_SessionEndContext = TypeVar('_SessionEndContext', bound=Callable[[SessionEndContext], Any])
_MSessionEndContext = TypeVar('_MSessionEndContext', bound=Callable[[Any, SessionEndContext], Any])
_SessionStartContext = TypeVar('_SessionStartContext', bound=Callable[[SessionStartContext], Any])
_MSessionStartContext = TypeVar('_MSessionStartContext', bound=Callable[[Any, SessionStartContext], Any])
_ShouldStopContext = TypeVar('_ShouldStopContext', bound=Callable[[ShouldStopContext], Any])
_MShouldStopContext = TypeVar('_MShouldStopContext', bound=Callable[[Any, ShouldStopContext], Any])
_StopContext = TypeVar('_StopContext', bound=Callable[[StopContext], Any])
_MStopContext = TypeVar('_MStopContext', bound=Callable[[Any, StopContext], Any])
_StreamChunkContext = TypeVar('_StreamChunkContext', bound=Callable[[StreamChunkContext], Any])
_MStreamChunkContext = TypeVar('_MStreamChunkContext', bound=Callable[[Any, StreamChunkContext], Any])
_StreamEndContext = TypeVar('_StreamEndContext', bound=Callable[[StreamEndContext], Any])
_MStreamEndContext = TypeVar('_MStreamEndContext', bound=Callable[[Any, StreamEndContext], Any])
_StreamErrorContext = TypeVar('_StreamErrorContext', bound=Callable[[StreamErrorContext], Any])
_MStreamErrorContext = TypeVar('_MStreamErrorContext', bound=Callable[[Any, StreamErrorContext], Any])
_StreamStartContext = TypeVar('_StreamStartContext', bound=Callable[[StreamStartContext], Any])
_MStreamStartContext = TypeVar('_MStreamStartContext', bound=Callable[[Any, StreamStartContext], Any])
_SubagentStartContext = TypeVar('_SubagentStartContext', bound=Callable[[SubagentStartContext], Any])
_MSubagentStartContext = TypeVar('_MSubagentStartContext', bound=Callable[[Any, SubagentStartContext], Any])
_SubagentStopContext = TypeVar('_SubagentStopContext', bound=Callable[[SubagentStopContext], Any])
_MSubagentStopContext = TypeVar('_MSubagentStopContext', bound=Callable[[Any, SubagentStopContext], Any])
_ToolCallErrorContext = TypeVar('_ToolCallErrorContext', bound=Callable[[ToolCallErrorContext], Any])
_MToolCallErrorContext = TypeVar('_MToolCallErrorContext', bound=Callable[[Any, ToolCallErrorContext], Any])
_ToolCallResultContext = TypeVar('_ToolCallResultContext', bound=Callable[[ToolCallResultContext], Any])
_MToolCallResultContext = TypeVar('_MToolCallResultContext', bound=Callable[[Any, ToolCallResultContext], Any])
_TransformContextContext = TypeVar('_TransformContextContext', bound=Callable[[TransformContextContext], Any])
_MTransformContextContext = TypeVar('_MTransformContextContext', bound=Callable[[Any, TransformContextContext], Any])
_UserMessageContext = TypeVar('_UserMessageContext', bound=Callable[[UserMessageContext], Any])
_MUserMessageContext = TypeVar('_MUserMessageContext', bound=Callable[[Any, UserMessageContext], Any])


class OnMethod(Protocol):
    """``bus.on`` / ``bus.once`` / ``agent.on`` / ``agent.once``, typed per event."""

    @overload
    def __call__(self, event: Literal["on_chat_start", "onChatStart", "AgentStart", "BeforeRun", "beforeRun", "before_run"], handler: Callable[[ChatStartContext], Any], *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Disposer: ...
    @overload
    def __call__(self, event: Literal["on_chat_start", "onChatStart", "AgentStart", "BeforeRun", "beforeRun", "before_run"], handler: None = None, *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Callable[[_ChatStartContext], _ChatStartContext]: ...

    @overload
    def __call__(self, event: Literal["on_user_message", "OnUserMessage", "user_message"], handler: Callable[[UserMessageContext], Any], *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Disposer: ...
    @overload
    def __call__(self, event: Literal["on_user_message", "OnUserMessage", "user_message"], handler: None = None, *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Callable[[_UserMessageContext], _UserMessageContext]: ...

    @overload
    def __call__(self, event: Literal["pre_agent", "BeforeAgent", "before_agent", "onAgentStart"], handler: Callable[[PreAgentContext], Any], *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Disposer: ...
    @overload
    def __call__(self, event: Literal["pre_agent", "BeforeAgent", "before_agent", "onAgentStart"], handler: None = None, *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Callable[[_PreAgentContext], _PreAgentContext]: ...

    @overload
    def __call__(self, event: Literal["post_agent", "AfterAgent", "after_agent", "onAgentEnd"], handler: Callable[[PostAgentContext], Any], *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Disposer: ...
    @overload
    def __call__(self, event: Literal["post_agent", "AfterAgent", "after_agent", "onAgentEnd"], handler: None = None, *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Callable[[_PostAgentContext], _PostAgentContext]: ...

    @overload
    def __call__(self, event: Literal["on_session_start", "onSessionStart"], handler: Callable[[SessionStartContext], Any], *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Disposer: ...
    @overload
    def __call__(self, event: Literal["on_session_start", "onSessionStart"], handler: None = None, *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Callable[[_SessionStartContext], _SessionStartContext]: ...

    @overload
    def __call__(self, event: Literal["on_session_end", "onSessionEnd"], handler: Callable[[SessionEndContext], Any], *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Disposer: ...
    @overload
    def __call__(self, event: Literal["on_session_end", "onSessionEnd"], handler: None = None, *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Callable[[_SessionEndContext], _SessionEndContext]: ...

    @overload
    def __call__(self, event: Literal["on_session_close"], handler: Callable[[SessionCloseContext], Any], *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Disposer: ...
    @overload
    def __call__(self, event: Literal["on_session_close"], handler: None = None, *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Callable[[_SessionCloseContext], _SessionCloseContext]: ...

    @overload
    def __call__(self, event: Literal["on_loop_start", "LoopStart"], handler: Callable[[LoopStartContext], Any], *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Disposer: ...
    @overload
    def __call__(self, event: Literal["on_loop_start", "LoopStart"], handler: None = None, *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Callable[[_LoopStartContext], _LoopStartContext]: ...

    @overload
    def __call__(self, event: Literal["transform_context", "TransformContext"], handler: Callable[[TransformContextContext], Any], *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Disposer: ...
    @overload
    def __call__(self, event: Literal["transform_context", "TransformContext"], handler: None = None, *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Callable[[_TransformContextContext], _TransformContextContext]: ...

    @overload
    def __call__(self, event: Literal["pre_request", "preRequest", "LlmCall", "PreModelCall", "pre_model_call", "onLlmStart"], handler: Callable[[PreRequestContext], Any], *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Disposer: ...
    @overload
    def __call__(self, event: Literal["pre_request", "preRequest", "LlmCall", "PreModelCall", "pre_model_call", "onLlmStart"], handler: None = None, *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Callable[[_PreRequestContext], _PreRequestContext]: ...

    @overload
    def __call__(self, event: Literal["on_stream_start", "StreamStart"], handler: Callable[[StreamStartContext], Any], *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Disposer: ...
    @overload
    def __call__(self, event: Literal["on_stream_start", "StreamStart"], handler: None = None, *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Callable[[_StreamStartContext], _StreamStartContext]: ...

    @overload
    def __call__(self, event: Literal["on_stream_chunk", "StreamChunk"], handler: Callable[[StreamChunkContext], Any], *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Disposer: ...
    @overload
    def __call__(self, event: Literal["on_stream_chunk", "StreamChunk"], handler: None = None, *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Callable[[_StreamChunkContext], _StreamChunkContext]: ...

    @overload
    def __call__(self, event: Literal["on_stream_end", "StreamEnd"], handler: Callable[[StreamEndContext], Any], *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Disposer: ...
    @overload
    def __call__(self, event: Literal["on_stream_end", "StreamEnd"], handler: None = None, *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Callable[[_StreamEndContext], _StreamEndContext]: ...

    @overload
    def __call__(self, event: Literal["on_stream_error", "StreamError"], handler: Callable[[StreamErrorContext], Any], *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Disposer: ...
    @overload
    def __call__(self, event: Literal["on_stream_error", "StreamError"], handler: None = None, *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Callable[[_StreamErrorContext], _StreamErrorContext]: ...

    @overload
    def __call__(self, event: Literal["on_response", "onResponse", "LlmResponse", "ThinkEnd", "PostModelCall", "post_model_call", "onLlmEnd"], handler: Callable[[ResponseContext], Any], *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Disposer: ...
    @overload
    def __call__(self, event: Literal["on_response", "onResponse", "LlmResponse", "ThinkEnd", "PostModelCall", "post_model_call", "onLlmEnd"], handler: None = None, *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Callable[[_ResponseContext], _ResponseContext]: ...

    @overload
    def __call__(self, event: Literal["on_model_error", "OnModelError", "model_error"], handler: Callable[[ModelErrorContext], Any], *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Disposer: ...
    @overload
    def __call__(self, event: Literal["on_model_error", "OnModelError", "model_error"], handler: None = None, *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Callable[[_ModelErrorContext], _ModelErrorContext]: ...

    @overload
    def __call__(self, event: Literal["on_output"], handler: Callable[[OutputContext], Any], *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Disposer: ...
    @overload
    def __call__(self, event: Literal["on_output"], handler: None = None, *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Callable[[_OutputContext], _OutputContext]: ...

    @overload
    def __call__(self, event: Literal["on_message", "onMessage"], handler: Callable[[MessageContext], Any], *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Disposer: ...
    @overload
    def __call__(self, event: Literal["on_message", "onMessage"], handler: None = None, *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Callable[[_MessageContext], _MessageContext]: ...

    @overload
    def __call__(self, event: Literal["pre_tool_call", "preToolCall", "BeforeTool", "BeforeToolCall", "PreToolUse", "pre_tool_use", "beforeToolCall", "onToolStart"], handler: Callable[[PreToolCallContext], Any], *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Disposer: ...
    @overload
    def __call__(self, event: Literal["pre_tool_call", "preToolCall", "BeforeTool", "BeforeToolCall", "PreToolUse", "pre_tool_use", "beforeToolCall", "onToolStart"], handler: None = None, *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Callable[[_PreToolCallContext], _PreToolCallContext]: ...

    @overload
    def __call__(self, event: Literal["on_tool_call_result", "onToolCallResult", "AfterTool", "AfterToolCall", "PostToolUse", "post_tool_use", "afterToolCall", "onToolEnd"], handler: Callable[[ToolCallResultContext], Any], *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Disposer: ...
    @overload
    def __call__(self, event: Literal["on_tool_call_result", "onToolCallResult", "AfterTool", "AfterToolCall", "PostToolUse", "post_tool_use", "afterToolCall", "onToolEnd"], handler: None = None, *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Callable[[_ToolCallResultContext], _ToolCallResultContext]: ...

    @overload
    def __call__(self, event: Literal["on_tool_call_error", "onToolCallError", "ToolError", "OnToolError", "tool_error"], handler: Callable[[ToolCallErrorContext], Any], *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Disposer: ...
    @overload
    def __call__(self, event: Literal["on_tool_call_error", "onToolCallError", "ToolError", "OnToolError", "tool_error"], handler: None = None, *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Callable[[_ToolCallErrorContext], _ToolCallErrorContext]: ...

    @overload
    def __call__(self, event: Literal["on_loop_end", "LoopEnd"], handler: Callable[[LoopEndContext], Any], *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Disposer: ...
    @overload
    def __call__(self, event: Literal["on_loop_end", "LoopEnd"], handler: None = None, *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Callable[[_LoopEndContext], _LoopEndContext]: ...

    @overload
    def __call__(self, event: Literal["prepare_next_turn", "PrepareNextTurn"], handler: Callable[[PrepareNextTurnContext], Any], *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Disposer: ...
    @overload
    def __call__(self, event: Literal["prepare_next_turn", "PrepareNextTurn"], handler: None = None, *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Callable[[_PrepareNextTurnContext], _PrepareNextTurnContext]: ...

    @overload
    def __call__(self, event: Literal["should_stop", "ShouldStopAfterTurn"], handler: Callable[[ShouldStopContext], Any], *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Disposer: ...
    @overload
    def __call__(self, event: Literal["should_stop", "ShouldStopAfterTurn"], handler: None = None, *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Callable[[_ShouldStopContext], _ShouldStopContext]: ...

    @overload
    def __call__(self, event: Literal["on_stop", "onStop"], handler: Callable[[StopContext], Any], *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Disposer: ...
    @overload
    def __call__(self, event: Literal["on_stop", "onStop"], handler: None = None, *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Callable[[_StopContext], _StopContext]: ...

    @overload
    def __call__(self, event: Literal["on_memory_read", "MemoryRead"], handler: Callable[[MemoryReadContext], Any], *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Disposer: ...
    @overload
    def __call__(self, event: Literal["on_memory_read", "MemoryRead"], handler: None = None, *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Callable[[_MemoryReadContext], _MemoryReadContext]: ...

    @overload
    def __call__(self, event: Literal["on_memory_write", "MemoryWrite"], handler: Callable[[MemoryWriteContext], Any], *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Disposer: ...
    @overload
    def __call__(self, event: Literal["on_memory_write", "MemoryWrite"], handler: None = None, *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Callable[[_MemoryWriteContext], _MemoryWriteContext]: ...

    @overload
    def __call__(self, event: Literal["on_memory_error", "MemoryError"], handler: Callable[[MemoryErrorContext], Any], *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Disposer: ...
    @overload
    def __call__(self, event: Literal["on_memory_error", "MemoryError"], handler: None = None, *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Callable[[_MemoryErrorContext], _MemoryErrorContext]: ...

    @overload
    def __call__(self, event: Literal["on_subagent_start", "OnSubagentStart", "subagent_start", "onSubagentStart"], handler: Callable[[SubagentStartContext], Any], *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Disposer: ...
    @overload
    def __call__(self, event: Literal["on_subagent_start", "OnSubagentStart", "subagent_start", "onSubagentStart"], handler: None = None, *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Callable[[_SubagentStartContext], _SubagentStartContext]: ...

    @overload
    def __call__(self, event: Literal["on_subagent_stop", "OnSubagentStop", "subagent_stop", "onSubagentStop"], handler: Callable[[SubagentStopContext], Any], *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Disposer: ...
    @overload
    def __call__(self, event: Literal["on_subagent_stop", "OnSubagentStop", "subagent_stop", "onSubagentStop"], handler: None = None, *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Callable[[_SubagentStopContext], _SubagentStopContext]: ...

    @overload
    def __call__(self, event: Literal["pre_handoff", "beforeHandoff"], handler: Callable[[PreHandoffContext], Any], *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Disposer: ...
    @overload
    def __call__(self, event: Literal["pre_handoff", "beforeHandoff"], handler: None = None, *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Callable[[_PreHandoffContext], _PreHandoffContext]: ...

    @overload
    def __call__(self, event: Literal["on_handoff", "onHandoff"], handler: Callable[[OnHandoffContext], Any], *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Disposer: ...
    @overload
    def __call__(self, event: Literal["on_handoff", "onHandoff"], handler: None = None, *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Callable[[_OnHandoffContext], _OnHandoffContext]: ...

    @overload
    def __call__(self, event: Literal["on_chat_done", "onChatDone", "afterRun"], handler: Callable[[ChatDoneContext], Any], *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Disposer: ...
    @overload
    def __call__(self, event: Literal["on_chat_done", "onChatDone", "afterRun"], handler: None = None, *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Callable[[_ChatDoneContext], _ChatDoneContext]: ...

    @overload
    def __call__(self, event: Literal["on_chat_paused"], handler: Callable[[ChatPausedContext], Any], *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Disposer: ...
    @overload
    def __call__(self, event: Literal["on_chat_paused"], handler: None = None, *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Callable[[_ChatPausedContext], _ChatPausedContext]: ...

    @overload
    def __call__(self, event: Literal["on_run_resumed"], handler: Callable[[RunResumedContext], Any], *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Disposer: ...
    @overload
    def __call__(self, event: Literal["on_run_resumed"], handler: None = None, *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Callable[[_RunResumedContext], _RunResumedContext]: ...

    @overload
    def __call__(self, event: Literal["on_chat_abort", "onChatAbort"], handler: Callable[[ChatAbortContext], Any], *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Disposer: ...
    @overload
    def __call__(self, event: Literal["on_chat_abort", "onChatAbort"], handler: None = None, *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Callable[[_ChatAbortContext], _ChatAbortContext]: ...

    @overload
    def __call__(self, event: Literal["on_chat_error", "onChatError"], handler: Callable[[ChatErrorContext], Any], *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Disposer: ...
    @overload
    def __call__(self, event: Literal["on_chat_error", "onChatError"], handler: None = None, *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Callable[[_ChatErrorContext], _ChatErrorContext]: ...

    @overload
    def __call__(self, event: Literal["on_chat_end", "AgentEnd", "AfterRun", "after_run"], handler: Callable[[ChatEndContext], Any], *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Disposer: ...
    @overload
    def __call__(self, event: Literal["on_chat_end", "AgentEnd", "AfterRun", "after_run"], handler: None = None, *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Callable[[_ChatEndContext], _ChatEndContext]: ...

    @overload
    def __call__(self, event: Literal["on_scope_register", "onScopeRegister"], handler: Callable[[ScopeRegisterContext], Any], *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Disposer: ...
    @overload
    def __call__(self, event: Literal["on_scope_register", "onScopeRegister"], handler: None = None, *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Callable[[_ScopeRegisterContext], _ScopeRegisterContext]: ...

    @overload
    def __call__(self, event: Literal["on_scope_unregister", "onScopeUnregister"], handler: Callable[[ScopeUnregisterContext], Any], *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Disposer: ...
    @overload
    def __call__(self, event: Literal["on_scope_unregister", "onScopeUnregister"], handler: None = None, *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Callable[[_ScopeUnregisterContext], _ScopeUnregisterContext]: ...

    @overload
    def __call__(self, event: Literal["on_event", "OnEvent"], handler: Callable[[EventRecord], Any], *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Disposer: ...
    @overload
    def __call__(self, event: Literal["on_event", "OnEvent"], handler: None = None, *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Callable[[_EventRecord], _EventRecord]: ...

    @overload
    def __call__(self, event: str, handler: Callable[[EventContext], Any], *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Disposer: ...
    @overload
    def __call__(self, event: str, handler: None = None, *, match: Matcher | None = None, priority: int = 0, errors: ErrorPolicy | None = None, guard: bool = False) -> Callable[[_H], _H]: ...


class HookDecorator(Protocol):
    """``@hook(event, ...)`` on a plugin method, typed per event."""

    @overload
    def __call__(self, event: Literal["on_chat_start", "onChatStart", "AgentStart", "BeforeRun", "beforeRun", "before_run"], *, match: Any = None, priority: int | None = None, guard: bool | None = None, errors: str | None = None) -> Callable[[_MChatStartContext], _MChatStartContext]: ...

    @overload
    def __call__(self, event: Literal["on_user_message", "OnUserMessage", "user_message"], *, match: Any = None, priority: int | None = None, guard: bool | None = None, errors: str | None = None) -> Callable[[_MUserMessageContext], _MUserMessageContext]: ...

    @overload
    def __call__(self, event: Literal["pre_agent", "BeforeAgent", "before_agent", "onAgentStart"], *, match: Any = None, priority: int | None = None, guard: bool | None = None, errors: str | None = None) -> Callable[[_MPreAgentContext], _MPreAgentContext]: ...

    @overload
    def __call__(self, event: Literal["post_agent", "AfterAgent", "after_agent", "onAgentEnd"], *, match: Any = None, priority: int | None = None, guard: bool | None = None, errors: str | None = None) -> Callable[[_MPostAgentContext], _MPostAgentContext]: ...

    @overload
    def __call__(self, event: Literal["on_session_start", "onSessionStart"], *, match: Any = None, priority: int | None = None, guard: bool | None = None, errors: str | None = None) -> Callable[[_MSessionStartContext], _MSessionStartContext]: ...

    @overload
    def __call__(self, event: Literal["on_session_end", "onSessionEnd"], *, match: Any = None, priority: int | None = None, guard: bool | None = None, errors: str | None = None) -> Callable[[_MSessionEndContext], _MSessionEndContext]: ...

    @overload
    def __call__(self, event: Literal["on_session_close"], *, match: Any = None, priority: int | None = None, guard: bool | None = None, errors: str | None = None) -> Callable[[_MSessionCloseContext], _MSessionCloseContext]: ...

    @overload
    def __call__(self, event: Literal["on_loop_start", "LoopStart"], *, match: Any = None, priority: int | None = None, guard: bool | None = None, errors: str | None = None) -> Callable[[_MLoopStartContext], _MLoopStartContext]: ...

    @overload
    def __call__(self, event: Literal["transform_context", "TransformContext"], *, match: Any = None, priority: int | None = None, guard: bool | None = None, errors: str | None = None) -> Callable[[_MTransformContextContext], _MTransformContextContext]: ...

    @overload
    def __call__(self, event: Literal["pre_request", "preRequest", "LlmCall", "PreModelCall", "pre_model_call", "onLlmStart"], *, match: Any = None, priority: int | None = None, guard: bool | None = None, errors: str | None = None) -> Callable[[_MPreRequestContext], _MPreRequestContext]: ...

    @overload
    def __call__(self, event: Literal["on_stream_start", "StreamStart"], *, match: Any = None, priority: int | None = None, guard: bool | None = None, errors: str | None = None) -> Callable[[_MStreamStartContext], _MStreamStartContext]: ...

    @overload
    def __call__(self, event: Literal["on_stream_chunk", "StreamChunk"], *, match: Any = None, priority: int | None = None, guard: bool | None = None, errors: str | None = None) -> Callable[[_MStreamChunkContext], _MStreamChunkContext]: ...

    @overload
    def __call__(self, event: Literal["on_stream_end", "StreamEnd"], *, match: Any = None, priority: int | None = None, guard: bool | None = None, errors: str | None = None) -> Callable[[_MStreamEndContext], _MStreamEndContext]: ...

    @overload
    def __call__(self, event: Literal["on_stream_error", "StreamError"], *, match: Any = None, priority: int | None = None, guard: bool | None = None, errors: str | None = None) -> Callable[[_MStreamErrorContext], _MStreamErrorContext]: ...

    @overload
    def __call__(self, event: Literal["on_response", "onResponse", "LlmResponse", "ThinkEnd", "PostModelCall", "post_model_call", "onLlmEnd"], *, match: Any = None, priority: int | None = None, guard: bool | None = None, errors: str | None = None) -> Callable[[_MResponseContext], _MResponseContext]: ...

    @overload
    def __call__(self, event: Literal["on_model_error", "OnModelError", "model_error"], *, match: Any = None, priority: int | None = None, guard: bool | None = None, errors: str | None = None) -> Callable[[_MModelErrorContext], _MModelErrorContext]: ...

    @overload
    def __call__(self, event: Literal["on_output"], *, match: Any = None, priority: int | None = None, guard: bool | None = None, errors: str | None = None) -> Callable[[_MOutputContext], _MOutputContext]: ...

    @overload
    def __call__(self, event: Literal["on_message", "onMessage"], *, match: Any = None, priority: int | None = None, guard: bool | None = None, errors: str | None = None) -> Callable[[_MMessageContext], _MMessageContext]: ...

    @overload
    def __call__(self, event: Literal["pre_tool_call", "preToolCall", "BeforeTool", "BeforeToolCall", "PreToolUse", "pre_tool_use", "beforeToolCall", "onToolStart"], *, match: Any = None, priority: int | None = None, guard: bool | None = None, errors: str | None = None) -> Callable[[_MPreToolCallContext], _MPreToolCallContext]: ...

    @overload
    def __call__(self, event: Literal["on_tool_call_result", "onToolCallResult", "AfterTool", "AfterToolCall", "PostToolUse", "post_tool_use", "afterToolCall", "onToolEnd"], *, match: Any = None, priority: int | None = None, guard: bool | None = None, errors: str | None = None) -> Callable[[_MToolCallResultContext], _MToolCallResultContext]: ...

    @overload
    def __call__(self, event: Literal["on_tool_call_error", "onToolCallError", "ToolError", "OnToolError", "tool_error"], *, match: Any = None, priority: int | None = None, guard: bool | None = None, errors: str | None = None) -> Callable[[_MToolCallErrorContext], _MToolCallErrorContext]: ...

    @overload
    def __call__(self, event: Literal["on_loop_end", "LoopEnd"], *, match: Any = None, priority: int | None = None, guard: bool | None = None, errors: str | None = None) -> Callable[[_MLoopEndContext], _MLoopEndContext]: ...

    @overload
    def __call__(self, event: Literal["prepare_next_turn", "PrepareNextTurn"], *, match: Any = None, priority: int | None = None, guard: bool | None = None, errors: str | None = None) -> Callable[[_MPrepareNextTurnContext], _MPrepareNextTurnContext]: ...

    @overload
    def __call__(self, event: Literal["should_stop", "ShouldStopAfterTurn"], *, match: Any = None, priority: int | None = None, guard: bool | None = None, errors: str | None = None) -> Callable[[_MShouldStopContext], _MShouldStopContext]: ...

    @overload
    def __call__(self, event: Literal["on_stop", "onStop"], *, match: Any = None, priority: int | None = None, guard: bool | None = None, errors: str | None = None) -> Callable[[_MStopContext], _MStopContext]: ...

    @overload
    def __call__(self, event: Literal["on_memory_read", "MemoryRead"], *, match: Any = None, priority: int | None = None, guard: bool | None = None, errors: str | None = None) -> Callable[[_MMemoryReadContext], _MMemoryReadContext]: ...

    @overload
    def __call__(self, event: Literal["on_memory_write", "MemoryWrite"], *, match: Any = None, priority: int | None = None, guard: bool | None = None, errors: str | None = None) -> Callable[[_MMemoryWriteContext], _MMemoryWriteContext]: ...

    @overload
    def __call__(self, event: Literal["on_memory_error", "MemoryError"], *, match: Any = None, priority: int | None = None, guard: bool | None = None, errors: str | None = None) -> Callable[[_MMemoryErrorContext], _MMemoryErrorContext]: ...

    @overload
    def __call__(self, event: Literal["on_subagent_start", "OnSubagentStart", "subagent_start", "onSubagentStart"], *, match: Any = None, priority: int | None = None, guard: bool | None = None, errors: str | None = None) -> Callable[[_MSubagentStartContext], _MSubagentStartContext]: ...

    @overload
    def __call__(self, event: Literal["on_subagent_stop", "OnSubagentStop", "subagent_stop", "onSubagentStop"], *, match: Any = None, priority: int | None = None, guard: bool | None = None, errors: str | None = None) -> Callable[[_MSubagentStopContext], _MSubagentStopContext]: ...

    @overload
    def __call__(self, event: Literal["pre_handoff", "beforeHandoff"], *, match: Any = None, priority: int | None = None, guard: bool | None = None, errors: str | None = None) -> Callable[[_MPreHandoffContext], _MPreHandoffContext]: ...

    @overload
    def __call__(self, event: Literal["on_handoff", "onHandoff"], *, match: Any = None, priority: int | None = None, guard: bool | None = None, errors: str | None = None) -> Callable[[_MOnHandoffContext], _MOnHandoffContext]: ...

    @overload
    def __call__(self, event: Literal["on_chat_done", "onChatDone", "afterRun"], *, match: Any = None, priority: int | None = None, guard: bool | None = None, errors: str | None = None) -> Callable[[_MChatDoneContext], _MChatDoneContext]: ...

    @overload
    def __call__(self, event: Literal["on_chat_paused"], *, match: Any = None, priority: int | None = None, guard: bool | None = None, errors: str | None = None) -> Callable[[_MChatPausedContext], _MChatPausedContext]: ...

    @overload
    def __call__(self, event: Literal["on_run_resumed"], *, match: Any = None, priority: int | None = None, guard: bool | None = None, errors: str | None = None) -> Callable[[_MRunResumedContext], _MRunResumedContext]: ...

    @overload
    def __call__(self, event: Literal["on_chat_abort", "onChatAbort"], *, match: Any = None, priority: int | None = None, guard: bool | None = None, errors: str | None = None) -> Callable[[_MChatAbortContext], _MChatAbortContext]: ...

    @overload
    def __call__(self, event: Literal["on_chat_error", "onChatError"], *, match: Any = None, priority: int | None = None, guard: bool | None = None, errors: str | None = None) -> Callable[[_MChatErrorContext], _MChatErrorContext]: ...

    @overload
    def __call__(self, event: Literal["on_chat_end", "AgentEnd", "AfterRun", "after_run"], *, match: Any = None, priority: int | None = None, guard: bool | None = None, errors: str | None = None) -> Callable[[_MChatEndContext], _MChatEndContext]: ...

    @overload
    def __call__(self, event: Literal["on_scope_register", "onScopeRegister"], *, match: Any = None, priority: int | None = None, guard: bool | None = None, errors: str | None = None) -> Callable[[_MScopeRegisterContext], _MScopeRegisterContext]: ...

    @overload
    def __call__(self, event: Literal["on_scope_unregister", "onScopeUnregister"], *, match: Any = None, priority: int | None = None, guard: bool | None = None, errors: str | None = None) -> Callable[[_MScopeUnregisterContext], _MScopeUnregisterContext]: ...

    @overload
    def __call__(self, event: Literal["on_event", "OnEvent"], *, match: Any = None, priority: int | None = None, guard: bool | None = None, errors: str | None = None) -> Callable[[_MEventRecord], _MEventRecord]: ...

    @overload
    def __call__(self, event: str | None = None, *, match: Any = None, priority: int | None = None, guard: bool | None = None, errors: str | None = None) -> Callable[[_M], _M]: ...


__all__ = ["EventName", "HookDecorator", "OnMethod"]
