"""A run pauses in one OS process and is resumed in another, against SQLite and the real
PostgreSQL: approve, deny, partial decisions answered from the command line, concurrent
resumes (exactly one wins) and a crash between a tool's execution and the commit of its
result. The model is a loopback OpenAI-format server that refuses an invalid transcript."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from store_support import finish, run, worker
from strict import strict
from wire_server import WireServer, completion, tool_call

from agenthooks.stores import open_store

pytestmark = [pytest.mark.subprocess, pytest.mark.server]

ASKED = "refund of 900 needs a manager"
FINAL = "Refunded."


def script(wire: WireServer, *calls: dict[str, Any]) -> None:
    """The model: first the tool calls, then (in the resuming process) the answer."""
    wire.reply(
        strict(completion(tool_calls=list(calls), finish_reason="tool_calls")),
        strict(completion(FINAL)),
    )


LOOKUP = tool_call("c1", "lookup", {"order": 7})
BIG = tool_call("c2", "refund", {"order": 7, "amount": 900})
HUGE = tool_call("c3", "refund", {"order": 8, "amount": 5000})


def config(tmp_path: Path, store_url: str, wire: WireServer, **more: Any) -> dict[str, Any]:
    return {
        "store": store_url,
        "session": "ticket-42",
        "base_url": wire.url,
        "runs": str(tmp_path / "runs.log"),
        "message": "Refund order 7",
        **more,
    }


def ran(tmp_path: Path) -> list[str]:
    path = tmp_path / "runs.log"
    return path.read_text().splitlines() if path.exists() else []


def names(out: dict[str, Any]) -> list[str]:
    return [e["type"] for e in out["events"]]


PAUSE_EVENTS = [
    "on_session_start",
    "on_chat_start",
    "on_user_message",
    "on_message",
    "pre_agent",
    "on_loop_start",
    "transform_context",
    "pre_request",
    "on_response",
    "on_message",
    "pre_tool_call",
    "on_tool_call_result",
    "on_message",
    "pre_tool_call",
    "on_loop_end",
    "on_chat_paused",
    "on_chat_end",
    "on_session_end",
]
AFTER_TOOLS = [
    "prepare_next_turn",
    "should_stop",
    "on_loop_start",
    "transform_context",
    "pre_request",
    "on_response",
    "on_loop_end",
    "post_agent",
    "on_message",
    "on_chat_done",
    "on_chat_end",
    "on_session_end",
]


def pause(tmp_path: Path, store_url: str, wire: WireServer) -> dict[str, Any]:
    out = run(config(tmp_path, store_url, wire, mode="chat"))
    assert out["response"]["finish_reason"] == "paused"
    assert out["response"]["pending"] == [
        {
            "call_id": "c2",
            "tool": "refund",
            "arguments": {"order": 7, "amount": 900.0},
            "reason": ASKED,
        }
    ]
    assert names(out) == PAUSE_EVENTS
    asked = [e for e in out["events"] if e["type"] == "pre_tool_call"]
    assert [(e["call"], e["asked"]) for e in asked] == [("c1", None), ("c2", ASKED)]
    assert ran(tmp_path) == ["lookup 7"]  # the asked refund never ran
    return out


def next_request(wire: WireServer) -> list[tuple[Any, ...]]:
    """The transcript of the model's second request, as (role, content, tool_call_id)."""
    return [
        (m["role"], m.get("content"), m.get("tool_call_id")) for m in wire.requests[1]["messages"]
    ]


