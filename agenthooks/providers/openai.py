"""An OpenAI-compatible Chat Completions provider over httpx.

Speaks the wire format of ``POST {base_url}/chat/completions``, plain and streamed (SSE), so
it works with OpenAI and with the local servers that copy its API. Every failure raises a
typed agenthooks error carrying the raw body or status; nothing is retried here (retries
are middleware).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import TYPE_CHECKING, Any, NoReturn

import httpx

from ..errors import (
    ProviderConnectionError,
    ProviderError,
    ProviderHTTPError,
    ProviderResponseError,
    ProviderTimeout,
)
from ..messages import ChatMessage, ProviderRequest, ProviderResponse, ToolCall, Usage
from .base import StreamDelta, StreamItem

if TYPE_CHECKING:
    from typing_extensions import Self

JSONObject = dict[str, Any]

_DRAIN_SECONDS = 1.0  # how long to wait for the end of the body after ``[DONE]``


class OpenAIChatProvider:
    """A provider for any server speaking the OpenAI Chat Completions API.

    ``model`` is the default model (a request's own ``model`` wins). ``api_key`` falls back
    to the ``OPENAI_API_KEY`` environment variable and may be absent (local servers).
    ``timeout`` (seconds) applies to every HTTP call: connecting, sending, and each read,
    so a stream that stalls longer than that raises ``ProviderTimeout``. Pass ``client`` to
    share an ``httpx.AsyncClient``; the provider closes only a client it created itself.
    Use ``async with`` or ``await provider.aclose()`` to release it.
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str = "https://api.openai.com/v1",
        api_key: str | None = None,
        timeout: float = 60.0,
        headers: Mapping[str, str] | None = None,
        client: httpx.AsyncClient | None = None,
        name: str = "openai",
    ) -> None:
        self.name = name
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.url = f"{self.base_url}/chat/completions"
        self.timeout = timeout
        key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        self._headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._headers.update(headers or {})
        self._owns_client = client is None
        self._client = client if client is not None else httpx.AsyncClient(timeout=timeout)

    async def complete(self, request: ProviderRequest) -> ProviderResponse:
        """POST the request and return the complete response, or raise a ``ProviderError``."""
        body = request_body(request, self.model)
        try:
            response = await self._client.post(
                self.url, json=body, headers=self._headers, timeout=self.timeout
            )
        except httpx.RequestError as exc:
            self._raise_transport(exc, chunks=None)
        if response.status_code >= 400:
            raise self._http_error(response)
        payload = self._decode(response.content, status=response.status_code)
        return parse_completion(payload, where=self._where)

    async def stream(self, request: ProviderRequest) -> AsyncIterator[StreamItem]:
        """POST with ``stream: true``; yield ``StreamDelta`` per text delta, then the response."""
        body = request_body(request, self.model, stream=True)
        assembler = _StreamAssembler(self._where)
        try:
            async with self._client.stream(
                "POST",
                self.url,
                json=body,
                headers={"Accept": "text/event-stream", **self._headers},
                timeout=self.timeout,
            ) as response:
                if response.status_code >= 400:
                    await response.aread()
                    raise self._http_error(response)
                async with contextlib.aclosing(_sse_data(response.aiter_lines())) as events:
                    async for data in events:
                        if data == "[DONE]":
                            assembler.done = True
                            await _drain(events)
                            break
                        chunk = self._decode(data, status=response.status_code, streamed=True)
                        text = assembler.add(chunk)
                        if text:
                            yield StreamDelta(text)
        except httpx.RequestError as exc:
            self._raise_transport(exc, chunks=assembler.chunks)
        yield assembler.response()

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
        return f"OpenAIChatProvider(model={self.model!r}, base_url={self.base_url!r})"

    @property
    def _where(self) -> str:
        return f"{self.name} (POST {self.url})"

    def _decode(self, data: str | bytes, *, status: int, streamed: bool = False) -> JSONObject:
        try:
            payload = json.loads(data)
        except ValueError as exc:
            kind = "stream chunk" if streamed else "response"
            raise ProviderResponseError(
                f"{self._where}: {kind} is not valid JSON ({exc}): {_clip(data)}",
                raw=data,
                status=status,
            ) from None
        if not isinstance(payload, dict):
            raise ProviderResponseError(
                f"{self._where}: expected a JSON object, got {_clip(data)}", raw=data, status=status
            )
        return payload

    def _http_error(self, response: httpx.Response) -> ProviderHTTPError:
        status = response.status_code
        message = _server_message(response.content) or response.reason_phrase or "no message"
        return ProviderHTTPError(
            f"{self._where}: HTTP {status}: {message}", raw=response.content, status=status
        )

    def _raise_transport(
        self, exc: httpx.RequestError, *, chunks: list[JSONObject] | None
    ) -> NoReturn:
        detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        error: ProviderError
        if isinstance(exc, httpx.TimeoutException):
            error = ProviderTimeout(
                f"{self._where}: no answer within {self.timeout}s ({detail})", raw=chunks
            )
        elif isinstance(exc, httpx.DecodingError):
            error = ProviderResponseError(f"{self._where}: undecodable body ({detail})", raw=chunks)
        elif isinstance(exc, httpx.ConnectError):
            error = ProviderConnectionError(f"{self._where}: could not connect ({detail})")
        elif chunks is not None:
            error = ProviderConnectionError(
                f"{self._where}: connection dropped mid-stream after {len(chunks)} "
                f"chunks ({detail})",
                raw=chunks,
            )
        else:
            error = ProviderConnectionError(f"{self._where}: connection dropped ({detail})")
        raise error from exc


