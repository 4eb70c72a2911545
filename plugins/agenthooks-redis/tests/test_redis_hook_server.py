"""The hook server as a team runs it: ``agenthooks serve`` started from the checkout with the
installed plugins (a Guard policy in a TOML file, Limits, the Redis stream and the Redis
approver), and the real Claude Code CLI headless against the loopback Anthropic server with
its HTTP hooks pointing at it. Every decision is a record on the Redis stream naming the
token's caller."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis

pytestmark = [pytest.mark.subprocess, pytest.mark.server]

_TESTS = Path(__file__).resolve().parents[3] / "tests"
for _folder in ("providers", "server"):
    if str(_TESTS / _folder) not in sys.path:
        sys.path.insert(0, str(_TESTS / _folder))

from anthropic_server import AnthropicServer, message, stream_reply, text, tool_use  # noqa: E402
from redis_support import own_redis  # noqa: E402
from server_support import (  # noqa: E402
    children,
    claude_missing,
    hook_settings,
    result_text,
    run_claude,
    serve_command,
    tool_results,
    write_tokens,
)

from agenthooks.testing import require  # noqa: E402

TOKEN = "tok-ada-2b91"

POLICY = """
default = "allow"
approver = "agenthooks_redis.approver:ask"

[[rules]]
name = "no-deletes"
tool = "Bash"
action = "deny"
reason = "Deleting files is not allowed."
args.command.matches = "\\\\brm\\\\b"

[[rules]]
name = "deploys-need-a-person"
tool = "Bash"
action = "ask"
timeout = 60
args.command.matches = "deploy"
"""

LIMITS = """
max_tool_calls = { limit = 1, action = "stop" }
"""


def bash(command: str, call_id: str) -> Any:
    return stream_reply(
        message(
            tool_use(call_id, "Bash", {"command": command, "description": "run it"}),
            stop_reason="tool_use",
        )
    )


def answer(words: str) -> Any:
    return stream_reply(message(text(words)))


class Team:
    """``agenthooks serve`` with the team's policy files, its stream and approvals under a
    key prefix of the test's own."""

    def __init__(
        self, tmp_path: Path, url: str, prefix: str, *, limits: bool = False, claude: bool = True
    ) -> None:
        if claude:
            require(claude_missing())
        self.tmp = tmp_path
        self.workdir = tmp_path / "work"
        self.workdir.mkdir()
        policy = tmp_path / "policy.toml"
        policy.write_text(POLICY, encoding="utf-8")
        self.stream = f"{prefix}events"
        self.env = {
            "AGENTHOOKS_GUARD_POLICY": str(policy),
            "AGENTHOOKS_REDIS_URL": url,
            "AGENTHOOKS_REDIS_STREAM": self.stream,
            "AGENTHOOKS_REDIS_APPROVALS": f"{prefix}approvals",
            "AGENTHOOKS_DISABLE_PLUGINS": "otel,cache,retry,structlog",
        }
        if limits:
            config = tmp_path / "limits.toml"
            config.write_text(LIMITS, encoding="utf-8")
            self.env["AGENTHOOKS_LIMITS_CONFIG"] = str(config)
        self.tokens = write_tokens(tmp_path / "tokens", ada=TOKEN)
        self.url = url

    def run(
        self, prompt: str, replies: list[Any], *serve: str, **options: Any
    ) -> tuple[dict[str, Any], Any]:
        with (
            serve_command("--token-file", str(self.tokens), *serve, env=self.env) as server,
            AnthropicServer() as model,
        ):
            model.reply(*replies)
            result = run_claude(
                prompt,
                base_url=model.base_url,
                settings=hook_settings(server, **options),
                workdir=self.workdir,
                env={"AGENTHOOKS_TOKEN": TOKEN},
            )
            return result, model.requests

    def records(self, until: str = "on_chat_end") -> list[dict[str, Any]]:
        """The stream's records, once the one of type ``until`` arrived (the publisher sends
        from a buffer: the server may have answered before its records reached Redis)."""
        client = redis.Redis.from_url(self.url, decode_responses=True)
        try:
            deadline = time.monotonic() + 10
            while True:
                entries = client.xrange(self.stream)
                records = [
                    {**json.loads(fields["record"]), "seq": int(fields["seq"])}
                    for _, fields in entries
                ]
                if any(r["type"] == until for r in records) or time.monotonic() > deadline:
                    return records
                time.sleep(0.1)
        finally:
            client.close()

    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "agenthooks.cli", *args],
            env={**os.environ, **self.env},
            capture_output=True,
            text=True,
            timeout=60,
        )


