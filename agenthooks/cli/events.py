"""``agenthooks events``: the event catalog as a table, or as JSON."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..events.catalog import CATALOG
from ..events.describe import describe
from .common import Subparsers, table


def add_parser(sub: Subparsers) -> None:
    """Register the ``events`` command."""
    parser = sub.add_parser(
        "events",
        help="list every event: kind, what a handler may return, seed aliases",
        description="List every event of the catalog: its kind (observer, interceptor, "
        "predicate), what a handler may return, and the seed names accepted as "
        "aliases when you register a hook.",
    )
    parser.add_argument(
        "--json", action="store_true", help="print the catalog as a JSON list instead of a table"
    )
    parser.set_defaults(run=run)


def catalog_rows() -> list[dict[str, Any]]:
    """One dict per event, in catalog order: what it is, when it fires, what a handler may
    return, and what its context holds (each field's type, and whether a return writes it)."""
    return [describe(spec) for spec in CATALOG.values()]


def run(args: argparse.Namespace) -> int:
    """Print the catalog."""
    rows = catalog_rows()
    if args.json:
        json.dump(rows, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    sys.stdout.write(
        table(
            ["event", "kind", "may return", "seed aliases"],
            [
                [r["event"], r["kind"], r["may_return"], ", ".join(r["aliases"]) or "-"]
                for r in rows
            ],
            limits={2: 28},
        )
    )
    return 0


__all__ = ["add_parser", "catalog_rows", "run"]
