"""The calls paused runs wait on, as approval requests a human answers from anywhere.

``StoreApprovals`` is an approval source: ``name``, ``pending()``, ``get(id)``,
``answer(id, approved, reason=..., by=...)`` and ``aclose()``. Constructed without arguments
it opens the store ``$AGENTHOOKS_STORE`` names; ``from_environment`` is the factory the
``agenthooks.approvals`` entry point advertises (not configured when that variable is unset). An answer is recorded with the paused run; the run goes on
when a process holding the agent calls ``session.resume()`` (the recorded answers count as
its decisions).

A request's ``id`` is ``SESSION/CALL_ID``; a bare call id is accepted when one paused session
has it.
"""

from __future__ import annotations

import json
import os
import time
from typing import Literal

from ..approvals import Approval, ApprovalError, SourceNotConfigured
from ..errors import NotPausedError, NotPendingError, UnknownSessionError
from ..runtime.durable.paused import Answer, PausedRun
from .sql import SQLStore
from .url import STORE_ENV, open_store

Status = Literal["pending", "approved", "denied", "expired"]


class StoreApprovals:
    """The pending calls of every paused session of a store, as approval requests.

    Args:
        store: A store, or the URL or path of one (``postgresql://...``,
            ``sqlite:///file.db``, ``file.db``); ``None``: ``$AGENTHOOKS_STORE``.

    Raises:
        StoreError: No store is given and ``AGENTHOOKS_STORE`` is not set, or the URL names
            no store this package can open.
    """

    name = "store"

    def __init__(self, store: SQLStore | str | None = None) -> None:
        self.store = store if isinstance(store, SQLStore) else open_store(store)

    def __repr__(self) -> str:
        return f"StoreApprovals({self.store!r})"

    async def pending(self) -> list[Approval]:
        """The calls waiting for an answer, oldest pause first."""
        found = []
        for row in await self.store.sessions("paused"):
            paused = row.paused
            if paused is None:
                continue
            for call in paused.pending:
                if call.call_id not in paused.answers:
                    found.append(_approval(row.id, paused, call.call_id))
        return sorted(found, key=lambda a: (a.requested_at or 0.0, a.id))

    async def get(self, approval_id: str) -> Approval | None:
        """The request ``approval_id``, answered or not; None when no paused run has it."""
        located = await self._locate(approval_id)
        if located is None:
            return None
        session_id, paused, call_id = located
        return _approval(session_id, paused, call_id)

    async def answer(
        self, approval_id: str, approved: bool, *, reason: str | None = None, by: str | None = None
    ) -> Approval:
        """Record the answer with the paused run; ``ApprovalError`` when the id is unknown
        or the call no longer waits."""
        located = await self._locate(approval_id)
        if located is None:
            raise ApprovalError(f"no paused call {approval_id!r} in {self.store!r}")
        session_id, paused, call_id = located
        if call_id in paused.answers:
            done = "approved" if paused.answers[call_id].approved else "denied"
            raise ApprovalError(f"{session_id}/{call_id} is already {done}")
        try:
            paused = await self.store.answer(
                session_id,
                call_id,
                Answer(approved=approved, reason=reason, by=by, at=time.time()),
            )
        except (UnknownSessionError, NotPausedError, NotPendingError) as exc:
            raise ApprovalError(str(exc)) from None
        return _approval(session_id, paused, call_id)

    async def _locate(self, approval_id: str) -> tuple[str, PausedRun, str] | None:
        session_id, _, call_id = approval_id.rpartition("/")
        rows = await self.store.sessions("paused")
        found = [
            (row.id, row.paused, call_id)
            for row in rows
            if row.paused is not None
            and (not session_id or row.id == session_id)
            and call_id in row.pending
        ]
        if len(found) > 1:
            listed = ", ".join(f"{sid}/{cid}" for sid, _, cid in found)
            raise ApprovalError(f"call id {call_id!r} is pending in several sessions: {listed}")
        return found[0] if found else None

    async def aclose(self) -> None:
        """Close the store."""
        await self.store.aclose()


def _approval(session_id: str, paused: PausedRun, call_id: str) -> Approval:
    call = next(p for p in paused.pending if p.call_id == call_id)
    answer = paused.answers.get(call_id)
    status: Status = "pending" if answer is None else "approved" if answer.approved else "denied"
    arguments = json.dumps(call.arguments, ensure_ascii=False, sort_keys=True)
    return Approval(
        id=f"{session_id}/{call_id}",
        source="store",
        kind="paused run",
        summary=f"{call.tool}({arguments}): {call.reason}",
        status=status,
        run_id=paused.run_id,
        agent=paused.agent,
        requested_at=paused.paused_at,
        reason=None if answer is None else answer.reason,
        details={
            "session_id": session_id,
            "call_id": call_id,
            "tool": call.tool,
            "arguments": call.arguments,
            "asked": call.reason,
            "by": None if answer is None else answer.by,
        },
    )


def from_environment() -> StoreApprovals:
    """The approval source of the store ``$AGENTHOOKS_STORE`` names (the entry point's
    factory); ``SourceNotConfigured`` when the variable is unset."""
    if not os.environ.get(STORE_ENV, "").strip():
        raise SourceNotConfigured(f"set {STORE_ENV} to a store URL or path, or pass --store")
    return StoreApprovals()


__all__ = ["Approval", "ApprovalError", "StoreApprovals", "from_environment"]