def test_pause_in_one_process_approve_in_another(
    tmp_path: Path, store_url: str, wire: WireServer
) -> None:
    script(wire, LOOKUP, BIG)
    paused = pause(tmp_path, store_url, wire)
    assert len(wire.requests) == 1

    out = run(config(tmp_path, store_url, wire, mode="resume", decisions={"c2": "approve"}))
    assert out["response"] == {
        "finish_reason": "stop",
        "content": FINAL,
        "pending": [],
        "iterations": 2,
        "usage": 30,  # 15 before the pause, 15 after: usage counts on
        "messages": 5,  # the whole run: user, assistant, two tool messages, the answer
    }
    assert ran(tmp_path) == ["lookup 7", "refund 7 900"]  # exactly once
    assert names(out) == [
        "on_run_resumed",
        "pre_tool_call",
        "on_tool_call_result",
        "on_message",
        *AFTER_TOOLS,
    ]
    # one run across both processes: the same id, the record numbers go on
    run_ids = {e["run_id"] for e in paused["events"] + out["events"]}
    assert len(run_ids) == 1
    assert [e["seq"] for e in paused["events"] + out["events"]] == list(
        range(1, len(paused["events"]) + len(out["events"]) + 1)
    )
    assert next_request(wire) == [
        ("system", "You handle refunds.", None),
        ("user", "Refund order 7", None),
        ("assistant", None, None),
        ("tool", "order 7: delivered", "c1"),
        ("tool", "refunded 900 on order 7", "c2"),
    ]

    history = run(config(tmp_path, store_url, wire, mode="show"))
    assert history["pending"] == []
    assert [m["role"] for m in history["history"]] == [
        "user",
        "assistant",
        "tool",
        "tool",
        "assistant",
    ]


def test_a_denied_call_never_runs_and_the_model_reads_exactly_the_reason(
    tmp_path: Path, store_url: str, wire: WireServer
) -> None:
    script(wire, LOOKUP, BIG)
    pause(tmp_path, store_url, wire)
    out = run(
        config(tmp_path, store_url, wire, mode="resume", decisions={"c2": "deny:over the limit"})
    )
    assert out["response"]["finish_reason"] == "stop"
    assert ran(tmp_path) == ["lookup 7"]
    assert names(out) == ["on_run_resumed", "on_message", *AFTER_TOOLS]
    assert next_request(wire)[-1] == ("tool", "over the limit", "c2")


def test_partial_decisions_are_refused_before_anything_runs_then_completed_from_the_cli(
    tmp_path: Path, store_url: str, wire: WireServer
) -> None:
    script(wire, LOOKUP, BIG, HUGE)
    first = run(config(tmp_path, store_url, wire, mode="chat"))
    assert [p["call_id"] for p in first["response"]["pending"]] == ["c2", "c3"]

    refused = run(config(tmp_path, store_url, wire, mode="resume", decisions={"c2": "approve"}))
    assert refused["error"] == {
        "type": "MissingDecisionError",
        "message": "session 'ticket-42': no decision for pending call 'c3' (refund); give "
        "Approve() or Deny(reason) for every pending call",
    }
    assert refused["events"] == []  # nothing fired, nothing ran, the model was not asked
    assert ran(tmp_path) == ["lookup 7"]
    assert len(wire.requests) == 1

    unknown = run(config(tmp_path, store_url, wire, mode="resume", decisions={"c9": "approve"}))
    assert unknown["error"]["type"] == "NotPendingError"
    assert unknown["error"]["message"] == (
        "session 'ticket-42': call 'c9' is not pending; the paused run "
        f"{first['events'][0]['run_id']!r} waits on: 'c2', 'c3'"
    )

    listed = cli("approvals", "list", "--store", store_url)
    assert listed.returncode == 0, listed.stderr
    assert "ticket-42/c2" in listed.stdout and "ticket-42/c3" in listed.stdout
    denied = cli("approvals", "deny", "c3", "--reason", "ask finance", "--store", store_url)
    assert denied.returncode == 0, denied.stderr
    assert denied.stdout == (
        'denied ticket-42/c3 (store): refund({"amount": 5000.0, "order": 8}): refund of 5000 '
        "needs a manager: ask finance\nresume the session to continue its run\n"
    )
    again = cli("approvals", "deny", "ticket-42/c3", "--reason", "x", "--store", store_url)
    assert again.returncode == 2
    assert again.stderr == "agenthooks approvals: error: ticket-42/c3 is already denied\n"

    out = run(config(tmp_path, store_url, wire, mode="resume", decisions={"c2": "approve"}))
    assert out["response"]["finish_reason"] == "stop"
    assert ran(tmp_path) == ["lookup 7", "refund 7 900"]
    assert next_request(wire)[-2:] == [
        ("tool", "refunded 900 on order 7", "c2"),
        ("tool", "ask finance", "c3"),
    ]

    shown = cli("sessions", "show", "ticket-42", "--store", store_url)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.splitlines()[0].startswith("session ticket-42  agent support  idle")


