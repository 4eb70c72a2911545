"""Stable cache keys: sha256 of the canonical JSON of what decides the answer."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from agenthooks import ProviderRequest

KEY_VERSION = 1
"""Part of every key: bumped when what a key covers changes, so old entries stop matching."""


def canonical(value: Any) -> str:
    """``value`` as canonical JSON: sorted keys, no whitespace, non-JSON values as text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def digest(value: Any) -> str:
    """The sha256 hex digest of ``canonical(value)``."""
    return hashlib.sha256(canonical(value).encode("utf-8")).hexdigest()


def response_key(request: ProviderRequest, provider: Any = None) -> str:
    """The key of a provider call: the request's ``model``, ``system``, ``messages``,
    ``tools``, ``tool_choice``, ``temperature`` and ``reasoning_effort``, and the provider's
    ``name`` and default ``model`` (a request without a model uses the provider's)."""
    provider_model = getattr(provider, "model", None)
    return "response:" + digest(
        {
            "v": KEY_VERSION,
            "provider": getattr(provider, "name", None),
            "provider_model": provider_model if isinstance(provider_model, str) else None,
            "model": request.model,
            "system": request.system,
            "messages": [m.model_dump(mode="json") for m in request.messages],
            "tools": request.tools,
            "tool_choice": request.tool_choice,
            "temperature": request.temperature,
            "reasoning_effort": request.reasoning_effort,
        }
    )


def tool_key(name: str, arguments: dict[str, Any]) -> str:
    """The key of a tool call: the tool's name and its arguments."""
    return "tool:" + digest({"v": KEY_VERSION, "tool": name, "arguments": arguments})


__all__ = ["KEY_VERSION", "canonical", "digest", "response_key", "tool_key"]
