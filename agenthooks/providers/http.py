"""What every provider over HTTP shares: its client (closed only when it made it), the
``async with`` form, and how it names itself in errors and ``repr``."""

from __future__ import annotations

from types import TracebackType
from typing import TYPE_CHECKING

import httpx

if TYPE_CHECKING:
    from typing_extensions import Self


class HTTPProvider:
    """The client side of a provider speaking an HTTP API; subclasses set the attributes."""

    name: str
    model: str
    base_url: str
    url: str
    _client: httpx.AsyncClient
    _owns_client: bool

    async def aclose(self) -> None:
        """Close the HTTP client if this provider created it."""
        if self._owns_client:
            await self._client.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    def __repr__(self) -> str:  # never shows the API key
        return f"{type(self).__name__}(model={self.model!r}, base_url={self.base_url!r})"

    @property
    def _where(self) -> str:
        return f"{self.name} (POST {self.url})"


__all__ = ["HTTPProvider"]
