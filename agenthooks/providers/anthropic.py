"""A native Anthropic Messages API provider over httpx.

Speaks ``POST {base_url}/v1/messages``, plain and streamed (SSE), in the
``anthropic-version: 2023-06-01`` wire format (bodies built in ``anthropic_request``, answers
read in ``anthropic_response``). Every failure raises a typed agenthooks error carrying the
status and the raw body; nothing is retried here (retries are middleware: the retry plugin
reads ``status``, ``headers`` and ``retryable``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Mapping
from typing import Any, NoReturn, TypeVar

import httpx

from ..errors import (
    ConfigError,
    ProviderConnectionError,
    ProviderError,
    ProviderHTTPError,
    ProviderResponseError,
    ProviderTimeout,
)
from ..messages import ProviderRequest, ProviderResponse
from .anthropic_output import answer_of
from .anthropic_request import request_body
from .anthropic_response import (
    RETRYABLE,
    JSONObject,
    StreamAssembler,
    bad,
    clip,
    parse_message,
    server_message,
)
from .base import StreamDelta, StreamItem
from .http import HTTPProvider
from .sse import SSEDecoder, SSEEvent

T = TypeVar("T")

API_VERSION = "2023-06-01"
_DRAIN_SECONDS = 1.0  # how long to wait for the end of the body after ``message_stop``


class AnthropicProvider(HTTPProvider):
    """A provider for the Anthropic Messages API.

    Use ``async with`` or ``await provider.aclose()`` to release its client.

    A request's ``response_format`` is offered as a tool the model must call (the API's
    structured-output idiom); that call comes back as the answer's text.

    Args:
        model: The default model; a request's own ``model`` wins.
        base_url: The API root; ``/v1/messages`` is appended.
        api_key: Sent as ``x-api-key``; falls back to the ``ANTHROPIC_API_KEY`` environment
            variable and may be absent (a local proxy).
        max_tokens: The cap on each answer's length.
        timeout: Seconds: a deadline for the whole response, streamed or not, from sending
            the request to its last byte.
        headers: Extra headers sent with every request.
        extra_body: Merged into every request body (``metadata``, ``top_k``, another
            ``thinking`` setting...).
        client: An ``httpx.AsyncClient`` to share; the provider closes only a client it
            created itself.
        name: The provider's name in events and errors.

    Raises:
        ConfigError: ``max_tokens`` is less than 1.
    """

    supports_response_format = True
    """This provider sends ``ProviderRequest.response_format`` natively (as a forced tool)."""

    def __init__(
        self,
        model: str,
        base_url: str = "https://api.anthropic.com",
        api_key: str | None = None,
        max_tokens: int = 4096,
        *,
        timeout: float = 600.0,
        headers: Mapping[str, str] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        client: httpx.AsyncClient | None = None,
        name: str = "anthropic",
    ) -> None:
        if max_tokens < 1:
            raise ConfigError(
                f"must be at least 1, got {max_tokens}",
                source="AnthropicProvider",
                key="max_tokens",
            )
        self.name = name
        self.model = model
        self.max_tokens = max_tokens
        self.base_url = base_url.rstrip("/")
        self.url = f"{self.base_url}/v1/messages"
        self.timeout = timeout
        self.extra_body = dict(extra_body or {})
        key = api_key if api_key is not None else os.environ.get("ANTHROPIC_API_KEY")
        self._headers = {"anthropic-version": API_VERSION}
        if key:
            self._headers["x-api-key"] = key
        self._headers.update(headers or {})
        self._owns_client = client is None
        self._client = client if client is not None else httpx.AsyncClient(timeout=timeout)

    def body(self, request: ProviderRequest, *, stream: bool = False) -> JSONObject:
        """The JSON body this provider sends for ``request``."""
        body = request_body(request, self.model, self.max_tokens, stream=stream)
        body.update(self.extra_body)
        return body

    async def complete(self, request: ProviderRequest) -> ProviderResponse:
        """POST the request and return the complete response, or raise a ``ProviderError``."""
        body = self.body(request)
        deadline = asyncio.get_running_loop().time() + self.timeout
        try:
            response = await _before(
                deadline,
                self._client.post(self.url, json=body, headers=self._headers, timeout=self.timeout),
            )
        except asyncio.TimeoutError:
            raise self._timeout(None, None) from None
        except httpx.RequestError as exc:
            self._raise_transport(exc, events=None, status=None)
        if response.status_code >= 400:
            raise self._http_error(response)
        payload = self._decode(response.content, status=response.status_code)
        answer = parse_message(payload, where=self._where, status=response.status_code)
        if request.response_format is not None:
            answer = answer_of(answer, request.response_format)[0]
        return answer

    async def stream(self, request: ProviderRequest) -> AsyncIterator[StreamItem]:
        """POST with ``stream: true``; yield ``StreamDelta`` per text delta, then the response."""
        body = self.body(request, stream=True)
        deadline = asyncio.get_running_loop().time() + self.timeout
        assembler = StreamAssembler(self._where)
        status: int | None = None
        outgoing = self._client.build_request(
            "POST",
            self.url,
            json=body,
            headers={"accept": "text/event-stream", **self._headers},
            timeout=self.timeout,
        )
        try:
            response = await _before(deadline, self._client.send(outgoing, stream=True))
            try:
                status = response.status_code
                if status >= 400:
                    await _before(deadline, response.aread())
                    raise self._http_error(response)
                assembler.status, assembler.headers = status, response.headers
                async with contextlib.aclosing(_sse_events(response.aiter_bytes())) as events:
                    while True:
                        try:
                            name, data = await _before(deadline, events.__anext__())
                        except StopAsyncIteration:
                            break
                        text = assembler.add(
                            self._decode(data, status=status, streamed=True, event=name)
                        )
                        if text:
                            yield StreamDelta(text)
                        if assembler.stopped:
                            await _drain(events, deadline)
                            break
            finally:
                await response.aclose()
        except asyncio.TimeoutError:
            raise self._timeout(assembler.events, status) from None
        except UnicodeDecodeError as exc:
            raise bad(
                self._where, f"stream is not UTF-8 text ({exc})", assembler.events, status
            ) from None
        except httpx.RequestError as exc:
            self._raise_transport(exc, events=assembler.events, status=status)
        answer = assembler.response()
        if request.response_format is not None:
            answer, from_tool = answer_of(answer, request.response_format)
            if from_tool and answer.content:  # the output tool's input streams as no text
                yield StreamDelta(answer.content)
        yield answer

    def _decode(
        self, data: str | bytes, *, status: int, streamed: bool = False, event: str | None = None
    ) -> JSONObject:
        kind = f"{event or 'stream'} event" if streamed else "response"
        try:  # UTF-8 strictly: json.loads would let an encoded surrogate through
            text = data.decode("utf-8").removeprefix("\ufeff") if isinstance(data, bytes) else data
            payload = json.loads(text)
        except ValueError as exc:
            raise bad(
                self._where, f"{kind} is not valid JSON ({exc}): {clip(data)}", data, status
            ) from None
        if not isinstance(payload, dict):
            raise bad(self._where, f"{kind} is not a JSON object: {clip(data)}", data, status)
        if event and "type" not in payload:
            payload["type"] = event
        return payload

    def _http_error(self, response: httpx.Response) -> ProviderHTTPError:
        status = response.status_code
        kind, message = server_message(response.content)
        detail = f"{kind}: " if kind else ""
        return ProviderHTTPError(
            f"{self._where}: HTTP {status}: {detail}{message or response.reason_phrase}",
            raw=response.content,
            status=status,
            headers=response.headers,
            error_type=kind,
            retryable=True if kind in RETRYABLE else None,
        )

    def _timeout(self, events: list[JSONObject] | None, status: int | None) -> ProviderTimeout:
        got = "" if events is None else f" ({len(events)} events received)"
        return ProviderTimeout(
            f"{self._where}: no complete answer within {self.timeout}s{got}",
            raw=events,
            status=status,
        )

    def _raise_transport(
        self, exc: httpx.RequestError, *, events: list[JSONObject] | None, status: int | None
    ) -> NoReturn:
        detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        error: ProviderError
        if isinstance(exc, httpx.TimeoutException):
            error = ProviderTimeout(
                f"{self._where}: no answer within {self.timeout}s ({detail})",
                raw=events,
                status=status,
            )
        elif isinstance(exc, httpx.DecodingError):
            error = ProviderResponseError(
                f"{self._where}: undecodable body ({detail})", raw=events, status=status
            )
        elif isinstance(exc, httpx.ConnectError):
            error = ProviderConnectionError(f"{self._where}: could not connect ({detail})")
        elif events is not None and status is not None:
            error = ProviderConnectionError(
                f"{self._where}: connection dropped mid-stream after {len(events)} events "
                f"({detail})",
                raw=events,
                status=status,
            )
        else:
            error = ProviderConnectionError(f"{self._where}: connection dropped ({detail})")
        raise error from exc


async def _before(deadline: float, awaitable: Awaitable[T]) -> T:
    """``awaitable``'s result, or ``asyncio.TimeoutError`` once the loop clock passes
    ``deadline``."""
    remaining = deadline - asyncio.get_running_loop().time()
    return await asyncio.wait_for(awaitable, max(remaining, 0.0))


async def _drain(events: AsyncIterator[tuple[str | None, str]], deadline: float) -> None:
    """Read what follows ``message_stop`` (normally just the end of the body), briefly.

    A fully read body lets httpx put the connection back in its pool; a server that keeps
    the stream open costs at most ``_DRAIN_SECONDS``, never the answer (already complete).
    """

    async def rest() -> None:
        async for _ in events:
            pass

    budget = min(_DRAIN_SECONDS, deadline - asyncio.get_running_loop().time())
    # the answer is complete: what follows it (even bytes that are not UTF-8) is not read
    with contextlib.suppress(asyncio.TimeoutError, httpx.HTTPError, UnicodeDecodeError):
        await asyncio.wait_for(rest(), max(budget, 0.0))


async def _sse_events(
    chunks: AsyncIterator[bytes],
) -> AsyncGenerator[tuple[str | None, str], None]:
    """``(event name, data)`` of each server-sent event of the body's bytes, decoded as UTF-8
    whatever the ``charset`` parameter says (``UnicodeDecodeError`` for bytes that are not);
    an event still open at the end is delivered (``sse.SSEDecoder``)."""
    decoder = SSEDecoder()
    async for chunk in chunks:
        for event in decoder.feed(chunk):
            yield _named(event)
    for event in decoder.end():
        yield _named(event)


def _named(event: SSEEvent) -> tuple[str | None, str]:
    return (None if event.event == "message" else event.event), event.data


__all__ = ["API_VERSION", "AnthropicProvider"]
