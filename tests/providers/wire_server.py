"""A real HTTP/1.1 server on 127.0.0.1 that answers like an OpenAI-compatible endpoint.

It runs its own asyncio loop in a background thread, so sync and async tests alike can use
it, and it speaks HTTP by hand so a reply can misbehave on purpose: cut a stream, drop the
socket, or never answer. Replies are scripted in a queue (one per request, in order);
``requests`` holds the JSON body of every request received.

    with WireServer() as server:
        server.reply(completion("hi"))
        provider = OpenAIChatProvider("m", base_url=server.url, timeout=2)

Helpers build the wire format: ``completion`` / ``tool_call`` (a ``chat.completion`` body),
``chunk`` / ``usage_chunk`` (stream chunks), and the replies ``json_reply``,
``error_reply``, ``raw_reply``, ``sse_reply``, ``raw_sse``, ``trickle``, ``keepalives``,
``hang``.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from typing_extensions import Self

JSON = dict[str, Any]


# ------------------------------------------------------------------------------ replies


@dataclass
class Reply:
    """One scripted HTTP answer.

    ``parts`` are written one after another (``delay`` seconds apart), as chunks when
    ``chunked``, else as one body with a Content-Length. ``end`` says how the reply ends:
    ``"close"`` finishes the message properly (keeping the connection), ``"drop"`` closes
    the socket right after the parts (no terminating chunk), ``"stall"`` sends the parts and
    then neither ends the body nor closes, ``"hang"`` sends nothing at all. A stalled or
    hanging reply waits until the client goes away or the server stops. ``forever``, when
    set, is sent after the parts every ``delay`` seconds until the client goes away.
    ``content_type=None`` sends no Content-Type; ``headers`` are added to the head.
    """

    status: int = 200
    parts: list[bytes] = field(default_factory=list)
    content_type: str | None = "application/json"
    chunked: bool = False
    end: Literal["close", "drop", "stall", "hang"] = "close"
    delay: float = 0.0
    forever: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def body(self) -> bytes:
        """The body bytes the parts make (what a client reads when nothing goes wrong)."""
        return b"".join(self.parts)


ReplySource = Reply | Callable[[JSON], Reply]
"""A reply, or a callable that builds one from the request's JSON body."""


def json_reply(body: Any, status: int = 200) -> Reply:
    """A JSON body with a Content-Length."""
    return Reply(status=status, parts=[json.dumps(body).encode()])


def raw_reply(
    body: bytes | str, status: int = 200, content_type: str = "application/json"
) -> Reply:
    """Exactly these bytes as the body (for malformed JSON and the like)."""
    data = body.encode() if isinstance(body, str) else body
    return Reply(status=status, parts=[data], content_type=content_type)


def error_reply(status: int, message: str, type_: str = "server_error") -> Reply:
    """An HTTP error with OpenAI's error body ``{"error": {"message", "type", ...}}``."""
    return json_reply({"error": {"message": message, "type": type_, "code": None}}, status)


def sse_reply(
    events: Iterable[JSON | str],
    *,
    done: bool = True,
    newline: str = "\n",
    comments: bool = False,
    end: Literal["close", "drop", "stall"] = "close",
    delay: float = 0.0,
) -> Reply:
    """A ``text/event-stream`` reply, one HTTP chunk per event.

    ``events`` are chunk objects (sent as ``data: <json>``) or raw strings sent as the data.
    ``done`` appends ``data: [DONE]``; ``newline="\\r\\n"`` switches line endings;
    ``comments`` sends ``: keep-alive`` comment lines before every event; ``end="drop"``
    closes the socket after the last event without ending the chunked body, ``"stall"``
    keeps it open.
    """
    parts: list[bytes] = []
    datas = [event if isinstance(event, str) else json.dumps(event) for event in events]
    if done:
        datas.append("[DONE]")
    for data in datas:
        comment = f": keep-alive{newline}{newline}" if comments else ""
        parts.append(f"{comment}data: {data}{newline}{newline}".encode())
    return Reply(parts=parts, content_type="text/event-stream", chunked=True, end=end, delay=delay)


