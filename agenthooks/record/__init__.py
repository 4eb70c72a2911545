"""Recording runs: a ``Recorder`` writes every ``on_event`` record of a run as one JSON line,
for ``agenthooks trace``.

    recorder = Recorder("run.jsonl")
    recorder.attach(agent)          # or agent.use(recorder) / bus.use(recorder)
    await agent.chat("hi")
    recorder.close()

A source of recorded events that cannot be read (a missing file, an unreachable stream) raises
``RecordingError``. A consumer that hands recorded events to handlers of its own matches them
as the bus does: ``compile_matcher(spec, match)`` turns a ``match=`` (a ``Matcher``) into a
predicate on the name the event matches on, and ``handler_label(fn)`` names a handler the way
the bus's logs do.
"""

from ..bus.registry import Matcher, compile_matcher, handler_label
from ..trace.load import RecordingError
from .buses import reachable_buses
from .jsonable import error_text, json_fallback, to_jsonable
from .recorder import RECORD_FIELDS, RECORDER_PRIORITY, TERMINAL_EVENTS, Recorder, read_records

__all__ = [
    "RECORDER_PRIORITY",
    "RECORD_FIELDS",
    "TERMINAL_EVENTS",
    "Matcher",
    "Recorder",
    "RecordingError",
    "compile_matcher",
    "error_text",
    "handler_label",
    "json_fallback",
    "reachable_buses",
    "read_records",
    "to_jsonable",
]
