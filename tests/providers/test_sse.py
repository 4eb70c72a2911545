"""The event-stream decoder, fed the way a socket delivers bytes: in arbitrary pieces."""

from __future__ import annotations

import pytest

from agenthooks.providers.sse import SSEDecoder, SSEEvent


def decode(*pieces: bytes) -> list[SSEEvent]:
    decoder = SSEDecoder()
    events = [event for piece in pieces for event in decoder.feed(piece)]
    return events + decoder.end()


@pytest.mark.parametrize("newline", [b"\n", b"\r\n", b"\r"])
def test_every_line_ending(newline: bytes) -> None:
    body = b"data: a" + newline + newline + b"data: b" + newline + newline
    assert decode(body) == [SSEEvent("a"), SSEEvent("b")]


def test_any_split_of_the_bytes_gives_the_same_events() -> None:
    body = b': ping\r\n\r\nevent: update\r\ndata: {"a":\r\ndata:1}\r\n\r\ndata: \xc3\xa9\r\n\r\n'
    expected = [SSEEvent('{"a":\n1}', "update"), SSEEvent("é")]
    assert decode(body) == expected
    for cut in range(1, len(body)):
        assert decode(body[:cut], body[cut:]) == expected, cut
    assert decode(*(body[i : i + 1] for i in range(len(body)))) == expected


def test_comments_ids_retries_and_empty_events_dispatch_nothing() -> None:
    assert decode(b": keep-alive\n\nid: 4\nretry: 10\n\n\n\nevent: x\n\n") == []


def test_a_byte_order_mark_is_dropped_only_at_the_start() -> None:
    assert decode("\ufeffdata: a\n\n".encode()) == [SSEEvent("a")]
    assert decode("data: \ufeffa\n\n".encode()) == [SSEEvent("\ufeffa")]


def test_the_last_event_is_delivered_without_its_blank_line() -> None:
    assert decode(b"data: a\n\ndata: b") == [SSEEvent("a"), SSEEvent("b")]
    assert decode(b"data: a\r") == [SSEEvent("a")]


def test_one_space_after_the_colon_is_dropped() -> None:
    assert decode(b"data:a\n\ndata:  b\n\ndata\n\n") == [
        SSEEvent("a"),
        SSEEvent(" b"),
        SSEEvent(""),
    ]


def test_a_line_that_is_not_utf8_raises() -> None:
    with pytest.raises(UnicodeDecodeError):
        decode(b"data: \xff\n\n")
