"""The error of a store that cannot be used (its own module: ``run.ends_run`` needs it and
``sessions.py`` builds on ``run.py``)."""

from __future__ import annotations

from .base import AgentHooksError


class StoreError(AgentHooksError):
    """A store cannot be used: a bad URL or name, a schema newer than this version knows, a
    database that fails (unreachable, locked, read-only). ``store`` names the store and
    ``session_id`` the session, when one was concerned.

    Raised during a run (a journal write before or after a tool, the paused state), it ends
    the run (``on_chat_error``) and never becomes a tool result; the session is left for
    ``resume()``: see ``agenthooks.runtime.durable.keeper``."""

    def __init__(
        self, message: str, *, store: str | None = None, session_id: str | None = None
    ) -> None:
        self.store = store
        self.session_id = session_id
        super().__init__(message)


__all__ = ["StoreError"]