def test_a_policy_deny_stops_bash_and_every_decision_is_on_the_stream(
    tmp_path: Path, url: str, prefix: str
) -> None:
    team = Team(tmp_path, url, prefix)
    keep = team.workdir / "keep.txt"
    keep.write_text("precious", encoding="utf-8")

    result, requests = team.run("tidy up", [bash(f"rm {keep}", "toolu_d1"), answer("refused")])

    assert keep.read_text(encoding="utf-8") == "precious"
    assert [d["tool_use_id"] for d in result["permission_denials"]] == ["toolu_d1"]
    [denied] = tool_results(requests[1])
    assert "Deleting files is not allowed." in result_text(denied)
    records = team.records()
    run_id = f"claude-code-{result['session_id']}"
    assert {r["run_id"] for r in records} == {run_id}
    assert {r["agent"] for r in records} == {"ada"}  # the token's caller, on every record
    decisions = [(r["type"], r["tool_name"], r["denied"]) for r in records if r["tool_name"]]
    assert decisions == [("pre_tool_call", "Bash", "Deleting files is not allowed.")]
    types = [r["type"] for r in records]
    assert types[0] == "on_chat_start" and types[-1] == "on_chat_end"
    assert [r["seq"] for r in records] == list(range(1, len(records) + 1))


def test_an_approval_answered_from_another_process_lets_the_call_run(
    tmp_path: Path, url: str, prefix: str
) -> None:
    team = Team(tmp_path, url, prefix)
    answered: list[str] = []

    def approver() -> None:
        # a person in another process: list what waits, approve it
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            listed = team.cli("approvals", "list", "--source", "redis", "--json")
            pending = json.loads(listed.stdout or "[]")
            if pending:
                done = team.cli("approvals", "approve", pending[0]["id"], "--by", "bob")
                answered.append(done.stdout)
                return
            time.sleep(0.3)

    thread = threading.Thread(target=approver)
    thread.start()
    command = "echo shipped > deployed.txt # deploy"
    result, requests = team.run("ship it", [bash(command, "toolu_a1"), answer("shipped")])
    thread.join(70)

    assert len(answered) == 1 and answered[0].startswith("approved ")
    assert (team.workdir / "deployed.txt").read_text(encoding="utf-8") == "shipped\n"
    assert result["permission_denials"] == []
    [ran] = tool_results(requests[1])
    assert ran.get("is_error") is not True
    records = team.records()
    pre = [r for r in records if r["type"] == "pre_tool_call"]
    assert [(r["agent"], r["denied"]) for r in pre] == [("ada", None)]


def test_a_limits_cap_on_tool_calls_stops_the_session(
    tmp_path: Path, url: str, prefix: str
) -> None:
    team = Team(tmp_path, url, prefix, limits=True)

    _, requests = team.run(
        "two steps",
        [
            bash("echo one > one.txt", "toolu_l1"),
            bash("echo two > two.txt", "toolu_l2"),
            answer("never asked"),
        ],
    )

    assert (team.workdir / "one.txt").exists()
    assert not (team.workdir / "two.txt").exists()
    assert len(requests) == 2  # the session stopped: the model was not asked again
    records = team.records(until="on_chat_end")
    stops = [r for r in records if r["type"] == "on_stop"]
    assert len(stops) == 1
    assert "tool call limit: 1 of 1 tool calls used" in json.dumps(stops[0])
    types = [r["type"] for r in records]
    assert types.count("on_chat_error") == 1 and types[-1] == "on_chat_end"
    assert "on_chat_done" not in types


