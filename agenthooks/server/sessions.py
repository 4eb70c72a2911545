"""The sessions a server serves: one run per client session, found by any request of it.

A session's run is opened by its first event and closed by its end; its id is derived from
the client and the client's session id, so any worker that gets a request of the session
fires on the same run id (records, approvals and budgets keyed by run id agree across
workers), and its shared state (owner, started, stopped) is read from the ``SessionState``
on every request. A session belongs to the caller that opened it: another caller's request
for it is refused.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict

from ..bridges import BridgeRun
from ..bus import HookBus
from ..bus.signals import RECORD_COUNTS
from ..errors import AgentHooksError
from ..events.contexts import RunResumedContext
from .runs import SERVED_CAPABILITIES, ServedRun
from .state import MemoryState, SessionState


class SessionOwnerError(AgentHooksError):
    """A request for a session another caller opened (answered 403)."""


class Sessions:
    """The open sessions of one server process.

    Args:
        bus: The bus every session's events fire on.
        state: Where sessions' state is shared (``MemoryState()``: this process only;
            ``RedisState(url)``: every worker).
        limit: Sessions whose run this process keeps at most; past it the oldest is dropped
            from this process (its shared state stays: its next request takes it up again).
    """

    def __init__(
        self, bus: HookBus, *, state: SessionState | None = None, limit: int = 10_000
    ) -> None:
        self.bus = bus
        self.state: SessionState = state if state is not None else MemoryState()
        self.limit = limit
        self._open: OrderedDict[str, ServedRun] = OrderedDict()
        self._lock = asyncio.Lock()

    def __len__(self) -> int:
        return len(self._open)

    @staticmethod
    def run_id(client: str, session_id: str) -> str:
        """The run id of a client's session (the same in every worker)."""
        return f"{client}-{session_id}"

    async def get(self, client: str, session_id: str, caller: str) -> ServedRun:
        """The session's run, opened on its first request, with its shared state.

        Raises:
            SessionOwnerError: Another caller opened the session.
        """
        key = f"{client}:{session_id}"
        shared = await self.state.open(key, caller)
        if shared.owner != caller:
            raise SessionOwnerError(
                f"session {session_id!r} belongs to another caller; a session is served to the "
                "token that opened it"
            )
        served = self._open.get(key)
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
                    served = ServedRun(run, client, caller, key=key, state=self.state)
                    self._open[key] = served
                    while len(self._open) > self.limit:
                        _, old = self._open.popitem(last=False)
                        RECORD_COUNTS.pop(old.run.run_id, None)
        else:
            self._open.move_to_end(key)
        served.started = served.started or shared.started
        if shared.stopped is not None:
            served.stopped = shared.stopped
        await self._catch_up(served, shared.records)
        return served

    async def _catch_up(self, served: ServedRun, records: int) -> None:
        """Number this worker's records of the run on from what every worker emitted: when
        another worker answered the session since, ``on_run_resumed`` tells the exporters
        (the Redis stream's ``seq``) where the numbering goes on, as for a resumed run."""
        run_id = served.run.run_id
        local = RECORD_COUNTS.setdefault(run_id, 0)
        if records > local:
            RECORD_COUNTS[run_id] = records
            await served.run.fire("on_run_resumed", RunResumedContext, records=records)

    async def done(self, served: ServedRun) -> None:
        """A request of the session was answered: share how many records its run emitted,
        and drop the session once its run ended (a stopped one stays, to answer the stop)."""
        run_id = served.run.run_id
        await self.state.note_records(served.key, RECORD_COUNTS.get(run_id, 0))
        if served.run.ended is not None and served.stopped is None:
            self._open.pop(served.key, None)
            RECORD_COUNTS.pop(run_id, None)
            await self.state.forget(served.key)

    def clear(self) -> None:
        """Forget every open session without ending it (this process stops serving): the
        client's session goes on, and the worker that gets its next request takes it up."""
        for served in self._open.values():
            RECORD_COUNTS.pop(served.run.run_id, None)
        self._open.clear()


__all__ = ["SessionOwnerError", "Sessions"]
