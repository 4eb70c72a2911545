"""Event records from somewhere other than a file: a stream the workers publish to.

``agenthooks trace URL`` and ``agenthooks tail URL`` find the reader of a URL by its scheme
among the ``agenthooks.sources`` entry points (``redis = "agenthooks_redis.source:..."``); the
entry point loads a class called without arguments. Records come shaped as a recording's lines
(``agenthooks.record``): ``type``, ``seq``, ``mono`` (seconds), ``run_id``, ...
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Callable
from importlib import metadata
from typing import Any, Protocol, runtime_checkable
from urllib.parse import urlsplit

from .load import RecordingError

SOURCES_GROUP = "agenthooks.sources"
"""The entry-point group of event sources, named by URL scheme."""


@runtime_checkable
class EventSource(Protocol):
    """Reads the event records stored at a URL."""

    async def read(self, url: str) -> list[dict[str, Any]]:
        """Every record stored at ``url``, oldest first (``RecordingError`` if none)."""
        ...

    def follow(
        self, url: str, *, ready: Callable[[], None] | None = None
    ) -> AsyncIterator[dict[str, Any]]:
        """The records arriving at ``url`` from now on, as they arrive; ``ready()`` is called
        once the source knows where "now" is (nothing written after it is missed)."""
        ...


def is_url(text: str) -> bool:
    """True for ``scheme://...`` (a path never has ``://``)."""
    return "://" in text and bool(urlsplit(text).scheme)


def source_for(url: str) -> EventSource:
    """The installed reader of ``url``'s scheme; ``RecordingError`` names the installed ones."""
    scheme = urlsplit(url).scheme.lower()
    found = {ep.name: ep for ep in metadata.entry_points(group=SOURCES_GROUP)}
    ep = found.get(scheme)
    if ep is None:
        known = ", ".join(f"{name}://" for name in sorted(found)) or "none installed"
        raise RecordingError(
            f"{url}: no event source reads {scheme}:// URLs ({known}); for a Redis stream "
            "install agenthooks-redis"
        )
    try:
        target: Any = ep.load()
        source = target() if inspect.isclass(target) or inspect.isfunction(target) else target
    except Exception as exc:
        raise RecordingError(
            f"the {scheme}:// event source ({ep.value}) failed to load: {type(exc).__name__}: {exc}"
        ) from None
    if not isinstance(source, EventSource):
        raise RecordingError(f"the {scheme}:// event source ({ep.value}) has no read / follow")
    return source


class RunFilter:
    """Keeps the records of one run and of the sub-agent runs under it."""

    def __init__(self, run_id: str) -> None:
        self.runs = {run_id}

    def __call__(self, record: dict[str, Any]) -> bool:
        """True when ``record`` belongs to the run or to a run under it (a sub-agent's run is
        learnt from its first record naming a kept run as its parent)."""
        run_id = record.get("run_id")
        if run_id in self.runs:
            return True
        if record.get("parent_run_id") in self.runs and isinstance(run_id, str):
            self.runs.add(run_id)
            return True
        return False


__all__ = ["SOURCES_GROUP", "EventSource", "RunFilter", "is_url", "source_for"]