def test_two_workers_serve_one_session_as_one_run(tmp_path: Path, url: str, prefix: str) -> None:
    """Sessions' state in Redis: whichever worker answers, the session starts once, keeps
    its owner, and every decision lands on the one run."""
    team = Team(tmp_path, url, prefix, claude=False)
    tokens = write_tokens(tmp_path / "tokens2", ada=TOKEN, bob="tok-bob-9")
    session = f"s-{uuid.uuid4().hex}"

    def body(command: str) -> dict[str, Any]:
        return {
            "session_id": session,
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "tool_use_id": f"toolu_{command[-2:]}",
        }

    with serve_command(
        "--token-file",
        str(tokens),
        "--workers",
        "2",
        "--redis",
        url,
        "--redis-prefix",
        f"{prefix}state:",
        env=team.env,
    ) as server:
        answers = []
        for n in range(30):
            command = f"rm f{n:02d}" if n % 3 == 0 else f"ls d{n:02d}"
            # a new connection each time, so the workers share the requests
            with httpx.Client(timeout=30) as client:
                answers.append(
                    client.post(
                        f"{server}/v1/hooks/claude-code",
                        json=body(command),
                        headers={"Authorization": f"Bearer {TOKEN}"},
                    )
                )
        with httpx.Client(timeout=30) as client:
            theirs = client.post(
                f"{server}/v1/hooks/claude-code",
                json=body("ls x"),
                headers={"Authorization": "Bearer tok-bob-9"},
            )
            end = client.post(
                f"{server}/v1/hooks/claude-code",
                json={"session_id": session, "hook_event_name": "SessionEnd", "reason": "other"},
                headers={"Authorization": f"Bearer {TOKEN}"},
            )
    assert [a.status_code for a in answers] == [200] * 30
    decisions = [a.json().get("hookSpecificOutput", {}).get("permissionDecision") for a in answers]
    assert decisions == ["deny" if n % 3 == 0 else None for n in range(30)]
    assert theirs.status_code == 403
    assert end.status_code == 200
    records = [r for r in team.records() if r["session_id"] == session]
    types = [r["type"] for r in records]
    assert types.count("on_chat_start") == 1
    assert types.count("pre_tool_call") == 30
    assert {r["run_id"] for r in records} == {f"claude-code-{session}"}
    assert {r["agent"] for r in records} == {"ada"}
    # numbered on across the workers: a worker taking the session up says so first
    assert sorted(r["seq"] for r in records) == list(range(1, len(records) + 1))
    assert len({r["seq"] for r in records}) == len(records)
    assert types.count("on_run_resumed") >= 1  # both workers answered


def _pre_tool(session: str, command: str) -> dict[str, Any]:
    return {
        "session_id": session,
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "toolu_x",
    }


def _decision(response: httpx.Response) -> Any:
    return response.json().get("hookSpecificOutput", {}).get("permissionDecision")


