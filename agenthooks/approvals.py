"""Approvals waiting for a human, from every installed source, behind one interface.

A source keeps approval requests somewhere (a Redis stream of tool calls a guard asked about,
a database of paused runs) and answers them. Installed distributions advertise sources under
the ``agenthooks.approvals`` entry-point group; each entry point loads a class (or factory)
called without arguments and configured from the environment. ``agenthooks approvals
list|approve ID|deny ID`` asks every installed source, so a new kind of approval needs only a
new entry point::

    [project.entry-points."agenthooks.approvals"]
    redis = "agenthooks_redis.approvals:RedisApprovals"
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any, Literal, Protocol, runtime_checkable

from .errors import AgentHooksError

APPROVALS_GROUP = "agenthooks.approvals"
"""The entry-point group approval sources are advertised in."""

Status = Literal["pending", "approved", "denied", "expired"]


@dataclass(frozen=True)
class Approval:
    """One approval request as a source reports it.

    ``id`` is unique within its source; ``kind`` says what is waiting (``tool call``,
    ``paused run``); ``summary`` is the one line a human reads to decide; times are
    wall-clock seconds (``time.time()``); ``expires_at`` is ``None`` when it never expires.
    """

    id: str
    source: str
    kind: str
    summary: str
    status: Status = "pending"
    run_id: str | None = None
    agent: str | None = None
    requested_at: float | None = None
    expires_at: float | None = None
    reason: str | None = None
    """The answer's reason, once answered."""
    details: dict[str, Any] = field(default_factory=dict)


class ApprovalError(AgentHooksError):
    """An answer that cannot be given: the id is unknown, or the request is no longer
    pending (already answered, or expired)."""


class SourceNotConfigured(ApprovalError):
    """Raised by a source's factory when the environment does not configure it (the store
    source without ``$AGENTHOOKS_STORE``): the command line passes over it rather than
    failing, and names it when no other source is left."""


@runtime_checkable
class ApprovalSource(Protocol):
    """Where approval requests live, and how they are answered."""

    name: str

    async def pending(self) -> list[Approval]:
        """The requests waiting for an answer, oldest first."""
        ...

    async def get(self, approval_id: str) -> Approval | None:
        """The request ``approval_id`` in any status, or ``None`` if this source has none."""
        ...

    async def answer(
        self, approval_id: str, approved: bool, *, reason: str | None = None, by: str | None = None
    ) -> Approval:
        """Approve or deny one pending request.

        Args:
            approval_id: The request.
            approved: True to let the call run, False to deny it.
            reason: Why; a denial's reason is the tool message the model reads.
            by: Who answered, kept with the answer.

        Returns:
            The request, answered.

        Raises:
            ApprovalError: The request is unknown or no longer pending.
        """
        ...

    async def aclose(self) -> None:
        """Release connections."""
        ...


def approval_entry_points() -> list[metadata.EntryPoint]:
    """The installed approval sources' entry points, sorted by name."""
    return sorted(metadata.entry_points(group=APPROVALS_GROUP), key=lambda ep: ep.name)


def load_approval_source(ep: metadata.EntryPoint) -> ApprovalSource:
    """Load one source: the entry point's object, called without arguments when it is a
    class or a function; its ``name`` is the entry point's unless it sets one."""
    target: Any = ep.load()
    source = target() if inspect.isclass(target) or inspect.isfunction(target) else target
    if not isinstance(source, ApprovalSource):
        raise TypeError(
            f"approval source {ep.name!r} ({ep.value}) is {type(source).__name__}, which lacks "
            "name / pending / get / answer / aclose"
        )
    if not getattr(source, "name", None):
        source.name = ep.name
    return source


def select(entry_points: Iterable[metadata.EntryPoint], name: str | None) -> list[Any]:
    """The entry points to use: all, or the one called ``name`` (``LookupError`` if none)."""
    found = list(entry_points)
    if name is None:
        return found
    chosen = [ep for ep in found if ep.name == name]
    if not chosen:
        installed = ", ".join(ep.name for ep in found) or "none"
        raise LookupError(f"no approval source named {name!r}; installed: {installed}")
    return chosen


__all__ = [
    "APPROVALS_GROUP",
    "Approval",
    "ApprovalError",
    "ApprovalSource",
    "SourceNotConfigured",
    "Status",
    "approval_entry_points",
    "load_approval_source",
    "select",
]
