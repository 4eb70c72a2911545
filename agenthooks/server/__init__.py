"""The hook server: one bus and its plugins decide for agents in other processes, over HTTP.

``create_app(bus, tokens=...)`` is the ASGI app (Starlette) in front of a bus;
``agenthooks serve`` runs it with uvicorn, the installed plugins loaded as a bus loads them.
Each client speaks its own wire format at its own path (``/v1/hooks/claude-code`` ...), and
each client session is one run on the bus. Needs the ``server`` extra:
``pip install 'agenthooks[server]'``.
"""

from __future__ import annotations

EXTRA_HINT = "the hook server needs its extra: pip install 'agenthooks[server]'"
"""The one line said when the extra's packages are missing."""

try:
    from .app import BODY_LIMIT, CLIENTS_GROUP, Answer, create_app, installed_clients
    from .auth import ANONYMOUS, Caller, TokenFileError, Tokens, token_digest
    from .claude_code import ClientEvent
    from .errors import BadRequest, BodyTooLarge, RateLimited, RequestError
    from .runs import ResultVerdict, ServedRun, ToolVerdict
    from .sessions import SessionOwnerError, Sessions
    from .state import MemoryState, RedisState, Session, SessionState
except ImportError as exc:
    if (exc.name or "").split(".")[0] not in ("starlette", "prometheus_client", "uvicorn"):
        raise
    raise ImportError(f"{EXTRA_HINT} ({exc.name} is not installed)", name=exc.name) from None

__all__ = [
    "ANONYMOUS",
    "BODY_LIMIT",
    "CLIENTS_GROUP",
    "EXTRA_HINT",
    "Answer",
    "BadRequest",
    "BodyTooLarge",
    "Caller",
    "ClientEvent",
    "MemoryState",
    "RateLimited",
    "RedisState",
    "RequestError",
    "ResultVerdict",
    "ServedRun",
    "Session",
    "SessionOwnerError",
    "SessionState",
    "Sessions",
    "TokenFileError",
    "Tokens",
    "ToolVerdict",
    "create_app",
    "installed_clients",
    "token_digest",
]
