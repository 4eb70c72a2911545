"""``agenthooks sessions``: the sessions of a store, and one session in full.

    agenthooks sessions list [--store URL] [--status idle|running|paused] [--json]
    agenthooks sessions show ID [--store URL] [--json]

The store is ``--store`` (``postgresql://...``, ``sqlite:///file.db`` or a path) or
``$AGENTHOOKS_STORE``; a SQLite file that does not exist is an error, never created. Exit
status 2 for a bad store (a missing file included) or an unknown session, 1 for a store that
cannot be reached or read; each with one line on stderr.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from typing import Any

from ..errors import StoreError
from ..stores.base import SessionRow
from ..stores.sql import SQLStore
from ..stores.url import STORE_ENV, open_store
from .common import CLIError, Subparsers, existing, read_store, table


def add_store_option(parser: argparse.ArgumentParser) -> None:
    """``--store URL``, shared with ``approvals``."""
    parser.add_argument(
        "--store",
        metavar="URL",
        help=f"postgresql://..., sqlite:///file.db or a path (default: ${STORE_ENV})",
    )


def store_of(args: argparse.Namespace) -> SQLStore:
    """The store the arguments name, or a ``CLIError`` saying what is wrong (a SQLite file
    that does not exist included: reading never creates a store)."""
    try:
        return existing(open_store(args.store))
    except StoreError as exc:
        raise CLIError(str(exc)) from None


def add_parser(sub: Subparsers) -> None:
    """Register the ``sessions`` command."""
    parser = sub.add_parser(
        "sessions",
        help="list the sessions of a store, or show one (history and paused run)",
        description="Sessions kept in a store (Session(agent, store=...)): their state, "
        "their history, and the calls a paused run waits on.",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    listing = actions.add_parser("list", help="every session, most recently updated first")
    listing.add_argument("--status", choices=("idle", "running", "paused"))
    listing.add_argument("--json", action="store_true", help="print JSON")
    add_store_option(listing)
    listing.set_defaults(run=run_list)
    show = actions.add_parser("show", help="one session: state, pending calls, history")
    show.add_argument("id", metavar="ID")
    show.add_argument("--json", action="store_true", help="print JSON")
    add_store_option(show)
    show.set_defaults(run=run_show)


def _ago(stamp: float, now: float) -> str:
    seconds = max(0, int(now - stamp))
    return f"{seconds}s ago" if seconds < 120 else f"{seconds // 60}m ago"


def _row_json(row: SessionRow) -> dict[str, Any]:
    data = dataclasses.asdict(row)
    data["paused"] = None if row.paused is None else row.paused.model_dump(mode="json")
    data["journal"] = None if row.journal is None else row.journal.model_dump(mode="json")
    return data


def run_list(args: argparse.Namespace) -> int:
    """Print the sessions."""
    store = store_of(args)

    async def read(store: SQLStore) -> list[SessionRow]:
        return await store.sessions(args.status)

    rows = read_store(store, read)
    if args.json:
        json.dump([_row_json(r) for r in rows], sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    if not rows:
        print("no sessions")
        return 0
    now = time.time()
    lines = [
        [
            r.id,
            r.agent,
            r.status,
            str(r.messages),
            ", ".join(r.pending) or "-",
            _ago(r.updated_at, now),
        ]
        for r in rows
    ]
    sys.stdout.write(table(["session", "agent", "status", "messages", "pending", "updated"], lines))
    return 0


def run_show(args: argparse.Namespace) -> int:
    """Print one session."""
    store = store_of(args)

    async def read(store: SQLStore) -> tuple[SessionRow | None, list[Any]]:
        row = await store.get(args.id)
        return row, [] if row is None else await store.history(args.id)

    row, history = read_store(store, read)
    if row is None:
        raise CLIError(f"no session {args.id!r} in {store!r}")
    if args.json:
        data = _row_json(row)
        data["history"] = [m.model_dump(mode="json") for m in history]
        json.dump(data, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    print(f"session {row.id}  agent {row.agent}  {row.status}  version {row.version}")
    if row.status == "running":
        print(f"  running in {row.owner} (claim until {time.ctime(row.lease_until or 0)})")
    paused = row.paused
    if paused is not None and row.status == "paused":
        print(f"  paused run {paused.run_id} at turn {paused.iteration}, waiting on:")
        for call in paused.pending:
            answer = paused.answers.get(call.call_id)
            state = (
                "pending"
                if answer is None
                else ("approved" if answer.approved else f"denied: {answer.reason or ''}")
            )
            arguments = json.dumps(call.arguments, ensure_ascii=False, sort_keys=True)
            print(f"    {call.call_id}  {call.tool}({arguments})  {call.reason}  [{state}]")
    print(f"history ({len(history)} messages):")
    for position, message in enumerate(history):
        text = message.content or ""
        if message.tool_calls:
            calls = ", ".join(f"{c.name}#{c.id}" for c in message.tool_calls)
            text = f"{text} -> {calls}" if text else f"-> {calls}"
        if message.role == "tool":
            text = f"[{message.tool_call_id}] {text}"
        print(f"  {position:>3} {message.role:<9} {text[:200]}")
    return 0


__all__ = ["add_parser", "add_store_option", "run_list", "run_show", "store_of"]
