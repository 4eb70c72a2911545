"""The app ``agenthooks serve`` runs: a bus with the installed plugins, built from the
environment in each worker (uvicorn starts workers from an import string)."""

from __future__ import annotations

import os

from starlette.applications import Starlette

from ..bus import HookBus
from .app import BODY_LIMIT, create_app
from .auth import Tokens
from .state import RedisState

TOKEN_FILE_ENV = "AGENTHOOKS_SERVER_TOKEN_FILE"
"""The token file a worker reads (``--token-file``); unset with ``NO_AUTH_ENV`` set serves
without authentication."""
NO_AUTH_ENV = "AGENTHOOKS_SERVER_NO_AUTH"
BODY_LIMIT_ENV = "AGENTHOOKS_SERVER_BODY_LIMIT"
RATE_ENV = "AGENTHOOKS_SERVER_RATE"
"""Requests per caller, ``CALLS/SECONDS`` (``--rate``); unset: no limit."""
REDIS_PREFIX_ENV = "AGENTHOOKS_SERVER_REDIS_PREFIX"
"""The key prefix of the sessions' state in Redis (``--redis-prefix``)."""
REDIS_ENV = "AGENTHOOKS_SERVER_REDIS_URL"
"""The Redis where sessions' state is shared (``--redis``); unset: this worker's memory."""


def app_from_environment() -> Starlette:
    """The server's app in one worker: ``HookBus(plugins="auto")`` (entry points,
    ``AGENTHOOKS_DISABLE_PLUGINS``, each plugin's own variables) behind the token file.

    Raises:
        TokenFileError: The token file cannot be used.
        RuntimeError: Neither a token file nor ``--no-auth`` was configured.
    """
    token_file = os.environ.get(TOKEN_FILE_ENV)
    if token_file:
        tokens: Tokens | None = Tokens.from_file(token_file)
    elif os.environ.get(NO_AUTH_ENV) == "1":
        tokens = None
    else:
        raise RuntimeError(f"set {TOKEN_FILE_ENV} (a token file) or {NO_AUTH_ENV}=1")
    limit = int(os.environ.get(BODY_LIMIT_ENV) or BODY_LIMIT)
    redis_url = os.environ.get(REDIS_ENV)
    prefix = os.environ.get(REDIS_PREFIX_ENV) or "agenthooks:server:session:"
    state = RedisState(redis_url, prefix=prefix) if redis_url else None
    rate = parse_rate(os.environ[RATE_ENV]) if os.environ.get(RATE_ENV) else None
    bus = HookBus(plugins="auto")
    return create_app(bus, tokens=tokens, body_limit=limit, state=state, rate=rate)


def parse_rate(text: str) -> tuple[int, float]:
    """``CALLS/SECONDS`` (``600/60``) as ``(calls, seconds)``.

    Raises:
        ValueError: Naming the text and the form expected.
    """
    calls, _, seconds = text.partition("/")
    try:
        parsed = (int(calls), float(seconds))
    except ValueError:
        parsed = (0, 0.0)
    if parsed[0] < 1 or parsed[1] <= 0:
        raise ValueError(f"rate {text!r}: expected CALLS/SECONDS with both positive, e.g. 600/60")
    return parsed


__all__ = [
    "BODY_LIMIT_ENV",
    "NO_AUTH_ENV",
    "RATE_ENV",
    "REDIS_ENV",
    "REDIS_PREFIX_ENV",
    "TOKEN_FILE_ENV",
    "app_from_environment",
    "parse_rate",
]
