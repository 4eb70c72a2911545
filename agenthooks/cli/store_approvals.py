"""``agenthooks approvals``: the calls paused runs of a store wait on, answered by a human.

    agenthooks approvals list [--store URL] [--json]
    agenthooks approvals approve ID [--reason TEXT] [--by NAME] [--store URL]
    agenthooks approvals deny ID --reason TEXT [--by NAME] [--store URL]

``ID`` is ``SESSION/CALL_ID`` as listed (a bare call id when one session has it). The answer
is stored with the paused run; ``session.resume()`` in the application continues it. The
source behind it is ``agenthooks.stores.approvals.StoreApprovals``. Exit status 2 for a bad
store, an unknown id or a call that no longer waits.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import sys
import time
from typing import Any

from ..stores.approvals import Approval, ApprovalError, StoreApprovals
from .common import CLIError, Subparsers, table
from .sessions import add_store_option, store_of


def add_parser(sub: Subparsers) -> None:
    """Register the ``approvals`` command."""
    parser = sub.add_parser(
        "approvals",
        help="list, approve or deny the calls paused runs wait on",
        description="Every call a paused run of the store waits on; an answer is kept with "
        "the run until the application resumes it.",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    listing = actions.add_parser("list", help="the calls waiting for an answer, oldest first")
    listing.add_argument("--json", action="store_true", help="print JSON")
    add_store_option(listing)
    listing.set_defaults(run=run_list)
    for action in ("approve", "deny"):
        one = actions.add_parser(action, help=f"{action} the call ID")
        one.add_argument("id", metavar="ID", help="SESSION/CALL_ID as listed")
        one.add_argument(
            "--reason",
            metavar="TEXT",
            required=action == "deny",
            help="why (for a deny: exactly the tool message the model reads)",
        )
        one.add_argument("--by", metavar="NAME", help="who answers (kept with the answer)")
        add_store_option(one)
        one.set_defaults(run=run_answer, approved=action == "approve")


def run_list(args: argparse.Namespace) -> int:
    """Print the pending calls."""
    source = StoreApprovals(store_of(args))

    async def read() -> list[Approval]:
        try:
            return await source.pending()
        finally:
            await source.aclose()

    found = asyncio.run(read())
    if args.json:
        json.dump([dataclasses.asdict(a) for a in found], sys.stdout, indent=2, default=str)
        sys.stdout.write("\n")
    elif not found:
        print("no pending approvals")
    else:
        now = time.time()
        rows = [
            [a.id, f"{int(now - (a.requested_at or now))}s ago", f"{a.summary}  (run {a.run_id})"]
            for a in found
        ]
        sys.stdout.write(table(["id", "asked", "request"], rows))
    return 0


def run_answer(args: argparse.Namespace) -> int:
    """Approve or deny one call."""
    source = StoreApprovals(store_of(args))
    result: dict[str, Any] = {}

    async def answer() -> None:
        try:
            result["approval"] = await source.answer(
                args.id, args.approved, reason=args.reason, by=args.by
            )
        finally:
            await source.aclose()

    try:
        asyncio.run(answer())
    except ApprovalError as exc:
        raise CLIError(str(exc)) from None
    approval: Approval = result["approval"]
    because = f": {approval.reason}" if approval.reason else ""
    print(f"{approval.status} {approval.id}{because} (resume the session to continue its run)")
    return 0


__all__ = ["add_parser", "run_answer", "run_list"]