def test_a_worker_killed_mid_answer_fails_closed_and_the_server_keeps_serving(
    tmp_path: Path, url: str, prefix: str
) -> None:
    team = Team(tmp_path, url, prefix, claude=False)
    headers = {"Authorization": f"Bearer {TOKEN}"}
    with serve_command(
        "--token-file",
        str(team.tokens),
        "--workers",
        "2",
        "--redis",
        url,
        "--redis-prefix",
        f"{prefix}state:",
        env=team.env,
    ) as server:
        workers = children(server.process.pid)
        # multiprocessing's resource tracker is a child too: the workers answer /healthz
        assert len(workers) >= 2
        failures: list[str] = []

        def waiting() -> None:
            # an ask the Redis approver holds until someone answers: the worker dies first
            try:
                httpx.post(
                    f"{server}/v1/hooks/claude-code",
                    json=_pre_tool(f"s-{uuid.uuid4().hex}", "echo x # deploy"),
                    headers=headers,
                    timeout=30,
                )
                failures.append("answered")
            except httpx.HTTPError as exc:
                failures.append(type(exc).__name__)

        thread = threading.Thread(target=waiting)
        thread.start()
        deadline = time.monotonic() + 20
        while not team.cli("approvals", "list", "--source", "redis", "--json").stdout.strip(
            "[]\n "
        ):
            assert time.monotonic() < deadline, "the ask never reached the approver"
            time.sleep(0.2)
        for pid in workers:
            try:
                os.kill(pid, 9)
            except ProcessLookupError:
                pass
        thread.join(40)
        # the client saw a failure (closed with onFailure: "block"), never an allow
        assert failures and failures[0] != "answered"
        deadline = time.monotonic() + 30
        while True:
            try:
                got = httpx.post(
                    f"{server}/v1/hooks/claude-code",
                    json=_pre_tool(f"s-{uuid.uuid4().hex}", "rm -rf build"),
                    headers=headers,
                    timeout=10,
                )
                break
            except httpx.HTTPError:
                assert time.monotonic() < deadline, "no worker came back"
                time.sleep(0.5)
        assert _decision(got) == "deny"


def test_redis_restarted_fails_closed_then_serves_again(
    tmp_path: Path, url: str, prefix: str
) -> None:
    team = Team(tmp_path, url, prefix, claude=False)
    headers = {"Authorization": f"Bearer {TOKEN}"}
    with (
        own_redis(tmp_path) as state_redis,
        serve_command(
            "--token-file", str(team.tokens), "--redis", state_redis.url, env=team.env
        ) as server,
    ):

        def ask(session: str) -> httpx.Response:
            return httpx.post(
                f"{server}/v1/hooks/claude-code",
                json=_pre_tool(session, "rm -rf build"),
                headers=headers,
                timeout=30,
            )

        before = ask("s-before")
        state_redis.stop()
        during = ask("s-during")
        state_redis.start()
        after = [ask("s-after") for _ in range(2)]
    assert _decision(before) == "deny"
    assert during.status_code == 500
    assert during.json()["error"].startswith("hook failed: ConnectionError: ")
    assert "\n" not in during.json()["error"]
    assert [_decision(a) for a in after] == ["deny", "deny"]


def test_a_rate_per_caller_holds_across_workers(tmp_path: Path, url: str, prefix: str) -> None:
    team = Team(tmp_path, url, prefix, claude=False)
    caller = f"rate{uuid.uuid4().hex[:8]}"
    tokens = write_tokens(tmp_path / "tokens-rate", **{caller: "tok-rate-1"})
    with serve_command(
        "--token-file",
        str(tokens),
        "--workers",
        "2",
        "--redis",
        url,
        "--redis-prefix",
        f"{prefix}state:",
        "--rate",
        "5/60",
        env=team.env,
    ) as server:
        codes = []
        for _ in range(8):
            with httpx.Client(timeout=30) as client:  # new connections: both workers answer
                codes.append(
                    client.post(
                        f"{server}/v1/hooks/claude-code",
                        json=_pre_tool(f"s-{uuid.uuid4().hex}", "ls"),
                        headers={"Authorization": "Bearer tok-rate-1"},
                    ).status_code
                )
    assert codes == [200] * 5 + [429] * 3


def _limits_store(tmp_path: Path, url: str, prefix: str, cap: int) -> Path:
    """A limits file whose per-run cap on tool calls is counted in the shared store."""
    config = tmp_path / "limits-shared.toml"
    config.write_text(
        f'max_tool_calls = {cap}\n\n[store]\nurl = "{url}"\nprefix = "{prefix}limits:"\n',
        encoding="utf-8",
    )
    return config


def _two_workers(team: Team, url: str, prefix: str) -> Any:
    return serve_command(
        "--token-file",
        str(team.tokens),
        "--workers",
        "2",
        "--redis",
        url,
        "--redis-prefix",
        f"{prefix}state:",
        env=team.env,
    )


