"""``agenthooks bridges``: the installed bridges and what each fires and honours."""

from __future__ import annotations

import argparse
import json
import sys

from ..bridges.capabilities import capability_table, installed_bridges
from ..errors import ConfigError
from .common import CLIError, Subparsers


def add_parser(sub: Subparsers) -> None:
    """Register the ``bridges`` command."""
    parser = sub.add_parser(
        "bridges",
        help="list the installed framework bridges and what each fires and honours",
        description="List the installed bridges (LangChain, the OpenAI Agents SDK, Pydantic "
        "AI, Google ADK, Strands, ...): the one-line set-up of each, the events it fires, the "
        "returns it carries out, and what its framework cannot do.",
    )
    parser.add_argument("--json", action="store_true", help="print the declarations as JSON")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print the bridges' declarations."""
    try:
        bridges = installed_bridges()
    except ConfigError as exc:
        raise CLIError(str(exc), code=1) from None
    if args.json:
        json.dump({name: caps.describe() for name, caps in bridges.items()}, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    if not bridges:
        sys.stdout.write(
            "no bridges installed (pip install agenthooks-langchain, agenthooks-openai-agents, "
            "agenthooks-pydantic-ai, agenthooks-adk or agenthooks-strands)\n"
        )
        return 0
    for name, caps in bridges.items():
        sys.stdout.write(f"{name}: {caps.framework} ({caps.distribution})\n  {caps.setup}\n")
    sys.stdout.write("\n" + capability_table(bridges))
    gaps = [
        (caps.framework, key, why) for caps in bridges.values() for key, why in caps.gaps.items()
    ]
    if gaps:
        sys.stdout.write("\nwhat a framework cannot do:\n")
        for framework, key, why in gaps:
            sys.stdout.write(f"  {framework}: {key}: {why}\n")
    return 0


__all__ = ["add_parser", "run"]
