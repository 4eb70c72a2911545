"""The errors a request can meet, each with the HTTP status it is answered with."""

from __future__ import annotations

from ..errors import AgentHooksError


class RequestError(AgentHooksError):
    """A request the server refuses; ``status`` is the HTTP status of the answer and the
    message, one line, says what was wrong."""

    status = 400


class BadRequest(RequestError):
    """A body that is not JSON, or does not fit the client's schema (400): names the field
    and what it should be."""


class BodyTooLarge(RequestError):
    """A body over the server's limit (413)."""

    status = 413


class RateLimited(RequestError):
    """A caller over its rate limit (429): no handler ran."""

    status = 429


def field_error(client: str, key: str, expected: str, got: object) -> BadRequest:
    """A ``BadRequest`` naming the client, the field, what it should be and what came."""
    shown = "missing" if got is _MISSING else f"got {type(got).__name__}"
    return BadRequest(f"{client} hook input: {key!r} must be {expected} ({shown})")


class _Missing:
    def __repr__(self) -> str:
        return "missing"


_MISSING = _Missing()
MISSING: object = _MISSING
"""The value ``field_error`` reports as ``missing``."""


__all__ = [
    "MISSING",
    "BadRequest",
    "BodyTooLarge",
    "RateLimited",
    "RequestError",
    "field_error",
]