# ---------------------------------------------------------------------------- request


def request_body(request: ProviderRequest, model: str, *, stream: bool = False) -> JSONObject:
    """The JSON body of a Chat Completions call for ``request`` (``model`` if it names none)."""
    messages = [message_to_wire(m) for m in request.messages]
    if request.system is not None:
        messages.insert(0, {"role": "system", "content": request.system})
    body: JSONObject = {"model": request.model or model, "messages": messages}
    if request.tools:
        body["tools"] = [tool_to_wire(tool) for tool in request.tools]
    if request.tool_choice is not None:
        body["tool_choice"] = request.tool_choice
    if request.temperature is not None:
        body["temperature"] = request.temperature
    if request.reasoning_effort is not None:
        body["reasoning_effort"] = request.reasoning_effort
    if stream:
        body["stream"] = True
        body["stream_options"] = {"include_usage": True}
    return body


def message_to_wire(message: ChatMessage) -> JSONObject:
    """One ``ChatMessage`` as an OpenAI chat message."""
    if message.role == "tool":
        return {
            "role": "tool",
            "tool_call_id": message.tool_call_id,
            "content": message.content or "",
        }
    wire: JSONObject = {"role": message.role}
    if message.tool_calls:
        # null content is the API's own form for an assistant message that only calls tools
        wire["content"] = message.content
        wire["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
            }
            for call in message.tool_calls
        ]
    else:
        wire["content"] = message.content or ""
    if message.name is not None:
        wire["name"] = message.name
    return wire


def tool_to_wire(tool: Mapping[str, Any]) -> JSONObject:
    """A tool schema in the Chat Completions form ``{"type": "function", "function": {...}}``.

    Accepts that form as is, a bare ``{"name", "description", "parameters"}`` function schema,
    or the flat ``{"type": "function", "name", ...}`` form, and wraps the last two.
    """
    if "function" in tool or ("type" in tool and tool["type"] != "function"):
        return dict(tool)
    function = {key: value for key, value in tool.items() if key != "type"}
    return {"type": "function", "function": function}


# --------------------------------------------------------------------------- response


def parse_completion(payload: JSONObject, *, where: str = "openai") -> ProviderResponse:
    """A non-streamed ``chat.completion`` body as a ``ProviderResponse`` (``raw`` = payload)."""
    choice = _first_choice(payload, where)
    message = choice.get("message")
    if not isinstance(message, dict):
        raise _bad(where, "choices[0] has no message object", payload)
    finish_reason = choice.get("finish_reason")
    if not isinstance(finish_reason, str) or not finish_reason:
        raise _bad(where, "choices[0] has no finish_reason: the response is incomplete", payload)
    content = message.get("content")
    if content is not None and not isinstance(content, str):
        raise _bad(where, f"message content is not a string: {_clip(content)}", payload)
    calls = message.get("tool_calls") or []
    if not isinstance(calls, list):
        raise _bad(where, f"message tool_calls is not a list: {_clip(calls)}", payload)
    tool_calls = [_parse_tool_call(call, index, where, payload) for index, call in enumerate(calls)]
    return ProviderResponse(
        content=content,
        tool_calls=tool_calls,
        finish_reason=finish_reason,
        usage=parse_usage(payload.get("usage")),
        raw=payload,
    )