def raw_sse(*parts: bytes | str, end: Literal["close", "drop", "stall"] = "close") -> Reply:
    """A ``text/event-stream`` reply of exactly these bytes, one HTTP chunk per part."""
    data = [part.encode() if isinstance(part, str) else part for part in parts]
    return Reply(parts=data, content_type="text/event-stream", chunked=True, end=end)


def trickle(reply: Reply, delay: float) -> Reply:
    """``reply`` sent one byte at a time, ``delay`` seconds apart."""
    body = reply.body
    parts = [body[i : i + 1] for i in range(len(body))]
    return replace(reply, parts=parts, delay=delay, chunked=True)


def keepalives(reply: Reply, delay: float, comment: bytes = b": keep-alive\n\n") -> Reply:
    """``reply``'s parts, then an SSE comment every ``delay`` seconds, never ending."""
    return replace(reply, forever=comment, delay=delay, end="stall")


def hang() -> Reply:
    """Read the request and never answer (the client's timeout must fire)."""
    return Reply(end="hang")


# ------------------------------------------------------------------------- wire format


def tool_call(id: str, name: str, arguments: Any) -> JSON:
    """One tool call as the API sends it; ``arguments`` is JSON-encoded unless a str."""
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": id, "type": "function", "function": {"name": name, "arguments": text}}


def completion(
    content: str | None = None,
    *,
    tool_calls: list[JSON] | None = None,
    finish_reason: str | None = "stop",
    usage: tuple[int, int] | None = (10, 5),
    model: str = "test-model",
) -> JSON:
    """A ``chat.completion`` body with one choice; ``usage`` is (prompt, completion) tokens."""
    message: JSON = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    body: JSON = {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 1700000000,
        "model": model,
        "choices": [
            {"index": 0, "message": message, "logprobs": None, "finish_reason": finish_reason}
        ],
    }
    if usage is not None:
        body["usage"] = _usage(*usage)
    return body


def chunk(
    content: str | None = None,
    *,
    tool_calls: list[JSON] | None = None,
    finish_reason: str | None = None,
    role: str | None = None,
) -> JSON:
    """One ``chat.completion.chunk`` with a delta (tool-call deltas carry their ``index``)."""
    delta: JSON = {}
    if role is not None:
        delta["role"] = role
    if content is not None:
        delta["content"] = content
    if tool_calls is not None:
        delta["tool_calls"] = tool_calls
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": "test-model",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
        "usage": None,
    }


def usage_chunk(prompt_tokens: int = 10, completion_tokens: int = 5) -> JSON:
    """The last chunk when ``include_usage`` is set: empty ``choices``, the usage."""
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": "test-model",
        "choices": [],
        "usage": _usage(prompt_tokens, completion_tokens),
    }


def text_stream(text: str, *, finish_reason: str = "stop", usage: bool = True) -> Reply:
    """A streamed answer of ``text`` split into words, with a finish chunk and usage."""
    events = [chunk(role="assistant", content="")]
    events += [chunk(word) for word in _words(text)]
    events.append(chunk(finish_reason=finish_reason))
    if usage:
        events.append(usage_chunk())
    return sse_reply(events)


def _usage(prompt: int, completion: int) -> JSON:
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def _words(text: str) -> list[str]:
    words = text.split(" ")
    return [word + " " for word in words[:-1]] + [words[-1]]


# ------------------------------------------------------------------------------- server


@dataclass
class Received:
    """One request as the server read it."""

    method: str
    path: str
    headers: dict[str, str]  # lower-cased names
    body: bytes

    @property
    def json(self) -> Any:
        """The body decoded as JSON."""
        return json.loads(self.body)


