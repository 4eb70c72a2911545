"""What a bridged run carries across a pause, and where it waits for the resume.

A framework pauses a run its own way (a LangChain interrupt on a thread, an Agents SDK
``RunState``, Pydantic AI's deferred tool requests, an ADK tool confirmation in a session, a
Strands interrupt) and resumes it with a handle of its own. Whatever the framework, the run's
counts (its id, turns, tool calls, usage) and the plugins' per-run state (``on_chat_paused``'s
``state``) go on with it: ``BridgeRun.paused`` keeps them in a ``Carried``, the bridge files it
in ``PAUSED_RUNS`` under the handles the framework resumes with, and on resume the bridge takes
it back and hands it to ``BridgeRun.resume_from`` before ``BridgeRun.resumed`` fires
``on_run_resumed``. So a ``Limits`` tool-call cap, the token cap and the reported usage go on
after a resume on every bridge, as on our runtime.

``Carried`` is JSON (``dump`` / ``load``). ``PAUSED_RUNS`` lives in one process; a framework
that persists a paused run itself (an ADK session's state, a Strands ``agent.state``) also gets
``Carried.dump()`` under ``STORED_KEY`` at the pause, and ``PausedRuns.resume`` takes the run
from this process's table or else from what the framework stored, so a run resumed in another
process (a fresh runner, agent and bus on the same session store) goes on from its counts.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ..messages import PendingCall, Usage

STORED_KEY = "agenthooks:paused_run"
"""Where a bridge keeps a paused run's ``Carried.dump()`` in its framework's persisted state."""

KEPT = 10_000
"""Paused runs ``PAUSED_RUNS`` keeps at most; the oldest go first (pauses nobody resumed)."""


@dataclass
class Carried:
    """A bridged run's counts and its plugins' per-run state, as its pause left them."""

    run_id: str
    iteration: int | None = None
    """The last turn the run began (0-indexed; ``None``: none)."""
    tool_calls: int = 0
    """The tool calls the run made (the hooks saw) before its pause."""
    usage: Usage = field(default_factory=Usage)
    state: dict[str, Any] = field(default_factory=dict)
    """The plugins' per-run state, by plugin name (``on_chat_paused``'s ``state``)."""
    pending: list[PendingCall] = field(default_factory=list)
    """The calls the run waits on."""

    def dump(self) -> dict[str, Any]:
        """As JSON."""
        return {
            "run_id": self.run_id,
            "iteration": self.iteration,
            "tool_calls": self.tool_calls,
            "usage": self.usage.model_dump(),
            "state": dict(self.state),
            "pending": [p.model_dump() for p in self.pending],
        }

    @classmethod
    def load(cls, data: dict[str, Any]) -> Carried:
        """What ``dump`` wrote.

        Raises:
            ValueError: ``data`` is not what ``dump`` writes (it names the run id missing).
        """
        if not isinstance(data, dict) or not data.get("run_id"):
            raise ValueError(
                f"a paused run's stored counts need a 'run_id' (Carried.dump()), got {data!r}"
            )
        return cls(
            run_id=str(data["run_id"]),
            iteration=data.get("iteration"),
            tool_calls=int(data.get("tool_calls", 0)),
            usage=Usage.model_validate(data.get("usage") or {}),
            state=dict(data.get("state") or {}),
            pending=[PendingCall.model_validate(p) for p in data.get("pending") or ()],
        )


class PausedRuns:
    """Paused bridged runs by the handles their framework resumes them with.

    A run is filed under one or more keys (a thread id, each pending call id, ...): the first
    key a resume finds takes the run and drops every key it was filed under, so a run resumes
    once. Keys are namespaced by the caller (``("langchain", thread_id)``).
    """

    def __init__(self, kept: int = KEPT) -> None:
        self.kept = kept
        self._runs: OrderedDict[Hashable, tuple[Carried, tuple[Hashable, ...]]] = OrderedDict()

    def keep(self, keys: Iterable[Hashable], carried: Carried) -> None:
        """File ``carried`` under every key of ``keys`` (replacing what they held)."""
        keys = tuple(keys)
        for key in keys:
            self._drop(key)
        for key in keys:
            self._runs[key] = (carried, keys)
        while len(self._runs) > self.kept:
            self._drop(next(iter(self._runs)))

    def take(self, keys: Iterable[Hashable]) -> Carried | None:
        """The run filed under the first of ``keys`` that holds one, no longer filed; None
        when none does (a run paused in another process, or never)."""
        for key in keys:
            found = self._runs.get(key)
            if found is not None:
                for other in found[1]:
                    self._runs.pop(other, None)
                return found[0]
        return None

    def resume(
        self, keys: Iterable[Hashable], stored: object = None, run_id: str | None = None
    ) -> Carried | None:
        """The paused run a resume goes on from: the one ``take(keys)`` finds in this process,
        else the one the framework persisted (``stored``, a ``Carried.dump()``, or ``None``
        when it holds none) when it is the run ``run_id`` names (any run when ``None``).

        Raises:
            ValueError: ``stored`` is not ``None`` and not what ``Carried.dump()`` writes.
        """
        carried = self.take(keys)
        if carried is not None or stored is None:
            return carried
        if not isinstance(stored, dict):
            raise ValueError(
                f"a paused run's stored counts must be Carried.dump()'s dict, got {stored!r}"
            )
        found = Carried.load(stored)
        return found if run_id is None or found.run_id == run_id else None

    def get(self, key: Hashable) -> Carried | None:
        """The run filed under ``key``, left filed (what a UI reads while the run waits)."""
        found = self._runs.get(key)
        return None if found is None else found[0]

    def _drop(self, key: Hashable) -> None:
        found = self._runs.pop(key, None)
        if found is not None:
            for other in found[1]:
                self._runs.pop(other, None)

    def __len__(self) -> int:
        return len({id(carried) for carried, _ in self._runs.values()})


PAUSED_RUNS = PausedRuns()
"""The paused bridged runs of this process."""


__all__ = ["KEPT", "PAUSED_RUNS", "STORED_KEY", "Carried", "PausedRuns"]
