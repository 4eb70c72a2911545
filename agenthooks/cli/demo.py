"""``agenthooks demo``: the main job, the same run as ``make demo``."""

from __future__ import annotations

import argparse
import importlib
from typing import Any

from .common import CLIError, Subparsers


def add_parser(sub: Subparsers) -> None:
    """Register the ``demo`` command."""
    parser = sub.add_parser(
        "demo",
        help="run the demo agent (offline by default; the same as `make demo`)",
        description="Run the demo agent. Without --base-url it runs offline on the scripted "
        "provider; with --base-url and --model it talks to an OpenAI-compatible "
        "endpoint; with --provider anthropic and --model, to the Anthropic Messages API. "
        "--record FILE writes the run's events as JSON Lines for `agenthooks trace FILE`.",
    )
    parser.add_argument(
        "--base-url",
        metavar="URL",
        help="the endpoint, e.g. http://127.0.0.1:8000/v1 (anthropic: default "
        "https://api.anthropic.com)",
    )
    parser.add_argument("--model", metavar="NAME", help="the model name to ask for")
    parser.add_argument(
        "--record", metavar="FILE", help="write every event of the run to FILE (JSON Lines)"
    )
    parser.add_argument(
        "--provider",
        choices=("scripted", "openai", "anthropic"),
        help="the model provider (default: scripted, or openai with --base-url)",
    )
    parser.set_defaults(run=run)


def demo_argv(args: argparse.Namespace) -> list[str]:
    """The options given, as ``agenthooks.demo.main`` takes them."""
    argv = []
    for flag, value in (
        ("--provider", args.provider),
        ("--base-url", args.base_url),
        ("--model", args.model),
        ("--record", args.record),
    ):
        if value is not None:
            argv += [flag, value]
    return argv


def run(args: argparse.Namespace) -> int:
    """Run ``agenthooks.demo.main`` with the options given."""
    try:
        module: Any = importlib.import_module("agenthooks.demo")
    except ModuleNotFoundError as exc:
        if exc.name != "agenthooks.demo":
            raise
        raise CLIError("this installation has no demo (agenthooks.demo is missing)") from None
    code = module.main(demo_argv(args))
    return int(code or 0)


__all__ = ["add_parser", "demo_argv", "run"]
