"""A cut-off answer never runs its tool calls (issue 21, class 1), over real wire servers.

Every case is an answer the token limit cut (OpenAI ``finish_reason: "length"``, Anthropic
``stop_reason: "max_tokens"``) served by a loopback server speaking that provider's wire
format, plain and streamed, sequential and parallel, with hooks on the bus and without any
(the runtime's hook-free path). The answer's calls take shapes a cut can leave: no argument
text at all (the tool's defaults would apply), arguments cut mid-JSON, complete arguments, two
calls of which the second is cut, text before the call, a tool the agent does not have.

Each case holds when: the tool never ran; each call got exactly one tool message, the error the
model reads (cut off, so it did not run), in the next request the model got; with hooks,
``on_tool_call_error`` fired once per call with ``source="truncated"`` and a
``TruncatedCallError``, and every invariant of the suite held; the run went on and ended with
the model's next answer.

A cut-off answer with no call ends the run with ``finish_reason="length"``, and a finish reason
the runtime does not act on is reported as sent: Anthropic ``pause_turn`` (and a reason of a
later API version) is never read as ``stop``.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from rel_drive import Outcome, invariant_problems
from rel_probe import Probe
from rel_tally import Problem, Tally

from agenthooks import Agent, AnthropicProvider, HookBus, OpenAIChatProvider, Session, tool

_PROVIDERS = str(Path(__file__).resolve().parent.parent / "providers")
if _PROVIDERS not in sys.path:
    sys.path.insert(0, _PROVIDERS)

from wire_server import (  # noqa: E402
    JSON,
    Reply,
    WireServer,
    chunk,
    completion,
    json_reply,
    sse_reply,
    usage_chunk,
)
from wire_server import tool_call as openai_call  # noqa: E402

GUARD = 20.0  # seconds: no case may hang
RECEIVED: list[dict[str, Any]] = []


@tool
async def setv(name: str = "unset", count: int = 0) -> str:
    """Set a value (every parameter has a default: a call cut before its arguments would
    run with them)."""
    RECEIVED.append({"name": name, "count": count})
    return f"{name}={count}"


def cut_message(name: str) -> str:
    return (
        f"tool call {name!r} was not run: the response was cut off (token limit) before the "
        "call was complete"
    )


@dataclass(frozen=True)
class Call:
    """One call of the cut-off answer: its id, tool name and argument text as sent."""

    id: str
    name: str
    text: str

    def input(self) -> dict[str, Any]:
        """What a plain (non-streamed) Anthropic answer carries as ``input``: the object the
        text holds, or the part of it that was complete (an object is all the API sends)."""
        try:
            value = json.loads(self.text) if self.text else {}
        except ValueError:
            return {"name": "a"}  # the cut texts below all start with this complete key
        return value if isinstance(value, dict) else {}


SHAPES: dict[str, tuple[str | None, list[Call]]] = {
    "no argument text": (None, [Call("c1", "setv", "")]),
    "arguments cut mid-JSON": (None, [Call("c1", "setv", '{"name": "a", "cou')]),
    "complete arguments": (None, [Call("c1", "setv", '{"name": "a", "count": 2}')]),
    "two calls, the second cut": (
        None,
        [Call("c1", "setv", '{"name": "a", "count": 1}'), Call("c2", "setv", '{"name": "a"')],
    ),
    "two calls, no argument text": (None, [Call("c1", "setv", ""), Call("c2", "setv", "")]),
    "text, then a call": ("Let me set it", [Call("c1", "setv", "")]),
    "a tool the agent lacks": (None, [Call("c1", "nosuch", '{"x": 1}')]),
}


# ------------------------------------------------------------------------------ the wire


def openai_reply(body: JSON, case: Case) -> Reply:
    stream = body.get("stream", False)
    if body["messages"][-1]["role"] == "tool":
        if stream:
            return sse_reply([chunk("done"), chunk(finish_reason="stop"), usage_chunk()])
        return json_reply(completion("done"))
    content, calls = case.content, case.calls
    if not stream:
        wire = [openai_call(c.id, c.name, c.text) for c in calls]
        return json_reply(completion(content, tool_calls=wire, finish_reason=case.reason))
    events = [chunk(role="assistant", content=content or "")]
    for index, c in enumerate(calls):
        head = {"index": index, "id": c.id, "type": "function"}
        events.append(chunk(tool_calls=[{**head, "function": {"name": c.name, "arguments": ""}}]))
        for at in range(0, len(c.text), 5):
            piece = {"index": index, "function": {"arguments": c.text[at : at + 5]}}
            events.append(chunk(tool_calls=[piece]))
    events += [chunk(finish_reason=case.reason), usage_chunk()]
    return sse_reply(events)


def anthropic_reply(body: JSON, case: Case) -> Reply:
    stream = body.get("stream", False)
    last = body["messages"][-1]["content"]
    answered = isinstance(last, list) and any(b.get("type") == "tool_result" for b in last)
    if answered:
        return anthropic_message([{"type": "text", "text": "done"}], "end_turn", stream)
    blocks: list[JSON] = []
    if case.content is not None:
        blocks.append({"type": "text", "text": case.content})
    for c in case.calls:
        blocks.append({"type": "tool_use", "id": c.id, "name": c.name, "input": c})
    return anthropic_message(blocks, case.reason, stream)


def anthropic_message(blocks: list[JSON], stop_reason: str, stream: bool) -> Reply:
    """A Messages API answer of ``blocks``; a tool_use block's ``input`` may be a ``Call``,
    sent as its object (plain) or as its exact text in pieces (streamed)."""
    usage = {"input_tokens": 10, "output_tokens": 5}
    if not stream:
        content = [
            {**b, "input": b["input"].input()} if isinstance(b.get("input"), Call) else b
            for b in blocks
        ]
        message = {
            "id": "msg_cut",
            "type": "message",
            "role": "assistant",
            "model": "claude-test",
            "content": content,
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": usage,
        }
        return json_reply(message)
    start = {
        "id": "msg_cut",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1},
    }
    events: list[JSON] = [{"type": "message_start", "message": start}]
    for index, b in enumerate(blocks):
        if b["type"] == "text":
            events.append(
                {"type": "content_block_start", "index": index, "content_block": {**b, "text": ""}}
            )
            delta = {"type": "text_delta", "text": b["text"]}
            events.append({"type": "content_block_delta", "index": index, "delta": delta})
        else:
            call: Call = b["input"]
            opening = {"type": "tool_use", "id": call.id, "name": call.name, "input": {}}
            events.append({"type": "content_block_start", "index": index, "content_block": opening})
            for at in range(0, len(call.text), 5):
                delta = {"type": "input_json_delta", "partial_json": call.text[at : at + 5]}
                events.append({"type": "content_block_delta", "index": index, "delta": delta})
        events.append({"type": "content_block_stop", "index": index})
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason, "stop_sequence": None},
            "usage": {"output_tokens": 5},
        }
    )
    events.append({"type": "message_stop"})
    parts = [f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events]
    return Reply(parts=parts, content_type="text/event-stream", chunked=True)


# ------------------------------------------------------------------------------ the cases


@dataclass(frozen=True)
class Case:
    provider: str  # "openai" or "anthropic"
    stream: bool
    content: str | None
    calls: list[Call]
    reason: str  # the finish / stop reason as the server sends it
    parallel: bool = False
    hooks: bool = True

    @property
    def label(self) -> str:
        mode = "chat_stream()" if self.stream else "chat()"
        return f"{self.provider} {mode} {self.reason} parallel={self.parallel} hooks={self.hooks}"


CURRENT: dict[str, Case] = {}


@pytest.fixture(scope="module")
def server() -> Iterator[WireServer]:
    """One loopback server for every case: its replies read the case in progress."""
    with WireServer() as wire:
        yield wire


def reply(body: JSON) -> Reply:
    """The answer of the case in progress (a reply left over by a failed case serves the next
    one alike)."""
    case = CURRENT["case"]
    return (openai_reply if case.provider == "openai" else anthropic_reply)(body, case)


def serve(server: WireServer, case: Case) -> None:
    CURRENT["case"] = case
    server.reply(reply, reply)


def provider_for(case: Case, server: WireServer) -> Any:
    if case.provider == "openai":
        return OpenAIChatProvider("m", base_url=server.url, api_key="k", timeout=5)
    return AnthropicProvider("claude-test", base_url=f"http://127.0.0.1:{server.port}", timeout=5)


async def run_case(server: WireServer, case: Case) -> dict[str, Any]:
    """The case's run through ``Session.chat()`` or ``chat_stream()``, with what it showed."""
    RECEIVED.clear()
    serve(server, case)
    before = len(server.received)
    probe, bus, errors = Probe(), HookBus(), []
    if case.hooks:
        probe.attach(bus)
        bus.on(
            "on_tool_call_error", lambda ctx: errors.append((ctx.source, ctx.call.id, ctx.error))
        )
    async with provider_for(case, server) as provider:
        agent = Agent(
            "worker", provider=provider, tools=[setv], bus=bus, parallel_tool_calls=case.parallel
        )
        session = Session(agent)
        outcome = await drive_wire(session, case.stream)
    problems = await invariant_problems(probe, outcome, session.history) if case.hooks else []
    return {
        "outcome": outcome,
        "problems": problems,
        "errors": errors,
        "history": session.history,
        "requests": [r.json for r in server.received[before:]],
    }