class WireServer:
    """An HTTP/1.1 server on an ephemeral port of 127.0.0.1, answering from a reply queue.

    ``start()`` / ``stop()``, or use it as a context manager. ``url`` is the base URL
    (``http://127.0.0.1:PORT/v1``). When the queue is empty a request gets HTTP 500 with an
    error body saying so, never a hang.
    """

    def __init__(self) -> None:
        self.received: list[Received] = []
        self._replies: deque[ReplySource] = deque()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self.port = 0
        self.connections = 0  # TCP connections accepted (keep-alive reuse shows here)

    @property
    def url(self) -> str:
        """The base URL to give a provider."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def requests(self) -> list[Any]:
        """The JSON body of every request received, in order."""
        return [r.json for r in self.received]

    def reply(self, *replies: ReplySource) -> Self:
        """Queue replies, answered one per request in order; returns the server."""
        self._replies.extend(replies)
        return self

    def start(self) -> Self:
        """Start the server thread and wait until it listens."""
        ready = threading.Event()
        failure: list[OSError] = []

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            try:
                self._server = loop.run_until_complete(
                    asyncio.start_server(self._handle, "127.0.0.1", 0)
                )
                self.port = self._server.sockets[0].getsockname()[1]
            except OSError as exc:  # reported to start()'s caller
                failure.append(exc)
                ready.set()
                loop.close()
                return
            ready.set()
            loop.run_forever()
            loop.close()

        self._thread = threading.Thread(target=run, name="wire-server", daemon=True)
        self._thread.start()
        ready.wait(10)
        if failure:
            raise failure[0]
        return self

    def stop(self) -> None:
        """Close the listener and every open connection, then end the thread."""
        loop, thread = self._loop, self._thread
        if loop is None or thread is None or not thread.is_alive():
            return
        asyncio.run_coroutine_threadsafe(self._shutdown(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    async def _shutdown(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        self.connections += 1
        try:
            while await self._serve_one(reader, writer):
                pass
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            self._tasks.discard(task)
            writer.close()

    async def _serve_one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        """Answer one request; False when the connection must end."""
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError:
            return False  # the client closed an idle keep-alive connection
        request_line, *header_lines = head.decode("latin-1").split("\r\n")
        method, path, _ = request_line.split(" ", 2)
        headers = {}
        for line in header_lines:
            if line:
                key, _, value = line.partition(":")
                headers[key.strip().lower()] = value.strip()
        body = await reader.readexactly(int(headers.get("content-length", "0")))
        self.received.append(Received(method, path, headers, body))
        reply = self._next_reply(body)
        if reply.end != "hang":
            await self._write(reader, writer, reply)
        if reply.end in ("hang", "stall"):
            await reader.read()  # until the client gives up
        return reply.end == "close"

    def _next_reply(self, body: bytes) -> Reply:
        if not self._replies:
            return error_reply(500, "wire_server: no scripted reply left for this request")
        source = self._replies.popleft()
        return source if isinstance(source, Reply) else source(json.loads(body))

    async def _write(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, reply: Reply
    ) -> None:
        head = [f"HTTP/1.1 {reply.status} {_REASONS.get(reply.status, 'Status')}"]
        if reply.content_type is not None:
            head.append(f"Content-Type: {reply.content_type}")
        head += [f"{name}: {value}" for name, value in reply.headers.items()]
        if reply.chunked:
            head.append("Transfer-Encoding: chunked")
        else:
            head.append(f"Content-Length: {sum(len(part) for part in reply.parts)}")
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1"))
        for part in reply.parts:
            if reply.delay:
                await asyncio.sleep(reply.delay)
            writer.write(b"%x\r\n%s\r\n" % (len(part), part) if reply.chunked else part)
            await writer.drain()
        if reply.chunked and reply.end == "close":
            writer.write(b"0\r\n\r\n")
        await writer.drain()
        while reply.forever and not reader.at_eof():
            await asyncio.sleep(reply.delay)
            chunk = reply.forever
            writer.write(b"%x\r\n%s\r\n" % (len(chunk), chunk) if reply.chunked else chunk)
            await writer.drain()


_REASONS = {
    200: "OK",
    204: "No Content",
    301: "Moved Permanently",
    302: "Found",
    307: "Temporary Redirect",
    308: "Permanent Redirect",
    400: "Bad Request",
    401: "Unauthorized",
    404: "Not Found",
    429: "Too Many Requests",
    500: "Internal Server Error",
    503: "Service Unavailable",
}
