"""A loopback Anthropic Messages API endpoint for the ``AnthropicProvider`` tests.

``AnthropicServer`` is the OpenAI tests' ``WireServer`` (a real HTTP/1.1 server on
127.0.0.1 that can cut, drop or stall a reply on purpose) with response headers added, and
every body it sends is built from the official ``anthropic`` package's own types:

    with AnthropicServer() as server:
        server.reply(message_reply(message(text("hi"))))
        provider = AnthropicProvider("claude-test", base_url=server.base_url)

``message`` builds an ``anthropic.types.Message``; ``events_of`` turns one into the event
sequence the API streams for it (text split in words, tool input JSON split in pieces,
thinking and its signature in deltas); ``sse`` sends events; ``error_reply`` an error body.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any, Literal

import anthropic.types as A
from anthropic.lib.streaming._messages import accumulate_event
from anthropic.types.raw_message_delta_event import Delta
from pydantic import BaseModel
from wire_server import Reply, WireServer

Block = A.TextBlock | A.ToolUseBlock | A.ThinkingBlock | A.RedactedThinkingBlock

_REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    429: "Too Many Requests",
    500: "Internal Server Error",
    529: "Overloaded",
}


class AnthropicServer(WireServer):
    """``WireServer`` answering at ``base_url`` (``http://127.0.0.1:PORT``)."""

    @property
    def base_url(self) -> str:
        """The base URL to give an ``AnthropicProvider``."""
        return f"http://127.0.0.1:{self.port}"


# ------------------------------------------------------------------------- the types


def text(value: str) -> A.TextBlock:
    return A.TextBlock(type="text", text=value)


def tool_use(id: str, name: str, input: dict[str, Any]) -> A.ToolUseBlock:
    return A.ToolUseBlock(type="tool_use", id=id, name=name, input=input)


def thinking(value: str, signature: str) -> A.ThinkingBlock:
    return A.ThinkingBlock(type="thinking", thinking=value, signature=signature)


def redacted(data: str) -> A.RedactedThinkingBlock:
    return A.RedactedThinkingBlock(type="redacted_thinking", data=data)


def usage(
    input_tokens: int = 10,
    output_tokens: int = 5,
    *,
    read: int | None = None,
    write: int | None = None,
) -> A.Usage:
    return A.Usage(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        cache_read_input_tokens=read,
        cache_creation_input_tokens=write,
    )


def message(
    *blocks: Block,
    stop_reason: A.StopReason = "end_turn",
    tokens: A.Usage | None = None,
    model: str = "claude-test",
) -> A.Message:
    """A complete assistant ``Message`` of ``blocks``."""
    return A.Message(
        id="msg_test",
        type="message",
        role="assistant",
        model=model,
        content=list(blocks),
        stop_reason=stop_reason,
        stop_sequence=None,
        usage=tokens or usage(),
    )


def events_of(msg: A.Message, *, piece: int = 7) -> list[BaseModel]:
    """The events the API streams for ``msg``: ``message_start`` (usage with one output
    token), a ``ping``, each block's start / deltas / stop, ``message_delta`` (the final,
    cumulative usage) and ``message_stop``. Tool input JSON comes in ``piece``-character
    chunks, thinking text in words, then its signature in one delta."""
    start_usage = msg.usage.model_copy(update={"output_tokens": 1})
    opening = msg.model_copy(update={"content": [], "stop_reason": None, "usage": start_usage})
    events: list[BaseModel] = [
        A.RawMessageStartEvent(type="message_start", message=opening),
        _Ping(type="ping"),
    ]
    for index, block in enumerate(msg.content):
        events += _block_events(index, block, piece)
    events.append(
        A.RawMessageDeltaEvent(
            type="message_delta",
            delta=Delta(stop_reason=msg.stop_reason, stop_sequence=None),
            usage=A.MessageDeltaUsage(
                output_tokens=msg.usage.output_tokens,
                input_tokens=msg.usage.input_tokens,
                cache_read_input_tokens=msg.usage.cache_read_input_tokens,
                cache_creation_input_tokens=msg.usage.cache_creation_input_tokens,
            ),
        )
    )
    events.append(A.RawMessageStopEvent(type="message_stop"))
    return events


class _Ping(BaseModel):
    type: Literal["ping"]


def _block_events(index: int, block: Any, piece: int) -> list[BaseModel]:
    deltas: list[Any] = []
    if isinstance(block, A.TextBlock):
        opening: Any = text("")
        deltas = [A.TextDelta(type="text_delta", text=word) for word in words(block.text)]
    elif isinstance(block, A.ToolUseBlock):
        opening = tool_use(block.id, block.name, {})
        raw = json.dumps(block.input)
        deltas = [
            A.InputJSONDelta(type="input_json_delta", partial_json=raw[at : at + piece])
            for at in range(0, len(raw), piece)
        ]
    elif isinstance(block, A.ThinkingBlock):
        opening = thinking("", "")
        deltas = [A.ThinkingDelta(type="thinking_delta", thinking=w) for w in words(block.thinking)]
        deltas.append(A.SignatureDelta(type="signature_delta", signature=block.signature))
    else:
        opening = block  # redacted_thinking arrives whole in its start event
    return [
        A.RawContentBlockStartEvent(type="content_block_start", index=index, content_block=opening),
        *(
            A.RawContentBlockDeltaEvent(type="content_block_delta", index=index, delta=d)
            for d in deltas
        ),
        A.RawContentBlockStopEvent(type="content_block_stop", index=index),
    ]


def words(value: str) -> list[str]:
    parts = value.split(" ")
    return [part + " " for part in parts[:-1]] + [parts[-1]]


def sdk_accumulated(events: Sequence[BaseModel]) -> A.Message:
    """What the ``anthropic`` SDK's own stream accumulator makes of ``events``."""
    snapshot: Any = None
    buffers: dict[int, bytes] = {}
    for event in events:
        if isinstance(event, _Ping):
            continue
        snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=buffers)  # type: ignore[arg-type]
    return A.Message.model_validate(snapshot.to_dict())


def error_body(kind: str, text: str) -> A.ErrorResponse:
    """The API's error body for an error ``kind`` (``overloaded_error``...)."""
    return A.ErrorResponse.model_validate(
        {"type": "error", "error": {"type": kind, "message": text}, "request_id": "req_test"}
    )


# ------------------------------------------------------------------------------ replies


def wire(model: BaseModel) -> str:
    """A type as the API sends it (unset optional fields left out)."""
    return model.to_json(indent=None) if hasattr(model, "to_json") else model.model_dump_json()


def message_reply(msg: A.Message) -> Reply:
    return Reply(parts=[wire(msg).encode()])


def error_reply(status: int, kind: str, text: str, headers: dict[str, str] | None = None) -> Reply:
    return Reply(
        status=status, parts=[wire(error_body(kind, text)).encode()], headers=headers or {}
    )


def sse(
    events: Iterable[BaseModel | str],
    *,
    end: Literal["close", "drop", "stall"] = "close",
    delay: float = 0.0,
) -> Reply:
    """A ``text/event-stream`` reply, one HTTP chunk per event (``event:`` + ``data:`` lines);
    a str is sent as a raw event text."""
    parts = []
    for event in events:
        if isinstance(event, str):
            parts.append(event.encode())
        else:
            kind = getattr(event, "type", "message")
            parts.append(f"event: {kind}\ndata: {wire(event)}\n\n".encode())
    return Reply(parts=parts, content_type="text/event-stream", chunked=True, end=end, delay=delay)


def stream_reply(msg: A.Message, **options: Any) -> Reply:
    return sse(events_of(msg), **options)
