"""The provider protocol: one complete response per call, or a stream ending in one."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ..messages import ProviderRequest, ProviderResponse


@dataclass(frozen=True, slots=True)
class StreamDelta:
    """A piece of assistant text as it streams in."""

    text: str


StreamItem = StreamDelta | ProviderResponse
"""What ``Provider.stream`` yields: text deltas, then exactly one complete ``ProviderResponse``."""


@runtime_checkable
class Provider(Protocol):
    """A model endpoint.

    ``complete`` returns one complete ``ProviderResponse`` or raises. ``stream`` yields
    ``StreamDelta`` items and, last, the complete ``ProviderResponse`` (the same one
    ``complete`` would have returned); it raises instead of ending without one.
    """

    name: str

    async def complete(self, request: ProviderRequest) -> ProviderResponse:
        """Send ``request`` and return the model's whole answer.

        Raises:
            ProviderError: The endpoint failed or answered something that cannot be read.
        """
        ...

    def stream(self, request: ProviderRequest) -> AsyncIterator[StreamItem]:
        """Send ``request`` and yield ``StreamDelta`` items, then the complete response, last.

        Raises:
            ProviderError: The endpoint failed, or the stream ended without a complete response.
        """
        ...


__all__ = ["Provider", "StreamDelta", "StreamItem"]
