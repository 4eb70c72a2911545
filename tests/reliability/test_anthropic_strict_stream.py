"""The Anthropic stream is read as strictly as the OpenAI one (issue 21, class 2).

A loopback server speaking the Messages API wire format serves each case as a message body (to
``Agent.chat()``, which calls ``complete()``) and as an event stream (to ``Agent.chat_stream()``,
which calls ``stream()``):

- malformed answers that have both shapes (a text, thinking or signature field that is not a
  string; bytes that are not UTF-8, whatever the ``charset`` parameter says): both runs end with
  a ``ProviderResponseError``, the stream's naming the event, never with an answer;
- malformed streams (a ``content_block_start`` on an index in use, a delta whose type does not
  fit its block, a delta on a block that is not open, a non-string ``partial_json``): the run
  ends with a ``ProviderResponseError`` naming the event;
- well-formed UTF-8 sent with another ``charset``: both runs give exactly the text sent.

Every run is checked for the suite's invariants too (one terminal event, nothing after it, a
transcript a strict provider accepts): an error leaves no partial answer in history.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rel_drive import Outcome, invariant_problems
from rel_probe import Probe
from rel_tally import Problem, Tally

from agenthooks import Agent, AnthropicProvider, HookBus, ProviderResponseError, Session

_PROVIDERS = str(Path(__file__).resolve().parent.parent / "providers")
if _PROVIDERS not in sys.path:
    sys.path.insert(0, _PROVIDERS)

from wire_server import JSON, Reply, WireServer  # noqa: E402

GUARD = 20.0
BAD_VALUES: list[Any] = [5, 1.5, True, {"text": "x"}, ["x"]]
BAD_BYTES = [b"\xff", b"\xc3\x28", b"\xe2\x82", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80"]
CHARSETS = [None, "utf-8", "latin-1", "iso-8859-1", "windows-1252"]
NON_ASCII = "héllo ✓ 日本 — ok"


def message(content: list[JSON], stop_reason: str = "end_turn") -> JSON:
    return {
        "id": "msg_strict",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


def opening() -> list[JSON]:
    start = {**message([], "end_turn"), "stop_reason": None}
    return [{"type": "message_start", "message": start}, {"type": "ping"}]


def closing(stop_reason: str = "end_turn") -> list[JSON]:
    return [
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason},
            "usage": {"output_tokens": 5},
        },
        {"type": "message_stop"},
    ]


def start(index: int, block: JSON) -> JSON:
    return {"type": "content_block_start", "index": index, "content_block": block}


def delta(index: int, value: JSON) -> JSON:
    return {"type": "content_block_delta", "index": index, "delta": value}


def stop(index: int) -> JSON:
    return {"type": "content_block_stop", "index": index}


TEXT = {"type": "text", "text": ""}
THINKING = {"type": "thinking", "thinking": "", "signature": ""}
TOOL = {"type": "tool_use", "id": "t1", "name": "lookup", "input": {}}
REDACTED = {"type": "redacted_thinking", "data": "abc"}


def body_reply(body: bytes, charset: str | None = None) -> Reply:
    kind = "application/json" + (f"; charset={charset}" if charset else "")
    return Reply(parts=[body], content_type=kind)


def stream_reply(events: list[JSON | bytes], charset: str | None = None) -> Reply:
    """One event per HTTP chunk; bytes are sent as they are (a raw event)."""
    parts = [
        e if isinstance(e, bytes) else f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode()
        for e in events
    ]
    kind = "text/event-stream" + (f"; charset={charset}" if charset else "")
    return Reply(parts=parts, content_type=kind, chunked=True)


def raw_text_event(raw: bytes) -> bytes:
    """A text_delta event whose text holds ``raw`` bytes, byte for byte."""
    head = b'event: content_block_delta\ndata: {"type": "content_block_delta", "index": 0, '
    return head + b'"delta": {"type": "text_delta", "text": "ab' + raw + b'cd"}}\n\n'


# ------------------------------------------------------------------------------ the cases

Case = tuple[str, Reply | None, Reply, str]
"""(label, the body reply or None when the case has no body shape, the stream reply, the
event type the stream's error must name)."""


def both_shapes() -> list[Case]:
    cases: list[Case] = []
    for value in BAD_VALUES:
        shown = json.dumps(value)
        body = body_reply(json.dumps(message([{"type": "text", "text": value}])).encode())
        cases.append(
            (
                f"text {shown} at the block's start",
                body,
                stream_reply(
                    [*opening(), start(0, {"type": "text", "text": value}), stop(0), *closing()]
                ),
                "content_block_start",
            )
        )
        cases.append(
            (
                f"text {shown} in a text_delta",
                body,
                stream_reply(
                    [
                        *opening(),
                        start(0, TEXT),
                        delta(0, {"type": "text_delta", "text": value}),
                        stop(0),
                        *closing(),
                    ]
                ),
                "content_block_delta",
            )
        )
        thinking = {"type": "thinking", "thinking": value, "signature": "s"}
        cases.append(
            (
                f"thinking {shown} in a thinking_delta",
                body_reply(
                    json.dumps(message([thinking, {"type": "text", "text": "hi"}])).encode()
                ),
                stream_reply(
                    [
                        *opening(),
                        start(0, THINKING),
                        delta(0, {"type": "thinking_delta", "thinking": value}),
                        stop(0),
                        *closing(),
                    ]
                ),
                "content_block_delta",
            )
        )
        signed = {"type": "thinking", "thinking": "hm", "signature": value}
        cases.append(
            (
                f"signature {shown} in a signature_delta",
                body_reply(json.dumps(message([signed, {"type": "text", "text": "hi"}])).encode()),
                stream_reply(
                    [
                        *opening(),
                        start(0, THINKING),
                        delta(0, {"type": "signature_delta", "signature": value}),
                        stop(0),
                        *closing(),
                    ]
                ),
                "content_block_delta",
            )
        )
    for raw, charset in itertools.product(BAD_BYTES, (None, "latin-1", "utf-16")):
        body = json.dumps(message([{"type": "text", "text": "abXcd"}])).encode()
        cases.append(
            (
                f"bytes {raw!r} that are not UTF-8, charset={charset}",
                body_reply(body.replace(b"X", raw), charset),
                stream_reply(
                    [*opening(), start(0, TEXT), raw_text_event(raw), stop(0), *closing()], charset
                ),
                "",  # a decoding error names no event: the bytes are not an event yet
            )
        )
    return cases


def stream_only() -> list[Case]:
    cases: list[Case] = []
    reuse = {
        "a text block started again on its open index": [start(0, TEXT), start(0, TEXT)],
        "a block started again on a stopped index": [start(0, TEXT), stop(0), start(0, TEXT)],
        "a tool_use block started on a text block's index": [start(0, TEXT), start(0, TOOL)],
    }
    for label, events in reuse.items():
        cases.append(
            (label, None, stream_reply([*opening(), *events, *closing()]), "content_block_start")
        )
    misfits = {
        "input_json_delta on a text block": (
            TEXT,
            {"type": "input_json_delta", "partial_json": "{}"},
        ),
        "thinking_delta on a text block": (TEXT, {"type": "thinking_delta", "thinking": "x"}),
        "signature_delta on a text block": (TEXT, {"type": "signature_delta", "signature": "x"}),
        "text_delta on a tool_use block": (TOOL, {"type": "text_delta", "text": "x"}),
        "text_delta on a thinking block": (THINKING, {"type": "text_delta", "text": "x"}),
        "input_json_delta on a thinking block": (
            THINKING,
            {"type": "input_json_delta", "partial_json": "{}"},
        ),
        "text_delta on a redacted_thinking block": (REDACTED, {"type": "text_delta", "text": "x"}),
        "thinking_delta on a tool_use block": (TOOL, {"type": "thinking_delta", "thinking": "x"}),
    }
    for label, (block, value) in misfits.items():
        events = [*opening(), start(0, block), delta(0, value), stop(0), *closing("tool_use")]
        cases.append((label, None, stream_reply(events), "content_block_delta"))
    closed = {
        "a delta on a stopped block": [
            start(0, TEXT),
            stop(0),
            delta(0, {"type": "text_delta", "text": "x"}),
        ],
        "a delta on an index never started": [
            start(0, TEXT),
            delta(1, {"type": "text_delta", "text": "x"}),
        ],
        "a stop on an index never started": [start(0, TEXT), stop(1)],
    }
    for label, events in closed.items():
        cases.append(
            (label, None, stream_reply([*opening(), *events, *closing()]), "content_block_")
        )
    for value in BAD_VALUES:
        events = [
            *opening(),
            start(0, TOOL),
            delta(0, {"type": "input_json_delta", "partial_json": value}),
            stop(0),
            *closing("tool_use"),
        ]
        label = f"partial_json {json.dumps(value)}"
        cases.append((label, None, stream_reply(events), "content_block_delta"))
    return cases


# ------------------------------------------------------------------------------ running


@pytest.fixture(scope="module")
def server() -> Iterator[WireServer]:
    with WireServer() as wire:
        yield wire


async def run(server: WireServer, reply: Reply, stream: bool) -> dict[str, Any]:
    """One run of an agent over ``reply``: its outcome, the suite's invariants, its history."""
    server.reply(reply)
    probe, bus = Probe(), HookBus()
    probe.attach(bus)
    base = f"http://127.0.0.1:{server.port}"
    async with AnthropicProvider("claude-test", base_url=base, timeout=5) as provider:
        session = Session(Agent("worker", provider=provider, bus=bus))
        items: list[Any] = []

        async def call() -> Any:
            if not stream:
                return await session.chat("hi")
            async for item in session.chat_stream("hi"):
                items.append(item)
            return items[-1].response

        try:
            outcome = Outcome(
                "response", response=await asyncio.wait_for(call(), GUARD), items=items
            )
        except asyncio.TimeoutError:
            outcome = Outcome("hung", items=items)
        except Exception as exc:
            outcome = Outcome("error", error=exc, items=items)
    problems = await invariant_problems(probe, outcome, session.history)
    return {"outcome": outcome, "problems": problems, "history": session.history}


def error_problems(got: dict[str, Any], names: str | None) -> list[Problem]:
    """The run ended with a ``ProviderResponseError`` (naming ``names`` when given) and left
    no answer behind."""
    problems: list[Problem] = list(got["problems"])
    outcome: Outcome = got["outcome"]
    if outcome.kind != "error" or not isinstance(outcome.error, ProviderResponseError):
        problems.append(("a typed error, never an answer", outcome.describe()))
    elif names and f"{names}" not in str(outcome.error):
        problems.append(("the error names the event", str(outcome.error)[:200]))
    if [m.role for m in got["history"]] != ["user"]:
        problems.append(("nothing of the answer is kept", f"{[m.role for m in got['history']]}"))
    return problems


async def test_a_malformed_answer_fails_alike_plain_and_streamed(server: WireServer) -> None:
    tally = Tally("malformed Anthropic answers fail typed, chat() and chat_stream() alike")
    for label, body, events, names in both_shapes():
        plain = await run(server, body, stream=False)  # type: ignore[arg-type]
        streamed = await run(server, events, stream=True)
        problems = error_problems(plain, None) + error_problems(streamed, names)
        kinds = [type(got["outcome"].error).__name__ for got in (plain, streamed)]
        if kinds[0] != kinds[1]:
            problems.append(("chat() and chat_stream() end the same way", " vs ".join(kinds)))
        tally.case(label, problems, label.split(" ")[0])
    tally.assert_held()


async def test_a_malformed_stream_fails_naming_the_event(server: WireServer) -> None:
    tally = Tally("malformed Anthropic streams fail typed, naming the event")
    for label, _, events, names in stream_only():
        got = await run(server, events, stream=True)
        tally.case(label, error_problems(got, names), label.split(" ")[0])
    tally.assert_held()


async def test_sse_is_utf8_whatever_the_charset_says(server: WireServer) -> None:
    tally = Tally("UTF-8 text arrives exactly, whatever the charset says")
    for charset in CHARSETS:
        body = json.dumps(message([{"type": "text", "text": NON_ASCII}]), ensure_ascii=False)
        text_events = [
            delta(0, {"type": "text_delta", "text": piece}) for piece in NON_ASCII.split(" ")
        ]
        for event, piece in zip(text_events, NON_ASCII.split(" ")[:-1] + [None]):
            if piece is not None:
                event["delta"]["text"] = piece + " "
        events: list[JSON | bytes] = [*opening(), start(0, TEXT), *text_events, stop(0), *closing()]
        payload = [
            e
            if isinstance(e, bytes)
            else f"event: {e['type']}\ndata: {json.dumps(e, ensure_ascii=False)}\n\n".encode()
            for e in events
        ]
        kind = "text/event-stream" + (f"; charset={charset}" if charset else "")
        for stream in (False, True):
            reply = (
                Reply(parts=payload, content_type=kind, chunked=True)
                if stream
                else body_reply(body.encode(), charset)
            )
            got = await run(server, reply, stream)
            problems: list[Problem] = list(got["problems"])
            outcome: Outcome = got["outcome"]
            content = outcome.response.content if outcome.response is not None else None
            if content != NON_ASCII:
                problems.append(("the text as sent", f"{outcome.describe()}"))
            mode = "chat_stream()" if stream else "chat()"
            tally.case(f"charset={charset} {mode}", problems, str(charset))
    tally.assert_held()
