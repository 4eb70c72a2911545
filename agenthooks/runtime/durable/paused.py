"""A paused run as data: what it needs to continue in any process (``PausedRun``), and the
decisions recorded for it ahead of the resume (``Answer``). Stores keep these as JSON."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from ...decisions import Approve, Decision, Deny
from ...messages import ChatMessage, PendingCall, Usage


class Answer(BaseModel):
    """A decision recorded ahead of the resume (``agenthooks approvals approve|deny``)."""

    approved: bool
    reason: str | None = None
    by: str | None = None
    at: float = 0.0

    def decision(self) -> Decision:
        """The decision ``resume()`` applies."""
        return Approve() if self.approved else Deny(self.reason)


class PausedRun(BaseModel):
    """Everything a paused run needs to continue, as JSON: its ids and counters, the agent
    running it, the calls it waits on, and what its paused batch decided already.

    ``start`` is where the run's messages begin in the session's history; ``working`` the
    working transcript when ``prepare_next_turn`` replaced it (else ``None``: the history);
    ``records`` the ``on_event`` records emitted for the run so far; ``answers`` decisions
    recorded before the resume; ``started`` the call ids whose tool may have run (the
    journal of a stored run, for crash recovery). ``turns``, ``tool_calls`` and ``usage``
    (tokens and cost) are what the run has used so far: a resumed run goes on from them.
    ``state`` is the plugins' per-run state, by plugin name, as their ``on_chat_paused``
    handlers left it (``on_run_resumed`` hands it back).
    """

    run_id: str
    agent: str
    iteration: int = 0
    turns: int = 0
    tool_calls: int = 0
    usage: Usage = Field(default_factory=Usage)
    input: str = ""
    model: str | None = None
    thinking: str | None = None
    start: int = 0
    working: list[ChatMessage] | None = None
    caps: list[str] = Field(default_factory=list)
    pending: list[PendingCall] = Field(default_factory=list)
    handoff: str | None = None
    terminating: bool = False
    records: int = 0
    paused_at: float = 0.0
    answers: dict[str, Answer] = Field(default_factory=dict)
    started: list[str] = Field(default_factory=list)
    state: dict[str, Any] = Field(default_factory=dict)


__all__ = ["Answer", "PausedRun"]
