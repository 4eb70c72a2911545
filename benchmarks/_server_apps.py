"""The two apps ``bench_server.py`` loads into uvicorn: the floor (a bare Starlette endpoint
answering the deny without the bus) and the hook server with the Guard policy loaded."""

from __future__ import annotations

import os

from agenthooks_guard import Guard
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from agenthooks import HookBus
from agenthooks.server import Tokens, create_app

POLICY = """
default = "allow"

[[rules]]
name = "no-deletes"
tool = "Bash"
action = "deny"
reason = "Deleting files is not allowed."
args.command.matches = "\\\\brm\\\\b"

[[rules]]
tool = "Write"
action = "deny"
args.file_path.not_startswith = "/tmp/"

[redact]
patterns = ["api_key", "email"]
"""

ANSWER = {
    "hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": "Deleting files is not allowed.",
    }
}


def floor() -> Starlette:
    """The same answer, from a route that parses the JSON body and answers it: no bus."""

    async def hook(request: Request) -> JSONResponse:
        body = await request.json()
        assert body["tool_name"] == "Bash"
        return JSONResponse(ANSWER)

    return Starlette(routes=[Route("/v1/hooks/claude-code", hook, methods=["POST"])])


def served() -> Starlette:
    """``create_app`` with the Guard policy on the bus, behind the token file."""
    bus = HookBus()
    bus.use(Guard.from_toml(POLICY))
    return create_app(bus, tokens=Tokens.from_file(os.environ["BENCH_TOKENS"]))
