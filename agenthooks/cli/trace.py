"""``agenthooks trace``: a recorded run as a tree in the terminal, or as a timeline page."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

from ..trace import build_trace, load_recording, merge_recordings, render_html, render_tree
from ..trace.load import Recording, RecordingError
from ..trace.sources import RunFilter, is_url, source_for
from .common import CLIError, Subparsers


def add_parser(sub: Subparsers) -> None:
    """Register the ``trace`` command."""
    parser = sub.add_parser(
        "trace",
        help="show a recorded run as a tree, or write a timeline page (--html)",
        description="Show a recording (JSON Lines written by agenthooks.record.Recorder or "
        "`agenthooks demo --record FILE`, or an event stream the workers publish to, "
        "such as redis://HOST:PORT/DB?stream=NAME) as a tree: agent → turn → model call "
        "and tool calls, with durations, tokens, denies and errors. With --html, "
        "write one self-contained page with a timeline of every span per branch.",
        epilog="Exit status 2 when the file is missing or not a recording, or when lines "
        "had to be skipped (a truncated last line): what is readable is still shown.",
    )
    parser.add_argument(
        "recordings",
        metavar="RUN.jsonl",
        nargs="+",
        help="the recording to show (a file or a stream URL); several are merged in time "
        "order (a run paused in one process and resumed in another shows as one run)",
    )
    parser.add_argument(
        "--html",
        metavar="OUT.html",
        help="write the timeline page to OUT.html instead of printing the tree",
    )
    parser.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour errors and denies in the tree (default: auto, when the "
        "output is a terminal and NO_COLOR is unset)",
    )
    parser.add_argument(
        "--run", metavar="ID", dest="run_id", help="only this run (and its sub-agents' runs)"
    )
    parser.set_defaults(run=run)


def _use_color(choice: str) -> bool:
    if choice != "auto":
        return choice == "always"
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def _read(where: str) -> Recording:
    """A recording file, or every record of a stream URL."""
    if not is_url(where):
        return load_recording(where)
    source = source_for(where)
    return Recording(Path(where), asyncio.run(source.read(where)))


def _only(records: list[dict[str, object]], run_id: str) -> list[dict[str, object]]:
    keep = RunFilter(run_id)
    return [r for r in records if keep(r)]


def run(args: argparse.Namespace) -> int:
    """Render the recording; 2 when it cannot be read or lines were skipped."""
    try:
        recordings = [_read(where) for where in args.recordings]
    except RecordingError as exc:
        raise CLIError(str(exc)) from None
    records = merge_recordings(recordings)
    if args.run_id:
        records = _only(records, args.run_id)
        if not records:
            raise CLIError(f"{' + '.join(args.recordings)}: no records of run {args.run_id!r}")
    trace = build_trace(records)
    skipped = [(r.path, s) for r in recordings for s in r.skipped]
    if args.html:
        out = Path(args.html)
        title = " + ".join(w if is_url(w) else Path(w).name for w in args.recordings)
        page = render_html(trace, title=title, skipped=[s for _, s in skipped])
        try:
            out.write_text(page, encoding="utf-8")
        except OSError as exc:
            raise CLIError(f"cannot write {out}: {exc.strerror or exc}") from None
        spans = len(trace.spans)
        print(f"wrote {out} ({spans} spans from {trace.records} records)")
    else:
        unicode = "utf" in (getattr(sys.stdout, "encoding", None) or "").lower()
        sys.stdout.write(render_tree(trace, color=_use_color(args.color), unicode=unicode))
    if skipped:
        sys.stdout.flush()
        for path, line in skipped:
            print(
                f"agenthooks trace: skipped line {line.line} of {path}: {line.reason}",
                file=sys.stderr,
            )
        count = len(skipped)
        where = recordings[0].path if len(recordings) == 1 else "the recordings"
        print(
            f"agenthooks trace: error: {count} line{'s' * (count != 1)} of "
            f"{where} could not be read; the rest is shown above",
            file=sys.stderr,
        )
        return 2
    return 0


__all__ = ["add_parser", "run"]