async def drive_wire(session: Session, stream: bool) -> Outcome:
    """One run to its outcome (a wire run waits on sockets: a guard, not an idle count)."""
    items: list[Any] = []

    async def call() -> Any:
        if not stream:
            return await session.chat("go")
        async for item in session.chat_stream("go"):
            items.append(item)
        return items[-1].response

    try:
        response = await asyncio.wait_for(call(), GUARD)
    except asyncio.TimeoutError:
        return Outcome("hung", items=items)
    except Exception as exc:
        return Outcome("error", error=exc, items=items)
    return Outcome("response", response=response, items=items)


def cut_problems(case: Case, got: dict[str, Any]) -> list[Problem]:
    """What the case broke of class 1."""
    problems: list[Problem] = list(got["problems"])
    outcome: Outcome = got["outcome"]
    if outcome.kind != "response" or outcome.response is None:
        return [*problems, ("the run goes on to the next answer", outcome.describe())]
    response = outcome.response
    if (response.content, response.finish_reason) != ("done", "stop"):
        problems.append(
            ("the run goes on to the next answer", f"{response.finish_reason} {response.content!r}")
        )
    if RECEIVED:
        problems.append(("no call of a cut-off answer runs", f"the tool ran with {RECEIVED}"))
    tools = [m for m in got["history"] if m.role == "tool"]
    expected = [(c.id, True, cut_message(c.name)) for c in case.calls]
    seen = [(m.tool_call_id, m.is_error, m.content) for m in tools]
    if seen != expected:
        problems.append(("one tool error per call, saying it did not run", f"{seen}"))
    if len(got["requests"]) != 2:
        problems.append(("the run goes on to the next answer", f"{len(got['requests'])} requests"))
    elif not read_by_model(case, got["requests"][1]):
        problems.append(("the model reads each error", json.dumps(got["requests"][1])[:200]))
    if case.hooks:
        errors = [(s, i, type(e).__name__) for s, i, e in got["errors"]]
        if errors != [("truncated", c.id, "TruncatedCallError") for c in case.calls]:
            problems.append(("on_tool_call_error sees source='truncated'", f"{errors}"))
    return problems


