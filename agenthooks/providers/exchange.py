"""One HTTP request to a model server, its response read under a deadline.

Every wait (connecting, sending, each read) is bounded by the client's per-read ``timeout``,
and all of them together by ``deadline`` seconds, so a server that sends keepalives forever
or trickles its body byte by byte ends too. Time the caller spends between reads does not
count. Each failure is raised as a typed ``ProviderError`` with the HTTP status (when one
arrived) and ``raw``, the body bytes received so far. Redirects are never followed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any, TypeVar

import httpx

from ..errors import (
    ProviderConnectionError,
    ProviderError,
    ProviderHTTPError,
    ProviderResponseError,
    ProviderTimeout,
)
from .error_text import server_message

T = TypeVar("T")


class Exchange:
    """A POST of ``body`` (JSON) to ``url``; ``where`` starts every error message.

    ``open()`` sends it and raises ``ProviderHTTPError`` for any status other than 2xx;
    ``next_piece()`` / ``read_all()`` read the body; ``close()`` releases the connection.
    ``chunks``, once set by a stream reader, counts the events decoded, for the message of a
    connection dropped mid-stream.
    """

    def __init__(
        self,
        client: httpx.AsyncClient,
        url: str,
        body: dict[str, Any],
        *,
        headers: Mapping[str, str],
        timeout: float,
        deadline: float,
        where: str,
    ) -> None:
        self.client = client
        self.url = url
        self.body = body
        self.headers = dict(headers)
        self.timeout = timeout
        self.deadline = deadline
        self.where = where
        self.raw = bytearray()
        self.status: int | None = None
        self.content_type = ""
        self.chunks: int | None = None
        self._response: httpx.Response | None = None
        self._pieces: AsyncIterator[bytes] | None = None
        self._left = deadline

    async def open(self) -> None:
        """Send the request and read the head; a status other than 2xx raises."""
        request = self.client.build_request(
            "POST", self.url, json=self.body, headers=self.headers, timeout=self.timeout
        )
        send = self.client.send
        response = await self._wait(lambda: send(request, stream=True, follow_redirects=False))
        self._response = response
        self._pieces = response.aiter_bytes()
        self.status = response.status_code
        self.content_type = response.headers.get("content-type", "").lower()
        if not 200 <= response.status_code < 300:
            await self.read_all()
            raise self._http_error(response)

    async def next_piece(self) -> bytes | None:
        """The next piece of the body as it arrives; ``None`` at its end."""
        assert self._pieces is not None, "open() first"
        pieces = self._pieces
        piece = await self._wait(lambda: anext(pieces, None))
        if piece is not None:
            self.raw += piece
        return piece

    async def read_all(self) -> bytes:
        """The whole body."""
        while await self.next_piece() is not None:
            pass
        return bytes(self.raw)

    async def drain(self, seconds: float) -> None:
        """Read the rest of a body whose answer is complete, for at most ``seconds``.

        A body read to its end lets httpx reuse the connection; a server that keeps it open
        costs at most ``seconds`` and the reuse, never the answer.
        """
        self._left = min(self._left, seconds)
        with contextlib.suppress(ProviderError):
            await self.read_all()

    async def close(self) -> None:
        """Release the connection (back to the pool when the body was read to its end)."""
        if self._response is not None:
            with contextlib.suppress(httpx.HTTPError):
                await self._response.aclose()

    def error(self, what: str) -> ProviderResponseError:
        """A ``ProviderResponseError`` about this response, with its status and raw bytes."""
        return ProviderResponseError(
            f"{self.where}: {what}", raw=bytes(self.raw), status=self.status
        )

    async def _wait(self, step: Callable[[], Awaitable[T]]) -> T:
        loop = asyncio.get_running_loop()
        started = loop.time()
        try:
            if self._left <= 0:
                raise asyncio.TimeoutError
            return await _within(self._left, step)
        except asyncio.TimeoutError:
            raise self._expired() from None
        except httpx.RequestError as exc:
            raise self._transport_error(exc) from exc
        finally:
            self._left -= loop.time() - started

    def _http_error(self, response: httpx.Response) -> ProviderHTTPError:
        status = response.status_code
        message = server_message(bytes(self.raw)) or response.reason_phrase or "no message"
        if 300 <= status < 400:
            target = response.headers.get("location") or "nowhere"
            message += f" (a redirect to {target}, not followed: check base_url)"
        return ProviderHTTPError(
            f"{self.where}: HTTP {status}: {message}",
            raw=bytes(self.raw),
            status=status,
            headers=response.headers,
            error_type=_error_type(bytes(self.raw)),
        )

    def _expired(self) -> ProviderTimeout:
        return ProviderTimeout(
            f"{self.where}: no complete response within {self.deadline:g}s "
            f"({len(self.raw)} bytes received)",
            raw=bytes(self.raw),
            status=self.status,
        )

    def _transport_error(self, exc: httpx.RequestError) -> ProviderError:
        where, raw, status = self.where, bytes(self.raw), self.status
        detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        if isinstance(exc, httpx.TimeoutException):
            waited = f"{self.timeout:g}s"
            what = f"no more data within {waited} after {len(raw)} bytes" if raw else ""
            return ProviderTimeout(
                f"{where}: {what or f'no answer within {waited}'} ({detail})",
                raw=raw,
                status=status,
            )
        if isinstance(exc, httpx.DecodingError):
            return ProviderResponseError(
                f"{where}: undecodable body ({detail})", raw=raw, status=status
            )
        if isinstance(exc, httpx.ConnectError):
            return ProviderConnectionError(f"{where}: could not connect ({detail})")
        after = "" if self.chunks is None else f" mid-stream after {self.chunks} chunks"
        return ProviderConnectionError(
            f"{where}: connection dropped{after} ({detail})", raw=raw, status=status
        )


async def _within(seconds: float, step: Callable[[], Awaitable[T]]) -> T:
    """``await step()``, or ``asyncio.TimeoutError`` after ``seconds``."""
    if sys.version_info >= (3, 11):
        async with asyncio.timeout(seconds):
            return await step()
    else:  # pragma: no cover - Python 3.10

        async def run() -> T:
            return await step()

        return await asyncio.wait_for(run(), seconds)


def _error_type(body: bytes) -> str | None:
    """The server's name for its error (``{"error": {"type": ...}}``), when its body has one."""
    try:
        error = json.loads(body).get("error")
    except (ValueError, AttributeError):
        return None
    kind = error.get("type") if isinstance(error, dict) else None
    return kind if isinstance(kind, str) else None


__all__ = ["Exchange"]
