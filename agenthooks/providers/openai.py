"""An OpenAI-compatible Chat Completions provider over httpx.

Speaks the wire format of ``POST {base_url}/chat/completions``, plain and streamed (SSE), so
it works with OpenAI and with the local servers that copy its API. One call sends one HTTP
request: nothing is retried here (retries are middleware) and redirects are not followed.

Every failure raises a typed ``ProviderError`` with ``status`` (the HTTP status, when one
arrived) and ``raw`` (the body bytes received so far):

- ``ProviderHTTPError``: any status other than 2xx, a redirect included, with the server's
  message (and, for a redirect, where it pointed);
- ``ProviderResponseError``: a body that is not a complete completion: empty, not JSON, not
  UTF-8, the server's own ``{"error": ...}`` (at the start or mid-stream, with its message),
  a field of the wrong shape, or a stream that ends without a finish reason;
- ``ProviderTimeout``: no data for ``timeout`` seconds, or the whole response not complete
  within ``response_timeout`` (``3 × timeout`` unless given), so keepalive comments sent
  forever or a body trickled byte by byte end too;
- ``ProviderConnectionError``: could not connect, or the connection dropped.

A stream yields its text deltas as they arrive; a stream that then fails raises instead of
ending with a response, so a caller never gets a partial response. A server that answers a
streamed request with a plain JSON completion is read as one.

Plain and streamed answers go through one parser (``openai_response``), so they agree. Its
choices: ``content`` sent as a list of text parts is joined; object-shaped ``arguments`` are
kept as given; a streamed call that brings a new id on an index already in use is kept
beside the first, never replaces it; argument text that is not a JSON object is the model's
mistake, returned as the call's ``raw_arguments`` with ``arguments={}`` for the runtime to
answer with a tool error, never raised.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Mapping
from typing import Any

import httpx

from ..messages import ProviderRequest, ProviderResponse
from .base import StreamDelta, StreamItem
from .error_text import clip_text, server_message
from .exchange import Exchange
from .http import HTTPProvider
from .openai_request import message_to_wire, request_body, tool_to_wire
from .openai_response import (
    Assembler,
    ServerErrorBody,
    ShapeError,
    parse_completion,
    parse_usage,
    read_completion,
)
from .sse import SSEDecoder, SSEEvent

_DRAIN_SECONDS = 1.0  # how long to wait for the end of the body after ``[DONE]``
_RESPONSE_TIMEOUTS = 3  # the whole response may take this many times ``timeout``


class OpenAIChatProvider(HTTPProvider):
    """A provider for any server speaking the OpenAI Chat Completions API.

    Use ``async with`` or ``await provider.aclose()`` to release its client.

    A request's ``response_format`` goes out as ``response_format: {"type": "json_schema"}``
    (structured outputs); for a server without it, set ``supports_response_format = False``
    on the instance and the runtime states the schema in the instructions instead.

    Args:
        model: The default model; a request's own ``model`` wins.
        base_url: The API root; ``/chat/completions`` is appended.
        api_key: Sent as a bearer token; falls back to the ``OPENAI_API_KEY`` environment
            variable and may be absent (local servers).
        timeout: Seconds that bound every wait: connecting, sending, and each read.
        response_timeout: Seconds that bound the whole response, from sending the request to
            its last byte (time a stream's consumer spends between deltas does not count);
            defaults to ``3 × timeout``.
        headers: Extra headers sent with every request.
        client: An ``httpx.AsyncClient`` to share; the provider closes only a client it
            created itself.
        name: The provider's name in events and errors.
    """

    supports_response_format = True
    """This provider sends ``ProviderRequest.response_format`` natively."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str = "https://api.openai.com/v1",
        api_key: str | None = None,
        timeout: float = 60.0,
        response_timeout: float | None = None,
        headers: Mapping[str, str] | None = None,
        client: httpx.AsyncClient | None = None,
        name: str = "openai",
    ) -> None:
        self.name = name
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.url = f"{self.base_url}/chat/completions"
        self.timeout = timeout
        self.response_timeout = (
            response_timeout if response_timeout is not None else _RESPONSE_TIMEOUTS * timeout
        )
        key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        self._headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._headers.update(headers or {})
        self._owns_client = client is None
        self._client = client if client is not None else httpx.AsyncClient(timeout=timeout)

    async def complete(self, request: ProviderRequest) -> ProviderResponse:
        """POST the request and return the complete response, or raise a ``ProviderError``."""
        exchange = self._exchange(request_body(request, self.model))
        try:
            await exchange.open()
            await exchange.read_all()
        finally:
            await exchange.close()
        return _completion(exchange)

    async def stream(self, request: ProviderRequest) -> AsyncIterator[StreamItem]:
        """POST with ``stream: true``; yield ``StreamDelta`` per text delta, then the response."""
        exchange = self._exchange(request_body(request, self.model, stream=True), streamed=True)
        try:
            await exchange.open()
            if "json" in exchange.content_type:  # the server ignored ``stream: true``
                await exchange.read_all()
                response = _completion(exchange)
                if response.content:
                    yield StreamDelta(response.content)
            else:
                reader = _StreamReader(exchange)
                while (texts := await reader.next_texts()) is not None:
                    for text in texts:
                        yield StreamDelta(text)
                response = reader.response()
        finally:
            await exchange.close()
        yield response

    def _exchange(self, body: dict[str, Any], *, streamed: bool = False) -> Exchange:
        accept = {"Accept": "text/event-stream"} if streamed else {}
        return Exchange(
            self._client,
            self.url,
            body,
            headers={**accept, **self._headers},
            timeout=self.timeout,
            deadline=self.response_timeout,
            where=self._where,
        )


