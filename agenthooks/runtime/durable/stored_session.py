"""How a ``Session`` with a store reads itself and claims the right to run.

Reading recovers a session whose process died (its claim expired). Claiming is one
conditional write on the version just read: when another process changed the session in
between, the claim changes nothing and the session is read again to tell why. For a resume,
the decisions are checked before the claim and stored with the paused run right after it.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from ...decisions import Approve, Decision
from ...errors import ResumeConflictError, SessionBusyError, UnknownSessionError
from ...paused import Answer, PausedRun
from ...stores.base import Progress
from .keeper import Keeper, owner_token, recovered
from .pausing import refuse_chat, require_paused
from .resume import check

if TYPE_CHECKING:
    from ..session import Session

ATTEMPTS = 8
"""Claims tried while other processes keep changing the session (then it counts as busy)."""


async def read(session: Session, *, must_exist: bool = False) -> str | None:
    """Load ``session`` from its store (recovering it when its process died); returns the
    stored status, or None for a session the store does not have yet."""
    store = session.store
    assert store is not None
    while True:
        row = await store.get(session.id)
        if row is None:
            if must_exist:
                raise UnknownSessionError(
                    f"no session {session.id!r} in {store!r}", session_id=session.id
                )
            session._history.clear()
            session._paused, session._version = None, None
            session._started, session.denied = False, None
            return None
        if row.status == "running" and (row.lease_until or 0.0) <= time.time():
            history = await store.history(session.id)
            await store.reset(session.id, row.version, recovered(row, history, session.agent))
            continue  # read what the recovery (ours or another process's) left
        break
    local = session._history
    if row.messages < len(local) or row.version != session._version:
        if row.messages >= len(local) and local:  # append-only: fetch what is new
            local.extend(await store.history(session.id, len(local)))
        else:
            local[:] = await store.history(session.id)
    session._started, session.denied = row.started, row.denied
    session._paused = row.paused if row.status == "paused" else None
    session._version = row.version
    if row.status == "running":
        return f"running in another process ({row.owner})"
    return row.status


async def claim_chat(session: Session) -> Keeper:
    """Claim ``session`` for a new chat."""
    store = session.store
    assert store is not None
    for _ in range(ATTEMPTS):
        status = await read(session)
        refuse_chat(f"session {session.id!r}", session._paused)
        if status is not None and status.startswith("running"):
            raise SessionBusyError(f"session {session.id!r} is {status}")
        owner = owner_token()
        lease_until = time.time() + session.lease
        if await store.claim(session.id, session.agent.name, session._version, owner, lease_until):
            return _keeper(session, owner, len(session._history))
    raise SessionBusyError(f"session {session.id!r} kept changing in other processes")


async def claim_resume(
    session: Session, given: dict[str, Decision]
) -> tuple[Keeper, PausedRun, dict[str, Decision]]:
    """Check ``given`` against the stored paused run and claim it; exactly one of several
    processes doing this at once gets it, the others ``ResumeConflictError``."""
    store = session.store
    assert store is not None
    lost: PausedRun | None = None  # the paused run as it was when another process changed it
    for _ in range(ATTEMPTS):
        status = await read(session, must_exist=True)
        if status is not None and status.startswith("running"):
            row = await store.get(session.id)
            winner = row.owner if row is not None else None
            run_id = (
                row.paused.run_id
                if row is not None and row.paused is not None
                else session._paused.run_id
                if session._paused is not None
                else lost.run_id
                if lost is not None
                else None
            )
            raise ResumeConflictError(
                f"session {session.id!r}: its run {run_id!r} is being resumed (or run) by "
                f"another process (claim {winner!r}); this process ran nothing",
                session_id=session.id,
                run_id=run_id,
                winner=winner,
            )
        if lost is not None and _moved_on(lost, session._paused):
            state_now = "paused again" if session._paused is not None else "idle"
            raise ResumeConflictError(
                f"session {session.id!r}: another process resumed its paused run "
                f"{lost.run_id!r} first (the session is {state_now} now); this process ran "
                "nothing",
                session_id=session.id,
                run_id=lost.run_id,
            )
        state = require_paused(f"session {session.id!r}", session._paused, session.id)
        decided = check(session.agent, state, given, session.id)
        owner = owner_token()
        lease_until = time.time() + session.lease
        if await store.claim(session.id, session.agent.name, session._version, owner, lease_until):
            keeper = _keeper(session, owner, state.start)
            # the decisions go with the paused run: a process taking over after a crash knows
            # what was approved
            now = time.time()
            answers = {
                call_id: Answer(
                    approved=isinstance(d, Approve),
                    reason=None if isinstance(d, Approve) else d.reason,
                    by="resume",
                    at=now,
                )
                for call_id, d in decided.items()
            }
            answered = state.model_copy(update={"answers": answers})
            began = time.monotonic()
            try:
                await store.progress(
                    session.id, owner, Progress(at=len(session._history), paused=answered)
                )
            except BaseException:
                keeper.failed_after(began)
                await keeper.give_back(state, session._started, session.denied)
                raise
            return keeper, answered, decided
        lost = state
    raise ResumeConflictError(
        f"session {session.id!r} kept changing in other processes", session_id=session.id
    )


def _moved_on(before: PausedRun, now: PausedRun | None) -> bool:
    """True when the paused run ``before`` is no longer what waits (another process resumed
    it), not merely answered ahead by someone."""
    if now is None or now.run_id != before.run_id:
        return True
    return [p.call_id for p in now.pending] != [p.call_id for p in before.pending]


def _keeper(session: Session, owner: str, start: int) -> Keeper:
    assert session.store is not None
    return Keeper(
        session.store,
        session.id,
        owner,
        session.lease,
        len(session._history),
        start,
        session.agent,
    )


__all__ = ["ATTEMPTS", "claim_chat", "claim_resume", "read"]