def test_concurrent_resumes_exactly_one_wins(
    tmp_path: Path, store_url: str, wire: WireServer
) -> None:
    script(wire, LOOKUP, BIG)
    pause(tmp_path, store_url, wire)
    go, hold = tmp_path / "go", tmp_path / "hold"
    both = [
        worker(
            config(
                tmp_path,
                store_url,
                wire,
                mode="resume",
                decisions={"c2": "approve"},
                wait_for=str(go),
                hold=str(hold),
            )
        )
        for _ in range(2)
    ]
    go.touch()  # both start resuming at once
    loser = wait_first(both)
    lost = finish(loser)
    hold.touch()  # the winner's refund may finish now
    won = finish(next(p for p in both if p is not loser))
    assert lost["error"]["type"] == "ResumeConflictError"
    assert lost["error"]["message"].startswith("session 'ticket-42': its run ")
    assert lost["events"] == []
    assert won["response"]["finish_reason"] == "stop"
    assert ran(tmp_path) == ["lookup 7", "refund 7 900"]  # once
    assert len(wire.requests) == 2


def wait_first(processes: list[subprocess.Popen[str]]) -> subprocess.Popen[str]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for process in processes:
            if process.poll() is not None:
                return process
        time.sleep(0.02)
    raise AssertionError("neither resume ended")


def crashed_resume(tmp_path: Path, store_url: str, wire: WireServer, idempotent: bool) -> None:
    """Pause, then resume in a process that dies right after the refund ran."""
    script(wire, LOOKUP, BIG)
    pause(tmp_path, store_url, wire)
    dead = worker(
        config(
            tmp_path,
            store_url,
            wire,
            mode="resume",
            decisions={"c2": "approve"},
            crash=True,
            lease=0.5,
            idempotent=idempotent,
        )
    )
    dead.communicate(timeout=120)
    assert dead.returncode == 9
    assert ran(tmp_path) == ["lookup 7", "refund 7 900"]
    # the dead process's claim expires with its lease: then any process takes over
    wait_for_lease(store_url)


def wait_for_lease(store_url: str) -> None:
    import asyncio

    async def expired() -> bool:
        store = open_store(store_url)
        try:
            row = await store.get("ticket-42")
        finally:
            await store.aclose()
        assert row is not None and row.status == "running"
        return (row.lease_until or 0) <= time.time()

    deadline = time.monotonic() + 30
    while not asyncio.run(expired()):
        assert time.monotonic() < deadline
        time.sleep(0.1)


def test_a_crash_after_the_tool_ran_asks_a_human_before_running_it_again(
    tmp_path: Path, store_url: str, wire: WireServer
) -> None:
    crashed_resume(tmp_path, store_url, wire, idempotent=False)
    shown = run(config(tmp_path, store_url, wire, mode="show"))
    assert shown["pending"] == [
        {
            "call_id": "c2",
            "tool": "refund",
            "arguments": {"order": 7, "amount": 900.0},
            "reason": "interrupted: the process running this call stopped before its result "
            "was stored, so the tool may have run; approve to run it again",
        }
    ]
    refused = run(config(tmp_path, store_url, wire, mode="resume"))
    assert refused["error"]["type"] == "MissingDecisionError"  # nothing doubled in silence
    assert ran(tmp_path) == ["lookup 7", "refund 7 900"]

    out = run(
        config(tmp_path, store_url, wire, mode="resume", decisions={"c2": "deny:already paid"})
    )
    assert out["response"]["finish_reason"] == "stop"
    assert ran(tmp_path) == ["lookup 7", "refund 7 900"]
    assert next_request(wire)[-1] == ("tool", "already paid", "c2")


