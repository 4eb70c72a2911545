"""agenthooks' own errors, all under one base class.

A handler's exception is never wrapped: it reaches the caller with its own type and a note
naming the event and handler. ``Deny`` and short-circuits are values, not errors.
"""

from __future__ import annotations

from .base import AgentHooksError
from .bridges import RunDenied, UnsupportedReturnError
from .providers import (
    ProviderConnectionError,
    ProviderError,
    ProviderHTTPError,
    ProviderResponseError,
    ProviderTimeout,
    ScriptExhausted,
)
from .registration import (
    AgentHooksWarning,
    BadReturnError,
    ConfigError,
    IgnoredReturnWarning,
    RegistrationError,
    UnknownEventError,
)
from .run import (
    HOOK_MARK,
    BudgetExceeded,
    LimitExceeded,
    MaxTurnsExceeded,
    OutputValidationError,
    RunAborted,
    StopRun,
    ends_run,
)
from .sessions import (
    ClaimLostError,
    MissingDecisionError,
    NotPausedError,
    NotPendingError,
    ResumeConflictError,
    ResumeError,
    SessionBusyError,
    SessionPausedError,
    StoreError,
    ToolsChangedError,
    UnknownSessionError,
)
from .tools import (
    DisabledToolError,
    ToolError,
    ToolValidationError,
    TruncatedCallError,
    UnknownToolError,
)

__all__ = [
    "HOOK_MARK",
    "AgentHooksError",
    "AgentHooksWarning",
    "BadReturnError",
    "BudgetExceeded",
    "ClaimLostError",
    "ConfigError",
    "DisabledToolError",
    "IgnoredReturnWarning",
    "LimitExceeded",
    "MaxTurnsExceeded",
    "MissingDecisionError",
    "NotPausedError",
    "NotPendingError",
    "OutputValidationError",
    "ProviderConnectionError",
    "ProviderError",
    "ProviderHTTPError",
    "ProviderResponseError",
    "ProviderTimeout",
    "RegistrationError",
    "ResumeConflictError",
    "ResumeError",
    "RunAborted",
    "RunDenied",
    "ScriptExhausted",
    "SessionBusyError",
    "SessionPausedError",
    "StopRun",
    "StoreError",
    "ToolError",
    "ToolValidationError",
    "ToolsChangedError",
    "TruncatedCallError",
    "UnknownEventError",
    "UnknownSessionError",
    "UnknownToolError",
    "UnsupportedReturnError",
    "ends_run",
]
