"""``agenthooks tail [URL]``: the events of every worker, live, in the words of ``trace``; the
URL defaults to ``$AGENTHOOKS_REDIS_URL``, as the workers' publisher reads it."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys

from ..errors import UnknownEventError
from ..events import resolve
from ..trace.live import LiveTrace
from ..trace.load import RecordingError
from ..trace.sources import RunFilter, is_url, source_for
from .common import CLIError, Subparsers

REDIS_URL_ENV = "AGENTHOOKS_REDIS_URL"
"""The variable the workers' Redis URL is read from (agenthooks-redis reads the same)."""


def add_parser(sub: Subparsers) -> None:
    """Register the ``tail`` command."""
    parser = sub.add_parser(
        "tail",
        help="print the live events of every worker, from a stream URL",
        description="Follow an event stream that workers publish to (redis://HOST:PORT/DB, "
        "?stream=NAME for another stream than agenthooks:events) and print each "
        "run's progress as it happens, with the span lines of `agenthooks trace`: a "
        "run's start, each model call, tool call and turn as it ends, its end.",
        epilog="Runs until interrupted (Ctrl-C). Exit status 2 when the URL cannot be read.",
    )
    parser.add_argument(
        "url",
        metavar="URL",
        nargs="?",
        help=f"the stream, e.g. redis://127.0.0.1:6379/0 (default: ${REDIS_URL_ENV})",
    )
    parser.add_argument(
        "--run", metavar="ID", dest="run_id", help="only this run (and its sub-agents' runs)"
    )
    parser.add_argument("--event", metavar="NAME", help="only records of this event")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Follow ``args.url`` (default: ``$AGENTHOOKS_REDIS_URL``) until interrupted."""
    if args.url is None:
        args.url = os.environ.get(REDIS_URL_ENV, "").strip()
        if not args.url:
            raise CLIError(
                f"no stream URL: pass one (e.g. redis://127.0.0.1:6379/0) or set {REDIS_URL_ENV}"
            )
    if not is_url(args.url):
        raise CLIError(f"{args.url!r} is not a URL (scheme://...), e.g. redis://127.0.0.1:6379/0")
    event = None
    if args.event is not None:
        try:
            event = resolve(args.event).name
        except UnknownEventError as exc:
            raise CLIError(str(exc)) from None
    try:
        source = source_for(args.url)
    except RecordingError as exc:
        raise CLIError(str(exc)) from None
    keep = RunFilter(args.run_id) if args.run_id else None
    live = LiveTrace(event=event)

    def ready() -> None:
        print(f"agenthooks tail: following {args.url} (Ctrl-C stops)", file=sys.stderr, flush=True)

    async def follow() -> None:
        async for record in source.follow(args.url, ready=ready):
            if keep is not None and not keep(record):
                continue
            for line in live.feed(record):
                print(line, flush=True)

    try:
        asyncio.run(follow())
    except RecordingError as exc:
        raise CLIError(str(exc)) from None
    return 0


__all__ = ["REDIS_URL_ENV", "add_parser", "run"]