def _worker_of(response: httpx.Response, server_port: int, workers: list[int]) -> int | None:
    """The worker holding the server side of the response's connection (from /proc: the
    socket whose remote port is the client's, and the worker with a descriptor on it)."""
    port = response.extensions["network_stream"].get_extra_info("client_addr")[1]
    inodes = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, remote = fields[1], fields[2]
        if int(local.split(":")[1], 16) == server_port and int(remote.split(":")[1], 16) == port:
            inodes.add(f"socket:[{fields[9]}]")
    for pid in workers:
        try:
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                try:
                    if os.readlink(fd) in inodes:
                        return pid
                except OSError:
                    continue
        except OSError:
            continue
    return None


def _pinned(server: Any, each: int) -> list[list[httpx.Client]]:
    """``each`` open clients per worker of the server (two): every request a client sends
    goes to its worker, so a test decides which worker answers."""
    port = int(str(server).rsplit(":", 1)[1])
    workers = children(server.process.pid)
    pinned: dict[int, list[httpx.Client]] = {}
    for _ in range(400):
        client = httpx.Client(timeout=60, limits=httpx.Limits(max_connections=1))
        pid = _worker_of(client.get(f"{server}/healthz"), port, workers)
        if pid is None or len(pinned.setdefault(pid, [])) >= each:
            client.close()
        else:
            pinned[pid].append(client)
        if len(pinned) == 2 and all(len(c) == each for c in pinned.values()):
            return list(pinned.values())
    raise AssertionError(f"the connections did not reach both workers: {pinned}")


DENIED = 'Tool call "Bash" was denied (tool call limit: {n} of {n} tool calls used)'
HEADERS = {"Authorization": f"Bearer {TOKEN}"}


def test_a_per_session_tool_call_cap_holds_across_two_workers(
    tmp_path: Path, url: str, prefix: str
) -> None:
    """Four allowed, the fifth and later denied, the workers taking turns: the session's
    count is one counter in Redis, not one per worker."""
    team = Team(tmp_path, url, prefix, claude=False)
    team.env["AGENTHOOKS_LIMITS_CONFIG"] = str(_limits_store(tmp_path, url, prefix, 4))
    session, other = f"s-{uuid.uuid4().hex}", f"s-{uuid.uuid4().hex}"
    with _two_workers(team, url, prefix) as server:
        [first], [second] = _pinned(server, 1)
        hook = f"{server}/v1/hooks/claude-code"
        answers = [
            (first if n % 2 == 0 else second).post(
                hook, json=_pre_tool(session, f"ls d{n}"), headers=HEADERS
            )
            for n in range(8)
        ]
        # another session: counted by the first worker alone, ended by the second
        theirs = [
            first.post(hook, json=_pre_tool(other, f"ls o{n}"), headers=HEADERS) for n in (1, 2)
        ]
        ends = [
            worker.post(
                hook,
                json={"session_id": s, "hook_event_name": "SessionEnd", "reason": "other"},
                headers=HEADERS,
            )
            for worker, s in ((first, session), (second, other))
        ]
        counters = [f"{prefix}limits:run:claude-code-{s}:tool_calls" for s in (session, other)]
        client_redis = redis.Redis.from_url(url, decode_responses=True)
        try:
            deadline = time.monotonic() + 10
            while client_redis.exists(*counters) and time.monotonic() < deadline:
                time.sleep(0.1)  # the end's handlers may still be running after the answer
            left = client_redis.exists(*counters)
        finally:
            client_redis.close()
        for client in (first, second):
            client.close()
    assert [a.status_code for a in answers] == [200] * 8
    assert [_decision(a) for a in answers] == [None] * 4 + ["deny"] * 4
    reasons = {a.json()["hookSpecificOutput"]["permissionDecisionReason"] for a in answers[4:]}
    assert reasons == {DENIED.format(n=4)}
    assert [_decision(a) for a in theirs] == [None, None]  # a count of its own
    assert [e.status_code for e in ends] == [200, 200]
    assert left == 0  # the ended sessions' counters went with them, whichever worker ended them
    records = [r for r in team.records() if r["session_id"] == session]
    pre = [r["denied"] for r in records if r["type"] == "pre_tool_call"]
    assert pre == [None] * 4 + [DENIED.format(n=4)] * 4
    assert [r["type"] for r in records].count("on_run_resumed") >= 1


