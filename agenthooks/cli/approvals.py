"""``agenthooks approvals``: every approval waiting for a human, from every installed source.

    agenthooks approvals list [--source NAME | --store URL] [--json]
    agenthooks approvals approve ID [--reason TEXT] [--by NAME] [--source NAME | --store URL]
    agenthooks approvals deny ID [--reason TEXT] [--by NAME] [--source NAME | --store URL]

Sources come from the ``agenthooks.approvals`` entry points; one whose factory raises
``SourceNotConfigured`` (the store source without ``$AGENTHOOKS_STORE``) is passed over.
``--store URL`` asks the paused runs of that store alone.
Exit status: 0 done; 1 a source failed (unreachable, broken); 2 a usage error, an unknown id,
or a request that is no longer pending.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import datetime
import json
import sys
import time
from typing import Any

from ..approvals import (
    APPROVALS_GROUP,
    Approval,
    ApprovalError,
    ApprovalSource,
    SourceNotConfigured,
    approval_entry_points,
    load_approval_source,
    select,
)
from ..errors import StoreError
from ..stores.approvals import StoreApprovals
from ..stores.url import open_store
from .common import CLIError, Subparsers, existing, missing_store, one_line, table


def add_parser(sub: Subparsers) -> None:
    """Register the ``approvals`` command and its three actions."""
    parser = sub.add_parser(
        "approvals",
        help="list, approve or deny what waits for a human",
        description="Every approval request waiting for a human, from every installed source "
        f"(the {APPROVALS_GROUP!r} entry points: tool calls a guard asks about in a "
        "worker, paused runs), listed and answered in one place.",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    listing = actions.add_parser("list", help="list the pending requests, oldest first")
    listing.add_argument("--json", action="store_true", help="print the list as JSON")
    listing.add_argument("--source", metavar="NAME", help="only this source")
    listing.add_argument("--store", metavar="URL", help=STORE_HELP)
    listing.set_defaults(run=run_list)
    for action, verb in (("approve", "approve"), ("deny", "deny")):
        one = actions.add_parser(action, help=f"{verb} the request ID")
        one.add_argument("id", metavar="ID", help="the request's id, as listed")
        one.add_argument("--reason", metavar="TEXT", help="why (the denied agent's model reads it)")
        one.add_argument("--by", metavar="NAME", help="who answers (kept with the answer)")
        one.add_argument("--source", metavar="NAME", help="the source holding ID")
        one.add_argument("--store", metavar="URL", help=STORE_HELP)
        one.set_defaults(run=run_answer, approved=action == "approve")


STORE_HELP = (
    "the paused runs of this store only (postgresql://..., sqlite:///file.db or a path; "
    "default source: $AGENTHOOKS_STORE)"
)


def _sources(name: str | None, store: str | None = None) -> tuple[list[ApprovalSource], list[str]]:
    """The loaded sources, and one line per source that failed to load; with ``store``, the
    paused runs of that store alone."""
    if store is not None:
        try:
            return [StoreApprovals(existing(open_store(store)))], []
        except StoreError as exc:
            raise CLIError(str(exc)) from None
    try:
        chosen = select(approval_entry_points(), name)
    except LookupError as exc:
        raise CLIError(str(exc)) from None
    if not chosen:
        raise CLIError(
            f"no approval source is installed (entry-point group {APPROVALS_GROUP!r}); "
            "install one, e.g. agenthooks-redis"
        )
    loaded: list[ApprovalSource] = []
    failed: list[str] = []
    unconfigured: list[str] = []
    for ep in chosen:
        try:
            source = load_approval_source(ep)
        except SourceNotConfigured as exc:
            unconfigured.append(f"{ep.name} ({exc})")
            continue
        except Exception as exc:
            failed.append(f"source {ep.name!r} failed to load: {one_line(exc)}")
            continue
        # the store $AGENTHOOKS_STORE names is read, never created (a mistyped path)
        problem = missing_store(source.store) if isinstance(source, StoreApprovals) else None
        if problem is not None:
            failed.append(f"source {ep.name!r}: {problem}")
            continue
        loaded.append(source)
    if not loaded and not failed:
        raise CLIError(f"no approval source is configured: {'; '.join(unconfigured)}")
    return loaded, failed


def _when(stamp: float | None, now: float) -> str:
    if stamp is None:
        return "-"
    seconds = int(stamp - now)
    text = str(datetime.timedelta(seconds=abs(seconds)))
    return f"in {text}" if seconds >= 0 else f"{text} ago"


def run_list(args: argparse.Namespace) -> int:
    """Print the pending requests; 1 when a source could not be asked."""
    sources, failed = _sources(args.source, args.store)
    found: list[Approval] = []

    async def gather() -> None:
        for source in sources:
            try:
                found.extend(await source.pending())
            except Exception as exc:
                failed.append(f"source {source.name!r} failed: {one_line(exc)}")
            finally:
                await source.aclose()

    asyncio.run(gather())
    found.sort(key=lambda a: a.requested_at or 0.0)
    if args.json:
        json.dump([dataclasses.asdict(a) for a in found], sys.stdout, indent=2, default=str)
        sys.stdout.write("\n")
    elif not found:
        # with --store that one store is the only source: when it failed, nothing is known
        if args.store is None or not failed:
            print("no pending approvals")
    else:
        now = time.time()
        rows = [
            [
                a.id,
                a.source,
                a.kind,
                _when(a.requested_at, now),
                _when(a.expires_at, now),
                f"{a.summary}  (run {a.run_id}, agent {a.agent})" if a.run_id else a.summary,
            ]
            for a in found
        ]
        sys.stdout.write(table(["id", "source", "kind", "asked", "expires", "request"], rows))
    for line in failed:
        print(f"agenthooks approvals: error: {line}", file=sys.stderr)
    return 1 if failed else 0


def run_answer(args: argparse.Namespace) -> int:
    """Approve or deny one request; 2 when no source has it pending."""
    sources, failed = _sources(args.source, args.store)
    result: dict[str, Any] = {}

    async def answer() -> None:
        try:
            holders = []
            for source in sources:
                try:
                    if await source.get(args.id) is not None:
                        holders.append(source)
                except Exception as exc:
                    failed.append(f"source {source.name!r} failed: {one_line(exc)}")
            if len(holders) > 1:
                names = ", ".join(s.name for s in holders)
                raise CLIError(
                    f"{args.id!r} is known to several sources ({names}); pick one with --source"
                )
            if not holders:
                where = "any source" if len(sources) != 1 else f"source {sources[0].name!r}"
                raise CLIError(f"no approval request {args.id!r} in {where}", 1 if failed else 2)
            try:
                result["approval"] = await holders[0].answer(
                    args.id, args.approved, reason=args.reason, by=args.by
                )
            except ApprovalError as exc:
                raise CLIError(str(exc)) from None
        finally:
            for source in sources:
                await source.aclose()

    asyncio.run(answer())
    approval: Approval = result["approval"]
    verb = "approved" if args.approved else "denied"
    because = f": {approval.reason}" if approval.reason else ""
    print(f"{verb} {approval.id} ({approval.source}): {approval.summary}{because}")
    if approval.kind == "paused run":
        print("resume the session to continue its run")
    for line in failed:
        print(f"agenthooks approvals: error: {line}", file=sys.stderr)
    return 0


__all__ = ["add_parser", "run_answer", "run_list"]
