"""``agenthooks hook CLIENT``: a command hook that asks the hook server.

    agenthooks hook codex [--url URL] [--token-env VAR] [--timeout SECONDS]

Reads the client's hook input (JSON) on stdin, posts it to ``URL/v1/hooks/CLIENT`` with the
bearer token from ``$VAR``, and answers as command hooks do: a deny is exit 2 with the reason
on stderr (the client shows it to its model); any other answer is printed on stdout, exit 0.
A server that cannot be reached, or answers with an error, fails closed for the events that
can refuse (exit 2, one line on stderr) and open for the events that only report (exit 0).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

import httpx

from .common import Subparsers

URL_ENV = "AGENTHOOKS_SERVER_URL"
DEFAULT_URL = "http://127.0.0.1:8765"

GATES = frozenset(
    {"PreToolUse", "UserPromptSubmit", "PostToolUse", "PermissionRequest", "SessionStart"}
)
"""The client events that can refuse something: an unanswered one fails closed."""


def add_parser(sub: Subparsers) -> None:
    """Register the ``hook`` command."""
    parser = sub.add_parser(
        "hook",
        help="a command hook (Codex) that asks the hook server",
        description="Read a hook input on stdin, ask the hook server, print the answer; a "
        "deny exits 2 with the reason on stderr. An unreachable server fails closed for "
        "the events that can refuse and open for the others.",
    )
    parser.add_argument("client", metavar="CLIENT", help="the client's format: codex, claude-code")
    parser.add_argument(
        "--url", default=None, help=f"the server (default ${URL_ENV}, else {DEFAULT_URL})"
    )
    parser.add_argument(
        "--token-env",
        default="AGENTHOOKS_TOKEN",
        metavar="VAR",
        help="the environment variable holding the bearer token (AGENTHOOKS_TOKEN)",
    )
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds to wait (30)")
    parser.set_defaults(run=run)


def refusal(answer: Any) -> str | None:
    """The reason an answer refuses with (a deny, a block, a stop), else ``None``."""
    if not isinstance(answer, dict):
        return None
    specific = answer.get("hookSpecificOutput")
    if isinstance(specific, dict) and specific.get("permissionDecision") == "deny":
        return str(specific.get("permissionDecisionReason") or "denied by the hook server")
    if answer.get("decision") == "block":
        return str(answer.get("reason") or "blocked by the hook server")
    if answer.get("continue") is False:
        return str(answer.get("stopReason") or "stopped by the hook server")
    return None


def _fail(event: str | None, why: str) -> int:
    closed = event is None or event in GATES
    verdict = "blocked (fail closed)" if closed else "not checked (fail open)"
    print(f"agenthooks hook: {verdict}: {why}", file=sys.stderr)
    return 2 if closed else 0


def run(args: argparse.Namespace) -> int:
    """Ask the server; returns the exit code the client reads."""
    raw = sys.stdin.buffer.read()
    try:
        body = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        return _fail(None, f"the hook input on stdin is not JSON ({exc})")
    event = body.get("hook_event_name") if isinstance(body, dict) else None
    event = event if isinstance(event, str) else None
    url = (args.url or os.environ.get(URL_ENV) or DEFAULT_URL).rstrip("/")
    headers = {"Content-Type": "application/json"}
    token = os.environ.get(args.token_env)
    if token:
        headers["Authorization"] = f"Bearer {token}"
    try:
        response = httpx.post(
            f"{url}/v1/hooks/{args.client}", content=raw, headers=headers, timeout=args.timeout
        )
    except httpx.HTTPError as exc:
        return _fail(event, f"the hook server at {url} cannot be reached ({type(exc).__name__})")
    if response.status_code != 200:
        try:
            said = response.json().get("error", "")
        except ValueError:
            said = response.text[:200]
        return _fail(event, f"the hook server answered {response.status_code}: {said}")
    try:
        answer = response.json()
    except ValueError:
        return _fail(event, "the hook server's answer is not JSON")
    reason = refusal(answer)
    if reason is not None:
        print(" ".join(reason.split()), file=sys.stderr)
        return 2
    if answer:
        json.dump(answer, sys.stdout)
        sys.stdout.write("\n")
    return 0


__all__ = ["DEFAULT_URL", "GATES", "URL_ENV", "add_parser", "refusal", "run"]
