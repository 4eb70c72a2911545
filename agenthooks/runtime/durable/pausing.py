"""What a conversation (a ``Session`` or an ``Agent``'s own) does around a run that may pause:
count the run's ``on_event`` records, and keep the paused run once it ended paused. Each
conversation keeps its own history and paused run; these helpers take and return values, and
never reach into the conversation."""

from __future__ import annotations

from ...bus.signals import RECORD_COUNTS
from ...errors import NotPausedError, SessionPausedError
from ...messages import PendingCall
from ..run_state import Run
from .paused import PausedRun
from .resume import capture


class counting:
    """Count ``run``'s ``on_event`` records inside the block, from ``records`` (what a resumed
    run emitted before its pause); ``run.records`` reads the count. The one place a run's
    records are counted (a class, not a generator: this runs once per run, and a generator
    context manager costs 3 % of a run's instructions, ``benchmarks/callgrind.py``)."""

    __slots__ = ("run", "records")

    def __init__(self, run: Run, records: int = 0) -> None:
        self.run = run
        self.records = records

    def __enter__(self) -> None:
        RECORD_COUNTS[self.run.run_id] = self.records

    def __exit__(self, *exc: object) -> None:
        RECORD_COUNTS.pop(self.run.run_id, None)


def ended_paused(run: Run) -> bool:
    """True when ``run`` ended paused: calls wait and a teardown did not close them."""
    return bool(run.pending) and any(p.call_id in run.open_calls for p in run.pending)


def keep(run: Run, start: int) -> PausedRun | None:
    """The paused run to keep once ``run`` (whose messages begin at ``history[start]``) ended:
    its state when it ended paused, else None."""
    return capture(run, start) if ended_paused(run) else None


def refuse_chat(where: str, paused: PausedRun | None) -> None:
    """``SessionPausedError`` when a conversation with a paused run is asked to chat."""
    if paused is not None:
        ids = ", ".join(repr(p.call_id) for p in paused.pending) or "none (a recovered run)"
        raise SessionPausedError(
            f"{where} has a paused run ({paused.run_id!r}) waiting on calls {ids}: answer them "
            "with resume({call_id: Approve() or Deny(reason)}) before the next chat",
            paused.pending,
        )


def require_paused(where: str, paused: PausedRun | None, session_id: str | None) -> PausedRun:
    """The paused run to resume, or ``NotPausedError``."""
    if paused is None:
        raise NotPausedError(f"{where} has no paused run to resume", session_id=session_id)
    return paused


def pending_of(paused: PausedRun | None) -> list[PendingCall]:
    """The calls a paused run waits on (empty when there is none)."""
    return list(paused.pending) if paused is not None else []


__all__ = [
    "counting",
    "ended_paused",
    "keep",
    "pending_of",
    "refuse_chat",
    "require_paused",
]
