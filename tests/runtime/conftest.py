"""Shared fixtures of the runtime tests. Add fixtures; never rename or remove one."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from agenthooks import CATALOG, Agent, Disposer, HookBus

# wire_server.py (a real loopback OpenAI-format server) lives beside the provider tests
_PROVIDERS = str(Path(__file__).resolve().parent.parent / "providers")
if _PROVIDERS not in sys.path:
    sys.path.insert(0, _PROVIDERS)

FIRST = 10**9  # the recorder runs before every other ordinary handler of an event


class Recorder:
    """Records every event a bus fires, in firing order, with its context.

    It registers one observer (returning ``None``) on every event of the catalog but
    ``on_event``, at a priority that runs it first, so a short-circuiting handler never
    hides an emission from it. Contexts are kept by reference: after the run they show the
    value the whole chain left.
    """

    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []

    def attach(self, target: Agent | HookBus) -> Disposer:
        """Record ``target``'s bus (an ``Agent``'s or a ``HookBus``); returns the undo."""
        bus = target.bus if isinstance(target, Agent) else target
        disposers = [
            bus.on(name, self._handler(name), priority=FIRST)
            for name in CATALOG
            if name != "on_event"
        ]

        def undo() -> None:
            for dispose in disposers:
                dispose()

        return Disposer(undo)

    def _handler(self, name: str) -> Any:
        def record(ctx: Any) -> None:
            self.events.append((name, ctx))

        record.__qualname__ = f"Recorder.{name}"
        return record

    @property
    def names(self) -> list[str]:
        """The event names, in firing order."""
        return [name for name, _ in self.events]

    def of(self, name: str) -> list[Any]:
        """The contexts of every emission of ``name``, in order."""
        return [ctx for event, ctx in self.events if event == name]

    def clear(self) -> None:
        """Forget what was recorded so far."""
        self.events.clear()


@pytest.fixture
def recorder() -> Recorder:
    """A fresh ``Recorder``; ``recorder.attach(agent)`` starts recording."""
    return Recorder()