def parse_usage(usage: Any) -> Usage:
    """OpenAI ``usage`` (prompt/completion/total tokens) as a ``Usage``; zeros when absent."""
    if not isinstance(usage, dict):
        return Usage()
    input_tokens = _int(usage.get("prompt_tokens"))
    output_tokens = _int(usage.get("completion_tokens"))
    total = usage.get("total_tokens")
    return Usage(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        total_tokens=_int(total) if total is not None else input_tokens + output_tokens,
    )


def _first_choice(payload: JSONObject, where: str) -> JSONObject:
    choices = payload.get("choices")
    if not isinstance(choices, list) or not choices:
        server = _server_message(payload)
        detail = f" (server says: {server})" if server else ""
        raise _bad(where, f"response has no choices{detail}", payload)
    choice = choices[0]
    if not isinstance(choice, dict):
        raise _bad(where, f"choices[0] is not an object: {_clip(choice)}", payload)
    return choice


def _parse_tool_call(call: Any, index: int, where: str, raw: Any) -> ToolCall:
    if not isinstance(call, dict) or not isinstance(call.get("function"), dict):
        raise _bad(where, f"tool_calls[{index}] has no function object: {_clip(call)}", raw)
    function = call["function"]
    name = function.get("name")
    if not isinstance(name, str) or not name:
        raise _bad(where, f"tool_calls[{index}] has no function name", raw)
    arguments = _decode_arguments(function.get("arguments"), name, where, raw)
    return ToolCall(id=_call_id(call.get("id"), index), name=name, arguments=arguments)


def _decode_arguments(arguments: Any, name: str, where: str, raw: Any) -> dict[str, Any]:
    """A tool call's JSON arguments string as a dict ("" and null read as no arguments)."""
    if arguments is None or arguments == "":
        return {}
    if isinstance(arguments, dict):  # some compatible servers send the object itself
        return arguments
    try:
        decoded = json.loads(arguments) if isinstance(arguments, str) else None
    except ValueError as exc:
        raise _bad(
            where,
            f"tool call {name!r} has arguments that are not JSON ({exc}): {_clip(arguments)}",
            raw,
        ) from None
    if not isinstance(decoded, dict):
        raise _bad(
            where,
            f"tool call {name!r} has arguments that are not a JSON object: {_clip(arguments)}",
            raw,
        )
    return decoded


def _call_id(value: Any, index: int) -> str:
    # a few compatible servers omit ids; the tool message must still name the call
    return value if isinstance(value, str) and value else f"call_{index}"


@dataclass
class _ToolCallParts:
    """One tool call as its deltas arrive: id and name once, arguments in pieces."""

    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