def test_a_crash_in_an_idempotent_tool_runs_it_again_on_resume(
    tmp_path: Path, store_url: str, wire: WireServer
) -> None:
    crashed_resume(tmp_path, store_url, wire, idempotent=True)
    out = run(config(tmp_path, store_url, wire, mode="resume", idempotent=True))
    assert out["response"]["finish_reason"] == "stop"
    assert ran(tmp_path) == ["lookup 7", "refund 7 900", "refund 7 900"]
    assert names(out) == [
        "on_run_resumed",
        "pre_tool_call",
        "on_tool_call_result",
        "on_message",
        *AFTER_TOOLS,
    ]
    assert next_request(wire)[-1] == ("tool", "refunded 900 on order 7", "c2")


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    script = Path(sys.executable).with_name("agenthooks")
    env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1", "PYTHONIOENCODING": "utf-8"}
    env.pop("AGENTHOOKS_STORE", None)
    return subprocess.run(
        [str(script), *args], capture_output=True, text=True, env=env, timeout=60, check=False
    )


def test_trace_shows_the_paused_run_and_its_resumption_as_one_run(
    tmp_path: Path, store_url: str, wire: WireServer
) -> None:
    script(wire, LOOKUP, BIG)
    before, after = tmp_path / "pause.jsonl", tmp_path / "resume.jsonl"
    run(config(tmp_path, store_url, wire, mode="chat", record=str(before)))
    run(
        config(
            tmp_path, store_url, wire, mode="resume", decisions={"c2": "approve"}, record=str(after)
        )
    )
    shown = cli("trace", str(before), str(after), "--color", "never")
    assert shown.returncode == 0, shown.stderr
    lines = [strip_times(line) for line in shown.stdout.splitlines()]
    assert lines == [
        "agent support  N ms  tokens 20 in / 10 out  → stop",
        "├─ turn 0  N ms",
        "│  ├─ model call  N ms  tokens 10 in / 5 out  → tools: lookup, refund",
        '│  ├─ tool lookup({"order": 7})  N ms  → order 7: delivered',
        # the asked call is a point in its turn; once approved it runs as a span of its own
        '│  └─ tool refund({"order": 7, "amount": 900.0})  N ms  PAUSED: asked: refund of 900 '
        "needs a manager",
        "├─ · paused, waiting on refund #c2: refund of 900 needs a manager",
        "├─ · resumed: approved #c2",
        '├─ tool refund({"order": 7, "amount": 900.0})  N ms  → refunded 900 on order 7',
        "└─ turn 1  N ms",
        "   └─ model call  N ms  tokens 10 in / 5 out  → 'Refunded.'",
    ]
    alone = cli("trace", str(before), "--color", "never")
    first = [strip_times(line) for line in alone.stdout.splitlines()]
    assert first[0] == "agent support  N ms  tokens 10 in / 5 out  PAUSED"
    assert first[4] == (
        '│  └─ tool refund({"order": 7, "amount": 900.0})  N ms  PAUSED: asked: refund of 900 '
        "needs a manager"
    )


def strip_times(line: str) -> str:
    import re

    return re.sub(r"\d+(\.\d+)? (ms|s)\b", "N ms", line)


def test_the_store_source_without_a_store_is_passed_over_and_named() -> None:
    alone = cli("approvals", "list", "--source", "store")
    assert (alone.returncode, alone.stdout) == (2, "")
    assert alone.stderr == (
        "agenthooks approvals: error: no approval source is configured: store (set "
        "AGENTHOOKS_STORE to a store URL or path, or pass --store)\n"
    )
