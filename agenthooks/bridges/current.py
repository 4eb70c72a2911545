"""The bridged run in progress in this context: one context variable for every bridge, so a
run another run starts (an agent used as a tool, a sub-agent the framework runs) knows its
parent whatever framework runs either."""

from __future__ import annotations

from contextvars import ContextVar, Token
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .run import BridgeRun

_CURRENT: ContextVar[BridgeRun | None] = ContextVar("agenthooks_bridge_run", default=None)


def current_run() -> BridgeRun | None:
    """The bridged run whose work is in progress in this context, if any."""
    return _CURRENT.get()


def enter_run(run: BridgeRun) -> Token[BridgeRun | None]:
    """Make ``run`` the current run of this context (a framework callback that runs a
    nested agent); the token undoes it (``leave_run``)."""
    return _CURRENT.set(run)


def leave_run(token: Token[BridgeRun | None]) -> None:
    """Undo ``enter_run``. A framework may close a run's generator from another context (Strands
    leaves them to the garbage collector): that context never saw the run, so nothing is
    undone there."""
    try:
        _CURRENT.reset(token)
    except ValueError:
        pass


__all__ = ["current_run", "enter_run", "leave_run"]
