"""The contract every store implements (``Store``) and the rows it reads and writes, as the
runtime states them in ``agenthooks.runtime.durable.store`` (the runtime never imports a
store; a store imports the runtime's paused-run data)."""

from __future__ import annotations

from ..runtime.durable.store import Progress, Release, SessionRow, Status, Store

__all__ = ["Progress", "Release", "SessionRow", "Status", "Store"]
