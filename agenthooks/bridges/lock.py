"""The lock a bridged run's handlers hold, so they never overlap, and that a run being torn
down neither waits on nor lets anyone take again."""

from __future__ import annotations

import asyncio
from typing import Literal

from ..errors import AgentHooksError


class RunEnded(AgentHooksError):
    """Work of a run that already ended was asked for (a handler, a gated tool body): it is
    refused, so nothing of a run happens after its ``on_chat_end``."""


class RunLock(asyncio.Lock):
    """An ``asyncio.Lock`` that knows which task holds it and refuses to be taken once the run
    it serves ended (``close``): a handler still queued then raises ``RunEnded`` instead of
    running after the run's end."""

    def __init__(self, run_id: str) -> None:
        super().__init__()
        self.run_id = run_id
        self.owner: asyncio.Task[object] | None = None
        self.closed = False

    async def acquire(self) -> Literal[True]:
        """Take the lock (waiting for its holder), unless the run ended.

        Raises:
            RunEnded: The run ended before or while this waited.
        """
        if self.closed:
            raise RunEnded(f"run {self.run_id} ended; its handlers no longer run")
        await super().acquire()
        if self.closed:
            super().release()
            raise RunEnded(f"run {self.run_id} ended; its handlers no longer run")
        self.owner = asyncio.current_task()
        return True

    def release(self) -> None:
        """Let the next handler of the run in."""
        self.owner = None
        super().release()

    def held_elsewhere(self) -> asyncio.Task[object] | None:
        """The task holding the lock when it is not the current one (a handler of the run
        running in a task of its own), else ``None``."""
        owner = self.owner
        if self.locked() and owner is not None and owner is not asyncio.current_task():
            return owner
        return None

    def close(self) -> None:
        """The run ended: no one takes the lock again."""
        self.closed = True


def cancel_requested() -> bool:
    """Whether the current task was asked to cancel (its ``CancelledError`` is the caller's
    cancellation, not one a handler raised). Always False before Python 3.11, which does not
    count cancellation requests."""
    task = asyncio.current_task()
    cancelling = getattr(task, "cancelling", None)
    return bool(cancelling()) if cancelling is not None else False


__all__ = ["RunEnded", "RunLock", "cancel_requested"]
