"""``agenthooks plugins``: the installed plugins and whether each one loads."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..bus import HookBus
from ..plugins import DISABLE_ENV, ENTRY_POINT_GROUP, PluginError, disabled_names, entry_points
from .common import Subparsers, table


def add_parser(sub: Subparsers) -> None:
    """Register the ``plugins`` command."""
    parser = sub.add_parser(
        "plugins",
        help="list installed plugins and check that each one loads",
        description=f"List the plugins installed through the {ENTRY_POINT_GROUP!r} entry "
        "points, with their distribution and version, and install each one on a "
        "fresh bus to check that it loads. Exits 1 when a plugin is broken. "
        f"Plugins switched off with {DISABLE_ENV} are listed as disabled.",
    )
    parser.add_argument("--json", action="store_true", help="print the list as JSON")
    parser.set_defaults(run=run)


def check_plugins() -> list[dict[str, Any]]:
    """One dict per installed plugin: name, distribution, version, status, error."""
    off = disabled_names()
    rows = []
    for ep in entry_points():
        dist = ep.dist
        row: dict[str, Any] = {
            "name": ep.name,
            "value": ep.value,
            "distribution": dist.name if dist is not None else None,
            "version": dist.version if dist is not None else None,
            "status": "ok",
            "error": None,
        }
        if ep.name in off:
            row["status"] = "disabled"
        else:
            try:
                HookBus().load_plugins([ep.name], strict=True)
            except PluginError as exc:
                row["status"] = "broken"
                row["error"] = f"{type(exc.error).__name__}: {exc.error}"
        rows.append(row)
    return rows


def run(args: argparse.Namespace) -> int:
    """Print the plugins; 1 when one of them does not load."""
    rows = check_plugins()
    broken = [r for r in rows if r["status"] == "broken"]
    if args.json:
        json.dump(rows, sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif not rows:
        print(f"no agenthooks plugins installed (entry-point group {ENTRY_POINT_GROUP!r})")
    else:
        sys.stdout.write(
            table(
                ["plugin", "distribution", "version", "loads"],
                [
                    [
                        r["name"],
                        r["distribution"] or "?",
                        r["version"] or "?",
                        "BROKEN: " + r["error"] if r["status"] == "broken" else r["status"],
                    ]
                    for r in rows
                ],
            )
        )
        if broken:
            names = ", ".join(r["name"] for r in broken)
            print(
                f"\n{len(broken)} broken plugin{'s' * (len(broken) != 1)}: {names}", file=sys.stderr
            )
    return 1 if broken else 0


__all__ = ["add_parser", "check_plugins", "run"]