def test_a_per_session_cap_holds_under_concurrent_requests_to_two_workers(
    tmp_path: Path, url: str, prefix: str
) -> None:
    """Thirty calls of one session at once, fifteen to each worker: exactly seven pass,
    counted by one script in Redis, so two workers never both pass the last allowed call."""
    team = Team(tmp_path, url, prefix, claude=False)
    team.env["AGENTHOOKS_LIMITS_CONFIG"] = str(_limits_store(tmp_path, url, prefix, 7))
    session = f"s-{uuid.uuid4().hex}"
    hook_body = {"session_id": session, "hook_event_name": "SessionStart"}
    with _two_workers(team, url, prefix) as server:
        hook = f"{server}/v1/hooks/claude-code"
        pinned = _pinned(server, 15)
        started = pinned[0][0].post(hook, json=hook_body, headers=HEADERS)
        clients = [c for pair in zip(*pinned) for c in pair]  # the workers alternate
        answers: list[httpx.Response | None] = [None] * 30
        barrier = threading.Barrier(30)

        def ask(n: int) -> None:
            barrier.wait()
            answers[n] = clients[n].post(hook, json=_pre_tool(session, f"ls c{n}"), headers=HEADERS)

        threads = [threading.Thread(target=ask, args=(n,)) for n in range(30)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(90)
        for client in clients:
            client.close()
        counted = redis.Redis.from_url(url, decode_responses=True)
        try:
            total = counted.get(f"{prefix}limits:run:claude-code-{session}:tool_calls")
        finally:
            counted.close()
    assert started.status_code == 200
    got = [a for a in answers if a is not None]
    assert [a.status_code for a in got] == [200] * 30
    decisions = [_decision(a) for a in got]
    assert decisions.count(None) == 7 and decisions.count("deny") == 23
    denied = {
        a.json()["hookSpecificOutput"]["permissionDecisionReason"]
        for a in got
        if _decision(a) == "deny"
    }
    assert denied == {DENIED.format(n=7)}
    assert float(total or 0) == 7  # the refused calls were never counted


def test_claude_code_stopped_by_a_cap_counted_in_redis_by_two_workers(
    tmp_path: Path, url: str, prefix: str
) -> None:
    """The real client against two workers and a limits file with a ``[store]``: the second
    call of the session is its last, and the session's counter goes with its run."""
    team = Team(tmp_path, url, prefix)
    config = tmp_path / "limits-stop.toml"
    config.write_text(
        f'max_tool_calls = {{ limit = 2, action = "stop" }}\n\n'
        f'[store]\nurl = "{url}"\nprefix = "{prefix}limits:"\n',
        encoding="utf-8",
    )
    team.env["AGENTHOOKS_LIMITS_CONFIG"] = str(config)
    result, requests = team.run(
        "three steps",
        [
            bash("echo one > one.txt", "toolu_r1"),
            bash("echo two > two.txt", "toolu_r2"),
            bash("echo three > three.txt", "toolu_r3"),
            answer("never asked"),
        ],
        "--workers",
        "2",
        "--redis",
        url,
        "--redis-prefix",
        f"{prefix}state:",
    )
    assert (team.workdir / "one.txt").exists() and (team.workdir / "two.txt").exists()
    assert not (team.workdir / "three.txt").exists()
    assert len(requests) == 3  # stopped at the third call: the model was not asked again
    records = team.records(until="on_chat_end")
    stops = [r for r in records if r["type"] == "on_stop"]
    assert len(stops) == 1
    assert "tool call limit: 2 of 2 tool calls used" in json.dumps(stops[0])
    client = redis.Redis.from_url(url, decode_responses=True)
    try:
        run_id = f"claude-code-{result['session_id']}"
        assert client.exists(f"{prefix}limits:run:{run_id}:tool_calls") == 0
    finally:
        client.close()
