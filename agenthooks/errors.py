"""agenthooks' own errors, all under one base class.

A handler's exception is never wrapped: it reaches the caller with its own type and a note
naming the event and handler. ``Deny`` and short-circuits are values, not errors.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .messages import ChatMessage


class AgentHooksError(Exception):
    """Base class of every error agenthooks raises itself."""


class RegistrationError(AgentHooksError, ValueError):
    """A hook, matcher, middleware or plugin was registered wrongly."""


class ConfigError(RegistrationError):
    """A plugin or agent is configured wrongly; the message names where and which key:
    ``policy.toml:3: rules[2].action: 'alow' is not one of allow, deny, ask``.

    ``source`` is the file, class or ``environment`` the value came from, ``key`` the option,
    variable or dotted path, ``line`` / ``column`` the position of a syntax error, ``problem``
    what is wrong.
    """

    def __init__(
        self,
        problem: str,
        *,
        source: str | None = None,
        key: str | None = None,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        self.problem = problem
        self.source = source
        self.key = key
        self.line = line
        self.column = column
        where = (
            (source or "")
            + (f":{line}" if line is not None else "")
            + (f":{column}" if line is not None and column is not None else "")
        )
        super().__init__(": ".join([p for p in (where, key) if p] + [problem]))


class UnknownEventError(RegistrationError, KeyError):
    """An event name that is neither canonical nor a known alias."""

    def __init__(self, name: str, suggestions: list[str]) -> None:
        self.name = name
        self.suggestions = suggestions
        hint = f"; did you mean {', '.join(repr(s) for s in suggestions)}?" if suggestions else ""
        super().__init__(f"unknown event {name!r}{hint}")

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0])


class BadReturnError(AgentHooksError, TypeError):
    """A handler returned something its event does not accept."""


class RunAborted(AgentHooksError):
    """The run's abort ``signal`` was set; raised to the caller of ``chat()``."""

    def __init__(self, reason: Any = "aborted") -> None:
        self.reason = reason
        super().__init__(f"run aborted: {reason}")


class StopRun(AgentHooksError):
    """Raise from a hook or plugin to stop the run: fires ``on_stop(reason)``, then ``on_chat_error``."""

    def __init__(self, reason: str = "stopped") -> None:
        self.reason = reason
        super().__init__(reason)


class LimitExceeded(AgentHooksError):
    """A run limit was reached; ``messages`` are the messages the run had added."""

    def __init__(self, message: str, messages: list[ChatMessage] | None = None) -> None:
        self.messages = list(messages or [])
        super().__init__(message)


class MaxTurnsExceeded(LimitExceeded):
    """The model still asked for tools after the last allowed turn."""


class BudgetExceeded(LimitExceeded):
    """``max_total_tokens`` or ``max_cost`` was reached before a request."""


class OutputValidationError(AgentHooksError):
    """The model's final answer still failed validation against the agent's ``output_type``
    when its ``output_retries`` ran out.

    ``text`` is the last answer as the model gave it, ``problems`` the lines of its last
    correction (``"field.path: message"``), ``error`` what the validation (or an ``on_output``
    hook) raised or returned, ``attempts`` how many answers were checked, ``messages`` the
    messages the run had added (the last answer included).
    """

    def __init__(
        self,
        message: str,
        *,
        text: str | None,
        problems: list[str],
        error: BaseException | str | None,
        attempts: int,
        messages: list[ChatMessage] | None = None,
    ) -> None:
        self.text = text
        self.problems = list(problems)
        self.error = error
        self.attempts = attempts
        self.messages = list(messages or [])
        super().__init__(message)


class ToolError(AgentHooksError):
    """A tool call failed in a way the model is told about (unknown, disabled, bad arguments)."""


class UnknownToolError(ToolError):
    """The model called a tool that no agent scope offers."""


class DisabledToolError(ToolError):
    """The model called a tool whose scope is disabled."""


class ToolValidationError(ToolError):
    """The arguments of a tool call do not validate against the tool's signature."""


class ProviderError(AgentHooksError):
    """A provider call failed. ``raw`` keeps the bytes or status for debugging.

    ``retryable`` says whether another attempt may succeed (the provider never retries
    itself; a retry middleware decides); each subclass has its default.
    """

    retryable: bool = False

    def __init__(
        self,
        message: str,
        *,
        raw: Any = None,
        status: int | None = None,
        retryable: bool | None = None,
    ) -> None:
        self.raw = raw
        self.status = status
        if retryable is not None:
            self.retryable = retryable
        super().__init__(message)