class _StreamAssembler:
    """Folds ``chat.completion.chunk`` objects into one ``ProviderResponse``."""

    def __init__(self, where: str) -> None:
        self.where = where
        self.chunks: list[JSONObject] = []  # every decoded chunk, in order: the response's raw
        self.done = False
        self._text: list[str] = []
        self._calls: dict[int, _ToolCallParts] = {}
        self._finish_reason: str | None = None
        self._usage: Usage | None = None

    def add(self, chunk: JSONObject) -> str:
        """Fold in one chunk; return its text delta ("" when it carries none)."""
        self.chunks.append(chunk)
        if "error" in chunk:
            message = _server_message(chunk) or _clip(chunk["error"])
            raise _bad(self.where, f"server sent an error mid-stream: {message}", self.chunks)
        if isinstance(chunk.get("usage"), dict):
            self._usage = parse_usage(chunk["usage"])
        text = ""
        for choice in chunk.get("choices") or []:  # the usage-only chunk has none
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or {}
            content = delta.get("content")
            if isinstance(content, str) and content:
                self._text.append(content)
                text += content
            for position, call in enumerate(delta.get("tool_calls") or []):
                self._add_call_delta(call, position)
            if isinstance(choice.get("finish_reason"), str):
                self._finish_reason = choice["finish_reason"]
        return text

    def _add_call_delta(self, delta: Any, position: int) -> None:
        if not isinstance(delta, dict):
            raise _bad(self.where, f"tool call delta is not an object: {_clip(delta)}", self.chunks)
        index = delta.get("index", position)
        parts = self._calls.setdefault(index, _ToolCallParts())
        if delta.get("id"):
            parts.id = delta["id"]
        function = delta.get("function") or {}
        if function.get("name"):
            parts.name = function["name"]
        if isinstance(function.get("arguments"), str):
            parts.arguments.append(function["arguments"])

    def response(self) -> ProviderResponse:
        """The assembled response; raises if the stream ended before a finish reason."""
        if not self._finish_reason:
            missing = "a finish_reason" if self.done else "a finish_reason or [DONE]"
            raise _bad(
                self.where,
                f"stream ended without {missing} after {len(self.chunks)} chunks: "
                "the response is incomplete",
                self.chunks,
            )
        calls = []
        for position, (index, parts) in enumerate(sorted(self._calls.items())):
            if not parts.name:
                raise _bad(self.where, f"streamed tool call {index} has no name", self.chunks)
            text = "".join(parts.arguments)
            arguments = _decode_arguments(text, parts.name, self.where, self.chunks)
            calls.append(
                ToolCall(id=_call_id(parts.id, position), name=parts.name, arguments=arguments)
            )
        return ProviderResponse(
            content="".join(self._text) if self._text else None,
            tool_calls=calls,
            finish_reason=self._finish_reason,
            usage=self._usage or Usage(),
            raw=self.chunks,
        )


async def _drain(events: AsyncIterator[str]) -> None:
    """Read what follows ``[DONE]`` (normally just the end of the body), briefly.

    A fully read body lets httpx put the connection back in its pool; a server that keeps
    the stream open after ``[DONE]`` costs at most ``_DRAIN_SECONDS`` and the reuse, never
    the answer, which is already complete.
    """

    async def rest() -> None:
        async for _ in events:
            pass

    with contextlib.suppress(asyncio.TimeoutError, httpx.HTTPError):
        await asyncio.wait_for(rest(), _DRAIN_SECONDS)


async def _sse_data(lines: AsyncIterator[str]) -> AsyncGenerator[str, None]:
    """The ``data`` of each server-sent event (``\\r\\n`` handled by httpx's line reader).

    Comment lines (``:``) and other fields are skipped; multi-line data is joined with
    ``\\n``; an event still open when the body ends is delivered too.
    """
    data: list[str] = []
    async for line in lines:
        if not line:
            if data:
                yield "\n".join(data)
                data = []
        elif line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
    if data:
        yield "\n".join(data)


# ------------------------------------------------------------------------------ helpers


def _server_message(body: Any) -> str | None:
    """The server's error message from ``{"error": {"message": ...}}`` and common variants."""
    if isinstance(body, (bytes, str)):
        try:
            body = json.loads(body)
        except ValueError:
            text = body.decode(errors="replace") if isinstance(body, bytes) else body
            return _clip(text.strip()) or None
    if not isinstance(body, dict):
        return None
    error = body.get("error")
    if isinstance(error, dict):
        error = error.get("message")
    if isinstance(error, str):
        return error
    message = body.get("message") or body.get("detail")
    return message if isinstance(message, str) else None


def _bad(where: str, what: str, raw: Any) -> ProviderResponseError:
    return ProviderResponseError(f"{where}: {what}", raw=raw)


def _int(value: Any) -> int:
    return value if isinstance(value, int) else 0


def _clip(value: Any, limit: int = 200) -> str:
    text = (
        value
        if isinstance(value, str)
        else (value.decode(errors="replace") if isinstance(value, bytes) else json.dumps(value))
    )
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} chars)"


__all__ = [
    "OpenAIChatProvider",
    "message_to_wire",
    "parse_completion",
    "parse_usage",
    "request_body",
    "tool_to_wire",
]
