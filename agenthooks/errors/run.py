"""What ends a run: an abort, a stop, a limit reached, an answer that fails validation."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .base import AgentHooksError
from .bridges import RunDenied, UnsupportedReturnError
from .stores import StoreError

if TYPE_CHECKING:
    from ..messages import ChatMessage


class RunAborted(AgentHooksError):
    """The run's abort ``signal`` was set; raised to the caller of ``chat()``."""

    def __init__(self, reason: Any = "aborted") -> None:
        self.reason = reason
        super().__init__(f"run aborted: {reason}")


class StopRun(AgentHooksError):
    """Raise from a hook or plugin to stop the run: fires ``on_stop(reason)``, then ``on_chat_error``.

    Args:
        reason: Why the run stops; ``on_stop`` and the caller read it.
    """

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


HOOK_MARK = "__agenthooks_event__"


def ends_run(exc: BaseException) -> bool:
    """True for what must end the whole run rather than become a tool's error message: a
    ``StopRun``, an exception a hook raised under ``errors="raise"`` (even inside a
    sub-agent run or a tool), a ``StoreError`` (our own machinery failed: never the
    tool's outcome), or a bridge's ``UnsupportedReturnError`` / ``RunDenied`` (a handler
    asked a framework for what it cannot do, or refused the run), which the model never
    sees."""
    return (
        isinstance(exc, (StopRun, StoreError, UnsupportedReturnError, RunDenied))
        or getattr(exc, HOOK_MARK, None) is not None
    )


__all__ = [
    "HOOK_MARK",
    "BudgetExceeded",
    "LimitExceeded",
    "MaxTurnsExceeded",
    "OutputValidationError",
    "RunAborted",
    "StopRun",
    "ends_run",
]
