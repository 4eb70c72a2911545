"""The ``agenthooks`` command: the event catalog, installed plugins, the demo, and traces.

    agenthooks events [--json]
    agenthooks plugins [--json]
    agenthooks bridges [--json]
    agenthooks demo [--base-url URL --model NAME] [--record FILE]
    agenthooks trace RUN.jsonl...|URL [--run ID] [--html OUT.html]
    agenthooks tail [URL] [--run ID] [--event NAME]
    agenthooks sessions list|show ID [--store URL]
    agenthooks approvals list|approve ID|deny ID [--reason TEXT] [--store URL]
    agenthooks serve [--host H] [--port P] (--token-file FILE | --no-auth)
    agenthooks hook CLIENT [--url URL] [--token-env VAR] < HOOK_INPUT.json

Exit codes: 0 success, 1 a broken plugin (``plugins``) or a store or source that cannot be
reached, 2 a usage or input error. Every error is one line on stderr.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence

from .. import __version__
from . import approvals, bridges, demo, events, hook, plugins, serve, sessions, tail, trace
from .common import CLIError

COMMANDS = (events, plugins, bridges, demo, trace, tail, sessions, approvals, serve, hook)


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``agenthooks`` and its subcommands."""
    parser = argparse.ArgumentParser(
        prog="agenthooks",
        description="Tools for people who write agenthooks hooks: the event catalog, the "
        "installed plugins, a demo run, traces of recorded runs, the live events of "
        "every worker, stored sessions, and the approvals waiting for a human (paused runs, "
        "remote approvals).",
        epilog="Run `agenthooks COMMAND --help` for the options of each command.",
    )
    parser.add_argument("--version", action="version", version=f"agenthooks {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for command in COMMANDS:
        command.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (the console script exits with it)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    # a driver's own log lines (psycopg's pool retrying an unreachable server) would bury the
    # one line the command prints about the failure
    logging.getLogger("psycopg").addHandler(logging.NullHandler())
    try:
        code: int = args.run(args)
    except CLIError as exc:
        print(f"agenthooks {args.command}: error: {exc}", file=sys.stderr)
        return exc.code
    except BrokenPipeError:  # `agenthooks events | head`: the reader left, nothing to report
        # point stdout at devnull so the interpreter's final flush does not fail again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print(f"agenthooks {args.command}: interrupted", file=sys.stderr)
        return 130
    return code


__all__ = ["build_parser", "main"]
