"""Redaction that reaches every way out of the process.

A plugin *redacts* when it has a true ``redacts`` attribute and a ``redact_value(value)``
method that returns ``value`` with every string inside it redacted (``agenthooks-guard``'s
``Guard`` with a ``[redact]`` policy is one). Its own hooks decide what the model, the caller
and history see. Everything else that leaves the process goes through an exporter, and every
exporter (the ``Recorder``, the structlog and OpenTelemetry plugins) passes what it exports
through an ``ExportRedaction``: the ``redact_value`` of every redacting plugin that reaches
the run, whatever order the plugins were installed in. A plugin reaches a run when it is
installed on the bus the run fires on, on a parent's bus (a sub-agent with a bus of its own
runs its parents' guards) or on a handoff target's bus.

A streamed chunk is a piece of text: a secret split across two chunks matches no pattern in
either. So while a redaction reaches a run, exporters leave the text of its
``on_stream_chunk`` records out (``redact_record``); the whole text goes out redacted with
``on_stream_end`` and ``on_response``.

Writing an exporter: keep one ``ExportRedaction``, call ``watch(bus)`` from the plugin's
``setup(bus)`` (return what it returns, so removing the plugin undoes it), pass every
exported value through ``redaction(value, run_id)`` (an ``on_event`` record's texts through
``redact_record``), and call ``forget(run_id)`` once the run's ``on_chat_end`` was exported.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from .bus import HookBus


PIECEWISE_EVENTS = frozenset({"on_stream_chunk"})
"""Events whose text is a piece of a whole: not exported while a redaction reaches the run."""


@runtime_checkable
class Redacting(Protocol):
    """A plugin that redacts: exporters apply its ``redact_value`` to all they export."""

    @property
    def redacts(self) -> bool:
        """True when it has anything to redact."""

    def redact_value(self, value: Any) -> Any:
        """``value`` with every string inside it redacted."""


def redactors(bus: Any) -> list[Redacting]:
    """The redacting plugins installed on ``bus`` and on every bus whose guards it runs (a
    sub-agent's parents, a handoff target), each once, in no particular order."""
    found: dict[int, Redacting] = {}
    seen: set[int] = set()
    pending = [bus]
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        for info in list(getattr(current, "plugins", {}).values()):
            plugin = info.plugin
            if getattr(plugin, "redacts", False) and callable(
                getattr(plugin, "redact_value", None)
            ):
                found.setdefault(id(plugin), plugin)
        pending.extend(getattr(current, "_inherited", ()))
    return list(found.values())


class ExportRedaction:
    """What one exporter applies to everything it exports (see the module docstring)."""

    def __init__(self) -> None:
        self._buses: list[Any] = []
        self._runs: dict[str, dict[int, Redacting]] = {}

    def watch(self, bus: HookBus) -> Callable[[], None]:
        """Follow ``bus`` (from the exporter's ``setup``): its redacting plugins, and those
        reaching each run that starts or hands over on it. Returns the undo."""
        self._buses.append(getattr(bus, "target", bus))  # the bus itself, not setup's view
        started = bus.signal("on_chat_start")
        handed = bus.signal("on_handoff")
        started.connect(self._learn)
        handed.connect(self._learn)

        def undo() -> None:
            started.disconnect(self._learn)
            handed.disconnect(self._learn)
            target = getattr(bus, "target", bus)
            if target in self._buses:
                self._buses.remove(target)

        return undo

    def _learn(self, sender: Any, ctx: Any = None, **_: Any) -> None:
        """A run started or handed over on ``sender`` (the bus that dispatched it, with the
        guards of its parents or of a handoff target): remember what redacts for it."""
        run_id = getattr(ctx, "run_id", None)
        if run_id is None:
            return
        found = redactors(sender)
        if found:
            known = self._runs.setdefault(run_id, {})
            for plugin in found:
                known.setdefault(id(plugin), plugin)

    def active(self, run_id: str | None = None) -> list[Redacting]:
        """The redacting plugins that reach ``run_id`` (or any run on the watched buses)."""
        found: dict[int, Redacting] = {}
        for bus in self._buses:
            for plugin in redactors(bus):
                found.setdefault(id(plugin), plugin)
        if run_id is not None:
            for key, plugin in self._runs.get(run_id, {}).items():
                found.setdefault(key, plugin)
        return [p for p in found.values() if p.redacts]

    def __call__(self, value: Any, run_id: str | None = None) -> Any:
        """``value`` as an exporter may export it from run ``run_id``."""
        for plugin in self.active(run_id):
            value = plugin.redact_value(value)
        return value

    def redact_record(
        self, event: str, texts: dict[str, Any], run_id: str | None = None
    ) -> dict[str, Any]:
        """An ``on_event`` record's texts (``input``, ``output``, ``error``, ...) as an exporter
        may export them: redacted, and left out (``None``) for the pieces of a stream."""
        active = self.active(run_id)
        if not active:
            return texts
        if event in PIECEWISE_EVENTS:
            texts = dict.fromkeys(texts)
        for plugin in active:
            texts = plugin.redact_value(texts)
        return texts

    def forget(self, run_id: str) -> None:
        """The run is over and exported: drop what was learned about it."""
        self._runs.pop(run_id, None)


__all__ = ["PIECEWISE_EVENTS", "ExportRedaction", "Redacting", "redactors"]
