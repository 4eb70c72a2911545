"""Reading a recording and showing it: a tree in the terminal, a timeline page in a browser.

recording = load_recording("run.jsonl")      # RecordingError if it cannot be read at all
trace = build_trace(recording.records)
print(render_tree(trace))
Path("run.html").write_text(render_html(trace, title="run.jsonl"))
"""

from .html import page_data, render_html
from .load import Recording, RecordingError, Skipped, load_recording, merge_recordings
from .spans import build_trace
from .text import format_duration, render_tree, span_line
from .tree import Mark, Span, Trace

__all__ = [
    "Mark",
    "Recording",
    "RecordingError",
    "Skipped",
    "Span",
    "Trace",
    "build_trace",
    "format_duration",
    "load_recording",
    "merge_recordings",
    "page_data",
    "render_html",
    "render_tree",
    "span_line",
]
