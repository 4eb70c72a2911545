"""The sessions a server serves: one run per client session, found by any request of it.

A session's run is opened by its first event and closed by its end; its id is derived from
the client and the client's session id, so any worker that gets a request of the session
fires on the same run id (records, approvals and budgets keyed by run id agree across
workers). A session belongs to the caller that opened it: another caller's request for it is
refused.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict

from ..bridges import BridgeRun
from ..bus import HookBus
from ..errors import AgentHooksError
from .runs import SERVED_CAPABILITIES, ServedRun


class SessionOwnerError(AgentHooksError):
    """A request for a session another caller opened (answered 403)."""


class Sessions:
    """The open sessions of one server process.

    Args:
        bus: The bus every session's events fire on.
        limit: Sessions kept at most; past it the oldest is closed (its ``on_chat_end``
            fires), so a client that never sends its end cannot exhaust the memory.
    """

    def __init__(self, bus: HookBus, *, limit: int = 10_000) -> None:
        self.bus = bus
        self.limit = limit
        self._open: OrderedDict[tuple[str, str], ServedRun] = OrderedDict()
        self._lock = asyncio.Lock()

    def __len__(self) -> int:
        return len(self._open)

    @staticmethod
    def run_id(client: str, session_id: str) -> str:
        """The run id of a client's session (the same in every worker)."""
        return f"{client}-{session_id}"

    async def get(self, client: str, session_id: str, caller: str) -> ServedRun:
        """The session's run, opened on its first request.

        Raises:
            SessionOwnerError: Another caller opened the session.
        """
        key = (client, session_id)
        served = self._open.get(key)
        evicted: list[ServedRun] = []
        if served is None:
            async with self._lock:
                served = self._open.get(key)
                if served is None:
                    run = BridgeRun(
                        self.bus,
                        SERVED_CAPABILITIES,
                        agent=caller,
                        run_id=self.run_id(client, session_id),
                        session_id=session_id,
                    )
                    served = ServedRun(run, client, caller)
                    self._open[key] = served
                    evicted = self._evict()
            for old in evicted:
                await old.end()
        if served.caller != caller:
            raise SessionOwnerError(
                f"session {session_id!r} belongs to another caller; a session is served to the "
                "token that opened it"
            )
        return served

    def _evict(self) -> list[ServedRun]:
        evicted = []
        while len(self._open) > self.limit:
            _, old = self._open.popitem(last=False)
            evicted.append(old)
        return evicted

    def forget(self, client: str, session_id: str) -> None:
        """Drop an ended session (a new one with the same id starts a new run)."""
        self._open.pop((client, session_id), None)

    def clear(self) -> None:
        """Forget every open session without ending it (this process stops serving): the
        client's session goes on, and the worker that gets its next request takes it up."""
        self._open.clear()


__all__ = ["SessionOwnerError", "Sessions"]
