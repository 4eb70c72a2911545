"""Recording runs: a ``Recorder`` writes every ``on_event`` record of a run as one JSON line,
for ``agenthooks trace``.

    recorder = Recorder("run.jsonl")
    recorder.attach(agent)          # or agent.use(recorder) / bus.use(recorder)
    await agent.chat("hi")
    recorder.close()
"""

from .buses import reachable_buses
from .jsonable import error_text, json_fallback, to_jsonable
from .recorder import RECORD_FIELDS, RECORDER_PRIORITY, TERMINAL_EVENTS, Recorder, read_records

__all__ = [
    "RECORDER_PRIORITY",
    "RECORD_FIELDS",
    "TERMINAL_EVENTS",
    "Recorder",
    "error_text",
    "json_fallback",
    "reachable_buses",
    "read_records",
    "to_jsonable",
]