def read_by_model(case: Case, request: JSON) -> bool:
    """The next request carries each call's error as its tool result."""
    messages = request["messages"]
    if case.provider == "openai":
        got = [(m["tool_call_id"], m["content"]) for m in messages if m["role"] == "tool"]
        return got == [(c.id, cut_message(c.name)) for c in case.calls]
    results = [
        (b["tool_use_id"], b.get("content"), b.get("is_error"))
        for m in messages
        if isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]
    texts = [
        (i, c if isinstance(c, str) else "".join(p.get("text", "") for p in c or []), e)
        for i, c, e in results
    ]
    return texts == [(c.id, cut_message(c.name), True) for c in case.calls]


def cut_cases() -> list[tuple[str, Case]]:
    cases = []
    for (shape, (content, calls)), provider, stream, parallel, hooks in itertools.product(
        SHAPES.items(), ("openai", "anthropic"), (False, True), (False, True), (True, False)
    ):
        if parallel and len(calls) < 2 and not hooks:
            continue  # one call: parallel or not is the same path
        reason = "length" if provider == "openai" else "max_tokens"
        case = Case(provider, stream, content, calls, reason, parallel, hooks)
        cases.append((shape, case))
    return cases


async def test_no_call_of_a_cut_off_answer_runs(server: WireServer) -> None:
    tally = Tally("a cut-off answer never runs its tool calls")
    for shape, case in cut_cases():
        got = await run_case(server, case)
        tally.case(f"{shape}: {case.label}", cut_problems(case, got), shape)
    tally.assert_held()


# ------------------------------------------------------------ answers with no call to run

# (provider, the reason the server sends, the finish reason the run must end with)
REASONS = [
    ("openai", "length", "length"),
    ("openai", "content_filter", "content_filter"),
    ("openai", "a_later_reason", "a_later_reason"),
    ("anthropic", "max_tokens", "length"),
    ("anthropic", "model_context_window_exceeded", "length"),
    ("anthropic", "pause_turn", "pause_turn"),
    ("anthropic", "refusal", "content_filter"),
    ("anthropic", "a_later_reason", "a_later_reason"),
]


async def test_a_finish_reason_is_reported_as_sent(server: WireServer) -> None:
    tally = Tally("finish reasons are never rewritten")
    for (provider, sent, expected), stream, hooks in itertools.product(
        REASONS, (False, True), (True, False)
    ):
        case = Case(provider, stream, "partial answ", [], sent, hooks=hooks)
        got = await run_case(server, case)
        outcome: Outcome = got["outcome"]
        problems: list[Problem] = list(got["problems"])
        if outcome.kind != "response" or outcome.response is None:
            problems.append(("the run ends with the answer", outcome.describe()))
        else:
            r = outcome.response
            if (r.content, r.finish_reason) != ("partial answ", expected):
                problems.append(
                    (
                        "the finish reason as sent",
                        f"{r.finish_reason!r} for {sent!r}: {r.content!r}",
                    )
                )
            if [m.content for m in got["history"] if m.role == "assistant"] != ["partial answ"]:
                problems.append(("the answer is in history", f"{got['history']}"))
        if len(got["requests"]) != 1:
            problems.append(("one request", f"{len(got['requests'])} requests"))
        tally.case(f"{sent} → {expected}: {case.label}", problems, sent)
    tally.assert_held()
