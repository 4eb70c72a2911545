"""Errors of provider calls, each saying whether another attempt may succeed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import AgentHooksError


class ProviderError(AgentHooksError):
    """A provider call failed.

    The provider never retries by itself; a retry middleware reads ``retryable`` and decides.

    Attributes:
        raw: The bytes or status the provider got, for debugging.
        status: The HTTP status, when the server answered.
        retryable: Whether another attempt may succeed; each subclass has its default.
    """

    retryable: bool = False

    def __init__(
        self,
        message: str,
        *,
        raw: Any = None,
        status: int | None = None,
        retryable: bool | None = None,
    ) -> None:
        self.raw = raw
        self.status = status
        if retryable is not None:
            self.retryable = retryable
        super().__init__(message)


class ProviderHTTPError(ProviderError):
    """The server answered with an HTTP error status (message from the server's body).

    ``retryable`` defaults to True for 408, 409, 429 and 5xx.

    Attributes:
        headers: The response's headers, names lower-cased (``retry-after`` among them).
        error_type: The server's own name for the error, when its body gives one
            (``overloaded_error``).
    """

    def __init__(
        self,
        message: str,
        *,
        raw: Any = None,
        status: int | None = None,
        headers: Mapping[str, str] | None = None,
        error_type: str | None = None,
        retryable: bool | None = None,
    ) -> None:
        if retryable is None:
            retryable = status is not None and (status in (408, 409, 429) or status >= 500)
        super().__init__(message, raw=raw, status=status, retryable=retryable)
        self.headers: dict[str, str] = {k.lower(): v for k, v in (headers or {}).items()}
        self.error_type = error_type


class ProviderResponseError(ProviderError):
    """The server's answer is not a valid completion (bad JSON, no choices, no finish reason)."""


class ProviderConnectionError(ProviderError):
    """The connection failed or dropped (mid-stream included)."""

    retryable = True


class ProviderTimeout(ProviderError):
    """The provider did not answer within the timeout."""

    retryable = True


class ScriptExhausted(ProviderError):
    """A ``ScriptedProvider`` was asked for more responses than it was given."""


__all__ = [
    "ProviderConnectionError",
    "ProviderError",
    "ProviderHTTPError",
    "ProviderResponseError",
    "ProviderTimeout",
    "ScriptExhausted",
]