class ProviderHTTPError(ProviderError):
    """The server answered with an HTTP error status (message from the server's body).

    ``headers`` are the response's headers (lower-cased names, ``retry-after`` among them);
    ``error_type`` is the server's own name for the error when its body gives one
    (``overloaded_error``). ``retryable`` defaults to True for 408, 409, 429 and 5xx.
    """

    def __init__(
        self,
        message: str,
        *,
        raw: Any = None,
        status: int | None = None,
        headers: Mapping[str, str] | None = None,
        error_type: str | None = None,
        retryable: bool | None = None,
    ) -> None:
        if retryable is None:
            retryable = status is not None and (status in (408, 409, 429) or status >= 500)
        super().__init__(message, raw=raw, status=status, retryable=retryable)
        self.headers: dict[str, str] = {k.lower(): v for k, v in (headers or {}).items()}
        self.error_type = error_type


class ProviderResponseError(ProviderError):
    """The server's answer is not a valid completion (bad JSON, no choices, no finish reason)."""


class ProviderConnectionError(ProviderError):
    """The connection failed or dropped (mid-stream included)."""

    retryable = True


class ProviderTimeout(ProviderError):
    """The provider did not answer within the timeout."""

    retryable = True


class ScriptExhausted(ProviderError):
    """A ``ScriptedProvider`` was asked for more responses than it was given."""


class ResumeError(AgentHooksError):
    """A paused run cannot be resumed as asked; raised before anything runs or the model is
    asked. ``session_id`` names the session."""

    def __init__(self, message: str, *, session_id: str | None = None) -> None:
        self.session_id = session_id
        super().__init__(message)


class UnknownSessionError(ResumeError, LookupError):
    """The store has no session of that id."""


class NotPausedError(ResumeError):
    """The session has no paused run to resume."""


class NotPendingError(ResumeError, LookupError):
    """A decision names a call id the paused run does not wait on; ``call_id`` is that id."""

    def __init__(self, message: str, *, session_id: str | None, call_id: str) -> None:
        self.call_id = call_id
        super().__init__(message, session_id=session_id)

    def __str__(self) -> str:  # LookupError would repr() a KeyError's message, not this one
        return str(self.args[0])


class MissingDecisionError(ResumeError):
    """A call the paused run waits on has no decision; ``call_ids`` are the undecided ones."""

    def __init__(self, message: str, *, session_id: str | None, call_ids: list[str]) -> None:
        self.call_ids = call_ids
        super().__init__(message, session_id=session_id)


class ToolsChangedError(ResumeError):
    """The agent resuming the run no longer matches the stored calls: a tool (or an agent the
    run reached) is gone, or a call's stored arguments no longer validate."""


class ResumeConflictError(ResumeError):
    """Another process resumes (or runs) this session right now: exactly one continues a
    paused run; this one did nothing."""


class SessionBusyError(AgentHooksError):
    """Another process runs this stored session right now (its claim has not expired)."""


class SessionPausedError(AgentHooksError):
    """``chat()`` on a session whose run is paused: answer its calls with ``resume()`` first.
    ``pending`` are the calls it waits on."""

    def __init__(self, message: str, pending: list[Any] | None = None) -> None:
        self.pending = list(pending or [])
        super().__init__(message)


class ClaimLostError(StopRun):
    """This process no longer holds the session it was running: its claim expired and
    another process took the session over. The run stops here (nothing more is stored)."""


class StoreError(AgentHooksError):
    """A store cannot be used: a bad URL or name, or a schema newer than this version knows."""


HOOK_MARK = "__agenthooks_event__"


def ends_run(exc: BaseException) -> bool:
    """True for what must end the whole run rather than become a tool's error message: a
    ``StopRun``, or an exception a hook raised under ``errors="raise"`` (even inside a
    sub-agent run or a tool), which the model never sees."""
    return isinstance(exc, StopRun) or getattr(exc, HOOK_MARK, None) is not None


__all__ = [
    "HOOK_MARK",
    "AgentHooksError",
    "BadReturnError",
    "BudgetExceeded",
    "ClaimLostError",
    "ConfigError",
    "DisabledToolError",
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
    "ScriptExhausted",
    "SessionBusyError",
    "SessionPausedError",
    "StopRun",
    "StoreError",
    "ToolError",
    "ToolValidationError",
    "ToolsChangedError",
    "UnknownEventError",
    "UnknownSessionError",
    "UnknownToolError",
    "ends_run",
]