def _completion(exchange: Exchange) -> ProviderResponse:
    """The body read by ``exchange``, a plain ``chat.completion``, as the response."""
    body = bytes(exchange.raw)
    if not body.strip():
        raise exchange.error(f"HTTP {exchange.status} with an empty body")
    try:  # UTF-8 strictly, as a stream is read: json.loads lets an encoded surrogate through
        payload = json.loads(body.decode("utf-8").removeprefix("\ufeff"))
    except (ValueError, RecursionError) as exc:
        raise exchange.error(f"response is not valid JSON ({exc}): {clip_text(body)}") from None
    try:
        return read_completion(payload)
    except ServerErrorBody as exc:
        raise exchange.error(f"server sent an error instead of a completion: {exc}") from None
    except ShapeError as exc:
        raise exchange.error(str(exc)) from None


class _StreamReader:
    """Reads a ``text/event-stream`` body into text deltas and, at its end, the response."""

    def __init__(self, exchange: Exchange) -> None:
        self.exchange = exchange
        self.assembler = Assembler()
        self.chunks: list[Any] = []  # every decoded chunk, in order: the response's raw
        self.done = False  # ``[DONE]`` arrived
        self.ended = False  # nothing more to read
        self._decoder = SSEDecoder()
        self._events = 0
        exchange.chunks = 0

    async def next_texts(self) -> list[str] | None:
        """The text deltas of the next piece of the body; ``None`` once the stream ended."""
        if self.ended:
            return None
        piece = await self.exchange.next_piece()
        try:
            events = self._decoder.feed(piece) if piece is not None else self._decoder.end()
        except UnicodeDecodeError as exc:
            raise self.exchange.error(f"stream is not UTF-8 text ({exc})") from None
        texts = []
        for event in events:
            if text := self._read(event):
                texts.append(text)
            if self.done:
                await self.exchange.drain(_DRAIN_SECONDS)
                break
        self.ended = self.done or piece is None
        return texts

    def response(self) -> ProviderResponse:
        """The assembled response; raises if the stream ended before a finish reason."""
        if self.assembler.finish_reason is None:
            raise self.exchange.error(self._incomplete())
        try:
            return self.assembler.response(raw=self.chunks)
        except ShapeError as exc:
            raise self.exchange.error(f"{exc} (end of stream)") from None

    def _read(self, event: SSEEvent) -> str:
        self._events += 1
        if event.event == "error":
            message = server_message(event.data) or "no message"
            raise self.exchange.error(f"server sent an error mid-stream: {message}")
        if event.data.strip() == "[DONE]":
            self.done = True
            return ""
        number = len(self.chunks) + 1
        try:
            chunk = json.loads(event.data)
        except (ValueError, RecursionError) as exc:
            raise self.exchange.error(
                f"stream chunk is not valid JSON ({exc}): {clip_text(event.data)} "
                f"(stream chunk {number})"
            ) from None
        self.chunks.append(chunk)
        self.exchange.chunks = len(self.chunks)
        try:
            return self.assembler.add_chunk(chunk)
        except ServerErrorBody as exc:
            raise self.exchange.error(f"server sent an error mid-stream: {exc}") from None
        except ShapeError as exc:
            raise self.exchange.error(f"{exc} (stream chunk {number})") from None

    def _incomplete(self) -> str:
        if self._events:
            missing = "a finish_reason" if self.done else "a finish_reason or [DONE]"
            return (
                f"stream ended without {missing} after {len(self.chunks)} chunks: "
                "the response is incomplete"
            )
        raw = bytes(self.exchange.raw)
        if not raw.strip():
            return f"HTTP {self.exchange.status} with an empty body"
        said = server_message(raw)
        return f"stream ended without any event; the body was: {said or clip_text(raw)}"


__all__ = [
    "OpenAIChatProvider",
    "message_to_wire",
    "parse_completion",
    "parse_usage",
    "request_body",
    "tool_to_wire",
]
