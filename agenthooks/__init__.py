"""agenthooks: every lifecycle point of an agent run is a named signal on one bus.

Hooks observe those points; interceptors change, block, short-circuit or recover them; the
interceptor phases of model and tool calls are ordered middleware stacks.
"""

from .bus import Disposer, HookBus
from .decisions import Approve, Ask, Deny
from .errors import (
    AgentHooksError,
    BadReturnError,
    BudgetExceeded,
    ConfigError,
    MaxTurnsExceeded,
    OutputValidationError,
    ProviderConnectionError,
    ProviderError,
    ProviderHTTPError,
    ProviderResponseError,
    ProviderTimeout,
    RegistrationError,
    ResumeConflictError,
    ResumeError,
    RunAborted,
    SessionPausedError,
    StopRun,
    StoreError,
    UnknownEventError,
)
from .events import CATALOG, EventName
from .events.contexts import *  # noqa: F403  (every context class, named after its event)
from .events.contexts import __all__ as _contexts_all
from .messages import (
    AgentResponse,
    ChatMessage,
    PendingCall,
    ProviderRequest,
    ProviderResponse,
    ToolCall,
    Usage,
)
from .middleware import CallNext, Middleware, Stack
from .plugins import hook
from .providers import (
    AnthropicProvider,
    OpenAIChatProvider,
    Provider,
    ScriptedProvider,
    StreamDelta,
)
from .runtime import (
    Agent,
    FinalResponse,
    Memory,
    Session,
    StreamEvent,
    TextDelta,
    ToolCallEnd,
    ToolCallStart,
)
from .runtime.durable import PausedRun
from .tools import Scope, Tool, ToolContext, tool

__version__ = "0.1.0"

__all__ = [
    *_contexts_all,
    "CATALOG",
    "CallNext",
    "Agent",
    "AgentHooksError",
    "AgentResponse",
    "AnthropicProvider",
    "Approve",
    "Ask",
    "BadReturnError",
    "BudgetExceeded",
    "ChatMessage",
    "ConfigError",
    "Deny",
    "Disposer",
    "EventName",
    "FinalResponse",
    "HookBus",
    "MaxTurnsExceeded",
    "Memory",
    "Middleware",
    "OpenAIChatProvider",
    "OutputValidationError",
    "PendingCall",
    "Provider",
    "ProviderConnectionError",
    "ProviderError",
    "ProviderHTTPError",
    "ProviderRequest",
    "ProviderResponse",
    "ProviderResponseError",
    "ProviderTimeout",
    "RegistrationError",
    "ResumeConflictError",
    "ResumeError",
    "RunAborted",
    "Scope",
    "ScriptedProvider",
    "Session",
    "PausedRun",
    "SessionPausedError",
    "Stack",
    "StopRun",
    "StoreError",
    "StreamDelta",
    "StreamEvent",
    "TextDelta",
    "Tool",
    "ToolCall",
    "ToolCallEnd",
    "ToolCallStart",
    "ToolContext",
    "UnknownEventError",
    "Usage",
    "hook",
    "tool",
]
