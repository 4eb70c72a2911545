"""What a cache entry holds: JSON text, the same for every backend."""

from __future__ import annotations

import json
from typing import Any

from agenthooks import ProviderResponse, Usage
from agenthooks.plugins import serialize_result


def encode_response(response: ProviderResponse) -> str:
    """A provider response as an entry (``raw`` is left out: it is the provider's bytes)."""
    return response.model_dump_json(exclude={"raw"})


def decode_response(entry: str, key: str) -> ProviderResponse:
    """The response an entry holds, as a cache hit: usage zero (nothing was spent) and
    ``raw = {"cached": True, "key": key}`` so hooks can tell a hit from a call."""
    response = ProviderResponse.model_validate_json(entry)
    return response.model_copy(update={"usage": Usage(), "raw": {"cached": True, "key": key}})


def encode_result(result: Any) -> str:
    """A tool result as an entry: JSON values round-trip as they are; anything else (a
    pydantic model, a tuple, a datetime) is kept as the text the model read, so a cached
    call shows the model exactly what the first one did."""
    try:
        text = json.dumps(result, ensure_ascii=False)
        native = json.loads(text)
    except (TypeError, ValueError):
        native = _MISSING
    if native is not _MISSING and native == result and type(native) is type(result):
        return json.dumps({"value": native}, ensure_ascii=False)
    return json.dumps({"text": serialize_result(result)}, ensure_ascii=False)


def decode_result(entry: str) -> Any:
    """The result an entry holds (the model-facing text for a non-JSON result)."""
    data = json.loads(entry)
    return data["value"] if "value" in data else data["text"]


_MISSING = object()

__all__ = ["decode_response", "decode_result", "encode_response", "encode_result"]
