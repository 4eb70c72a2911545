"""The hook server tried as a hostile client would: every answer is a typed HTTP error or a
correct decision, no handler runs for a caller without a valid token, a deny is never turned
into an allow, and the server keeps serving."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from server_support import ServerThread, write_tokens

from agenthooks import Deny, HookBus
from agenthooks.server import TokenFileError, Tokens, create_app

pytestmark = pytest.mark.server

TOKEN = "tok-ada-11"
OTHER = "tok-bob-22"


def pre_tool(session: str = "s1", command: str = "ls", **extra: Any) -> dict[str, Any]:
    return {
        "session_id": session,
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "toolu_1",
        "cwd": "/tmp",
        "permission_mode": "default",
        **extra,
    }


class Bench:
    def __init__(self, tmp_path: Path, **options: Any) -> None:
        self.bus = HookBus()
        self.records: list[Any] = []
        self.calls: list[str] = []
        self.bus.on("on_event", self.records.append)

        def judge(ctx: Any) -> Deny | None:
            self.calls.append(ctx.call.arguments["command"])
            return Deny("no rm") if "rm" in ctx.call.arguments["command"] else None

        self.bus.on("pre_tool_call", judge, guard=True)
        tokens = Tokens.from_file(write_tokens(tmp_path / "tokens", ada=TOKEN, bob=OTHER))
        self.app = create_app(self.bus, tokens=tokens, **options)

    def __enter__(self) -> ServerThread:
        self.server = ServerThread(self.app).__enter__()
        return self.server

    def __exit__(self, *exc: object) -> None:
        self.server.__exit__(*exc)


def post(
    url: str, body: Any = None, *, token: str | None = TOKEN, **options: Any
) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    headers.update(options.pop("headers", {}))
    return httpx.post(
        f"{url}/v1/hooks/claude-code", json=body, headers=headers, timeout=10, **options
    )


def test_no_token_and_a_wrong_one_are_401_and_no_handler_runs(tmp_path: Path) -> None:
    bench = Bench(tmp_path)
    with bench as server:
        missing = post(server.url, pre_tool(command="rm -rf /"), token=None)
        wrong = post(server.url, pre_tool(command="rm -rf /"), token="tok-ada-12")
        basic = post(
            server.url, pre_tool(), token=None, headers={"Authorization": f"Basic {TOKEN}"}
        )
    assert (missing.status_code, missing.json()) == (
        401,
        {"error": "unauthorized: missing bearer token"},
    )
    assert missing.headers["www-authenticate"] == 'Bearer realm="agenthooks"'
    assert (wrong.status_code, wrong.json()) == (
        401,
        {"error": "unauthorized: unknown bearer token"},
    )
    assert basic.status_code == 401
    assert bench.calls == [] and bench.records == []


def test_a_deny_is_answered_with_the_reason_and_an_allow_with_no_decision(tmp_path: Path) -> None:
    bench = Bench(tmp_path)
    with bench as server:
        denied = post(server.url, pre_tool(command="rm x"))
        allowed = post(server.url, pre_tool(command="ls"))
    assert denied.status_code == 200
    assert denied.json() == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "no rm",
        }
    }
    assert (allowed.status_code, allowed.json()) == (200, {})


def test_bodies_over_the_limit_are_413_declared_or_streamed(tmp_path: Path) -> None:
    bench = Bench(tmp_path, body_limit=2_000)
    with bench as server:
        big = json.dumps(pre_tool(command="x" * 5_000)).encode()
        declared = post(server.url, content=big)

        def chunks() -> Any:
            yield b'{"session_id": "s1", "pad": "'
            for _ in range(10):
                yield b"y" * 500
            yield b'"}'

        streamed = httpx.post(
            f"{server.url}/v1/hooks/claude-code",
            content=chunks(),
            headers={"Authorization": f"Bearer {TOKEN}"},
            timeout=10,
        )
        after = post(server.url, pre_tool(command="rm y"))
    assert (declared.status_code, declared.json()) == (
        413,
        {"error": f"the body has {len(big)} bytes; the limit is 2000"},
    )
    assert streamed.status_code == 413
    assert streamed.json() == {"error": "the body is over the limit of 2000 bytes"}
    assert after.json()["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert bench.calls == ["rm y"]


@pytest.mark.parametrize(
    ("body", "error"),
    [
        (
            b"{not json",
            "the body is not JSON: Expecting property name enclosed in double quotes at line 1 column 2",
        ),
        (b"", "the body is empty; a JSON object was expected"),
        (b"\xff\xfe", "the body is not UTF-8 text"),
        (b"[1, 2]", "claude-code hook input must be a JSON object, not list"),
        (
            b'{"session_id": "s1"}',
            "claude-code hook input: 'hook_event_name' must be a string (missing)",
        ),
        (
            b'{"session_id": 7, "hook_event_name": "PreToolUse"}',
            "claude-code hook input: 'session_id' must be a string (got int)",
        ),
        (
            b'{"session_id": "s1", "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": [1]}',
            "claude-code hook input: 'tool_input' must be an object (got list)",
        ),
        (
            b'{"session_id": "s1", "hook_event_name": "PreToolUse", "tool_input": {}}',
            "claude-code hook input: 'tool_name' must be a string (missing)",
        ),
        (
            b'{"session_id": "", "hook_event_name": "Stop"}',
            "claude-code hook input: 'session_id' must not be empty",
        ),
    ],
)
def test_bad_bodies_are_400_naming_what_is_wrong(tmp_path: Path, body: bytes, error: str) -> None:
    bench = Bench(tmp_path)
    with bench as server:
        got = post(server.url, content=body, headers={"Content-Type": "application/json"})
    assert (got.status_code, got.json()) == (400, {"error": error})
    assert bench.calls == []


def test_an_unknown_event_is_recorded_whole_and_gets_no_decision(tmp_path: Path) -> None:
    bench = Bench(tmp_path)
    body = {"session_id": "s9", "hook_event_name": "TeleportRequest", "where": "moon", "n": 3}
    with bench as server:
        got = post(server.url, body)
    assert (got.status_code, got.json()) == (200, {})
    assert [r.type for r in bench.records] == ["on_chat_start", "claude-code:TeleportRequest"]
    assert bench.records[1].input == body
    assert bench.records[1].run_id == "claude-code-s9" and bench.records[1].agent == "ada"


def test_a_handler_failure_is_a_one_line_500_and_the_server_keeps_serving(tmp_path: Path) -> None:
    bench = Bench(tmp_path)

    def broken(ctx: Any) -> None:
        if ctx.message == "boom":
            raise RuntimeError("the policy store\nis down")

    bench.bus.on("on_user_message", broken)
    prompt = {"session_id": "s2", "hook_event_name": "UserPromptSubmit", "prompt": "boom"}
    with bench as server:
        failed = post(server.url, prompt)
        again = post(server.url, pre_tool(session="s3", command="rm z"))
    assert failed.status_code == 500
    assert failed.json() == {"error": "hook failed: RuntimeError: the policy store is down"}
    assert "Traceback" not in failed.text
    assert again.json()["hookSpecificOutput"]["permissionDecision"] == "deny"
    ends = [r.type for r in bench.records if r.run_id == "claude-code-s2"]
    assert ends[-2:] == ["on_chat_error", "on_chat_end"]


def test_a_raising_guard_denies(tmp_path: Path) -> None:
    bench = Bench(tmp_path)

    def broken_guard(ctx: Any) -> None:
        raise ValueError("policy unreadable")

    bench.bus.on("pre_tool_call", broken_guard, guard=True)
    with bench as server:
        got = post(server.url, pre_tool(command="ls"))
    assert got.json()["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert got.json()["hookSpecificOutput"]["permissionDecisionReason"] == "policy unreadable"


def test_a_session_is_served_only_to_the_caller_that_opened_it(tmp_path: Path) -> None:
    bench = Bench(tmp_path)
    with bench as server:
        mine = post(server.url, pre_tool(session="shared", command="ls"))
        theirs = post(server.url, pre_tool(session="shared", command="ls"), token=OTHER)
    assert mine.status_code == 200
    assert theirs.status_code == 403
    assert "belongs to another caller" in theirs.json()["error"]
    assert bench.calls == ["ls"]


def test_a_slow_loris_does_not_stop_the_server_from_serving(tmp_path: Path) -> None:
    bench = Bench(tmp_path)
    with bench as server:
        sockets = []
        for _ in range(20):
            sock = socket.create_connection(("127.0.0.1", server.port))
            sock.sendall(
                b"POST /v1/hooks/claude-code HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n"
            )
            sockets.append(sock)
        started = time.monotonic()
        got = post(server.url, pre_tool(command="rm a"))
        took = time.monotonic() - started
        for sock in sockets:
            sock.close()
    assert got.json()["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert took < 5


def test_a_thousand_concurrent_sessions_each_get_their_own_decision(tmp_path: Path) -> None:
    bench = Bench(tmp_path)

    async def storm(url: str) -> list[httpx.Response]:
        limits = httpx.Limits(max_connections=50)
        async with httpx.AsyncClient(limits=limits, timeout=60) as client:
            headers = {"Authorization": f"Bearer {TOKEN}"}
            return await asyncio.gather(
                *(
                    client.post(
                        f"{url}/v1/hooks/claude-code",
                        json=pre_tool(f"s{n}", f"rm {n}" if n % 2 else f"ls {n}"),
                        headers=headers,
                    )
                    for n in range(1000)
                )
            )

    with bench as server:
        answers = asyncio.run(storm(server.url))
    assert [a.status_code for a in answers] == [200] * 1000
    for n, got in enumerate(answers):
        expected = "deny" if n % 2 else None
        assert got.json().get("hookSpecificOutput", {}).get("permissionDecision") == expected
    assert sorted(bench.calls) == sorted(f"rm {n}" if n % 2 else f"ls {n}" for n in range(1000))
    pre = [r for r in bench.records if r.type == "pre_tool_call"]
    assert len(pre) == 1000  # none lost, none doubled
    assert len({r.run_id for r in pre}) == 1000


def test_health_readiness_and_metrics(tmp_path: Path) -> None:
    bench = Bench(tmp_path)
    with bench as server:
        post(server.url, pre_tool(command="rm q"))
        post(server.url, pre_tool(command="ls"))
        post(server.url, pre_tool(), token="nope")
        health = httpx.get(f"{server.url}/healthz")
        ready = httpx.get(f"{server.url}/readyz")
        metrics = httpx.get(f"{server.url}/metrics").text
    assert health.json() == {"status": "ok"}
    assert ready.json() == {"status": "ready", "plugins": []}
    assert (
        'agenthooks_server_decisions_total{client="claude-code",event="PreToolUse",outcome="deny"} 1.0'
        in metrics
    )
    assert (
        'agenthooks_server_decisions_total{client="claude-code",event="PreToolUse",outcome="none"} 1.0'
        in metrics
    )
    assert 'agenthooks_server_failures_total{client="claude-code",status="401"} 1.0' in metrics
    assert "agenthooks_server_latency_seconds_bucket" in metrics


def test_readiness_fails_while_a_plugin_failed_to_load(tmp_path: Path) -> None:
    bench = Bench(tmp_path)
    bench.bus.plugin_errors.append(RuntimeError("guard: policy.toml: rules[0].acton: unknown key"))
    with bench as server:
        ready = httpx.get(f"{server.url}/readyz")
    assert ready.status_code == 503
    assert ready.json()["plugin_errors"] == ["guard: policy.toml: rules[0].acton: unknown key"]


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("ada = abc\n", "tokens:1: token 'ada': 'abc' is not a SHA-256 in hex (64 hex digits)"),
        (
            "ada: " + "a" * 64 + "\n",
            "tokens:1: expected NAME = SHA256HEX (the hex SHA-256 of the token)",
        ),
        (f"ada = {'a' * 64}\nada = {'b' * 64}\n", "tokens:2: the name 'ada' appears twice"),
        ("# nobody\n\n", "tokens: the token file names no caller"),
    ],
)
def test_a_bad_token_file_names_the_line(tmp_path: Path, text: str, error: str) -> None:
    path = tmp_path / "tokens"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(TokenFileError) as caught:
        Tokens.from_file(path)
    assert str(caught.value) == f"{tmp_path}/{error}"


def test_our_wire_counts_its_verdicts(tmp_path: Path) -> None:
    bench = Bench(tmp_path)
    event = {
        "event": "pre_tool_call",
        "run_id": "r1",
        "agent": "worker",
        "call": {"id": "c1", "name": "Bash", "arguments": {"command": "rm x"}},
    }
    with bench as server:
        got = httpx.post(
            f"{server.url}/v1/events",
            json=event,
            headers={"Authorization": f"Bearer {TOKEN}"},
            timeout=10,
        )
        metrics = httpx.get(f"{server.url}/metrics").text
    assert got.json() == {"decision": "deny", "reason": "no rm"}
    assert (
        'agenthooks_server_decisions_total{client="events",event="pre_tool_call",outcome="deny"} 1.0'
        in metrics
    )


def test_a_caller_over_its_rate_is_429_before_any_handler(tmp_path: Path) -> None:
    bench = Bench(tmp_path, rate=(3, 60))
    with bench as server:
        mine = [post(server.url, pre_tool(session=f"r{n}", command=f"ls {n}")) for n in range(4)]
        theirs = post(server.url, pre_tool(session="other", command="ls b"), token=OTHER)
    assert [r.status_code for r in mine] == [200, 200, 200, 429]
    assert mine[3].json() == {
        "error": "rate limit: caller 'ada' made 3 requests in the last 60 s, the limit is 3"
    }
    assert theirs.status_code == 200  # each caller has a window of its own
    assert bench.calls == ["ls 0", "ls 1", "ls 2", "ls b"]


def test_every_claude_code_event_maps_to_its_event_in_order(tmp_path: Path) -> None:
    bench = Bench(tmp_path)
    session = {"session_id": "seq", "cwd": "/repo", "transcript_path": "/t.jsonl"}
    tool = {"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "toolu_9"}
    events = [
        {"hook_event_name": "SessionStart", "source": "startup"},
        {"hook_event_name": "UserPromptSubmit", "prompt": "list files"},
        {"hook_event_name": "PreToolUse", **tool},
        {"hook_event_name": "PostToolUse", **tool, "tool_response": {"stdout": "a b"}},
        {"hook_event_name": "PreToolUse", **tool},
        {"hook_event_name": "PostToolUseFailure", **tool, "error": "exit 1"},
        {"hook_event_name": "SubagentStart", "agent_id": "ag1", "agent_type": "Explore"},
        {
            "hook_event_name": "SubagentStop",
            "agent_type": "Explore",
            "last_assistant_message": "ok",
        },
        {"hook_event_name": "Notification", "message": "waiting"},
        {"hook_event_name": "Stop", "stop_hook_active": False},
        {"hook_event_name": "SessionEnd", "reason": "other"},
    ]
    with bench as server:
        answers = [post(server.url, {**session, **event}).json() for event in events]
    assert answers == [{}] * len(events)
    assert [r.type for r in bench.records] == [
        "on_chat_start",
        "on_user_message",
        "pre_tool_call",
        "on_tool_call_result",
        "pre_tool_call",
        "on_tool_call_error",
        "on_subagent_start",
        "on_subagent_stop",
        "claude-code:Notification",
        "claude-code:Stop",
        "claude-code:SessionEnd",
        "on_chat_done",
        "on_chat_end",
    ]
    by_type = {r.type: r for r in bench.records}
    assert by_type["on_tool_call_result"].output == {"stdout": "a b"}
    assert by_type["on_tool_call_error"].error == "exit 1"
    assert by_type["on_subagent_stop"].output == "ok"
    assert by_type["claude-code:Notification"].input["message"] == "waiting"
    assert {r.run_id for r in bench.records} == {"claude-code-seq"}


def test_a_stop_ends_the_session_and_answers_every_later_event(tmp_path: Path) -> None:
    from agenthooks import StopRun

    bench = Bench(tmp_path)

    def cap(ctx: Any) -> None:
        if ctx.call.arguments["command"] == "ls 2":
            raise StopRun("tool call limit: 1 of 1 tool calls used")

    bench.bus.on("pre_tool_call", cap, guard=True)
    with bench as server:
        first = post(server.url, pre_tool(session="cap", command="ls 1"))
        stopped = post(server.url, pre_tool(session="cap", command="ls 2"))
        later = post(
            server.url,
            {"session_id": "cap", "hook_event_name": "UserPromptSubmit", "prompt": "go on"},
        )
    assert first.json() == {}
    assert stopped.json() == {
        "continue": False,
        "stopReason": "tool call limit: 1 of 1 tool calls used",
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "tool call limit: 1 of 1 tool calls used",
        },
    }
    assert later.json() == {
        "continue": False,
        "stopReason": "tool call limit: 1 of 1 tool calls used",
    }
    types = [r.type for r in bench.records]
    assert types[-3:] == ["on_stop", "on_chat_error", "on_chat_end"]
    assert "on_user_message" not in types
