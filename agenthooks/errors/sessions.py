"""Errors of sessions and their stores: resuming a paused run, a session busy, paused or
taken over, a store that cannot be used."""

from __future__ import annotations

from typing import Any

from .base import AgentHooksError
from .run import StopRun
from .stores import StoreError


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
    paused run; this one did nothing. ``run_id`` is the paused run, ``winner`` the claim of
    the process that got it, when the store still shows it."""

    def __init__(
        self,
        message: str,
        *,
        session_id: str | None = None,
        run_id: str | None = None,
        winner: str | None = None,
    ) -> None:
        self.run_id = run_id
        self.winner = winner
        super().__init__(message, session_id=session_id)


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


__all__ = [
    "ClaimLostError",
    "MissingDecisionError",
    "NotPausedError",
    "NotPendingError",
    "ResumeConflictError",
    "ResumeError",
    "SessionBusyError",
    "SessionPausedError",
    "StoreError",
    "ToolsChangedError",
    "UnknownSessionError",
]
