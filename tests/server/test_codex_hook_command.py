"""Codex through ``agenthooks hook codex``: the command hook reads Codex's hook input on
stdin, asks ``/v1/hooks/codex`` and answers as Codex reads command hooks (exit 2 and the
reason on stderr for a deny; the JSON answer on stdout otherwise). The same scripted cases as
the Claude Code tests, and failing closed when the server cannot answer."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from server_support import ServerThread, free_port, write_tokens

from agenthooks import Deny, HookBus, ToolCall
from agenthooks.server import Tokens, create_app

pytestmark = [pytest.mark.subprocess, pytest.mark.server]

TOKEN = "tok-codex-5"


def hook(url: str, body: Any, *, token: str | None = TOKEN) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin"}
    if token is not None:
        env["AGENTHOOKS_TOKEN"] = token
    return subprocess.run(
        [sys.executable, "-m", "agenthooks.cli", "hook", "codex", "--url", url],
        input=json.dumps(body) if not isinstance(body, str) else body,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


def codex_event(event: str, session: str = "019a-codex", **fields: Any) -> dict[str, Any]:
    return {
        "session_id": session,
        "transcript_path": None,
        "cwd": "/repo",
        "hook_event_name": event,
        "model": "gpt-5-codex",
        **fields,
    }


def bash(command: str) -> dict[str, Any]:
    return codex_event(
        "PreToolUse", tool_name="Bash", tool_input={"command": command}, tool_use_id="call_1"
    )


@pytest.fixture
def served(tmp_path: Path) -> Any:
    bus = HookBus()
    records: list[Any] = []
    bus.on("on_event", records.append)

    def policy(ctx: Any) -> Any:
        command = ctx.call.arguments.get("command", "")
        if "rm " in command:
            return Deny("Deleting files is not allowed.")
        if command.startswith("curl "):
            arguments = {
                **ctx.call.arguments,
                "command": command.replace("curl ", "curl --proto =https "),
            }
            return {"call": ToolCall(id=ctx.call.id, name=ctx.call.name, arguments=arguments)}
        return None

    bus.on("pre_tool_call", policy, guard=True)
    bus.on(
        "on_user_message",
        lambda ctx: Deny("Never share passwords here.") if "password" in ctx.message else None,
        guard=True,
    )
    bus.on(
        "on_tool_call_result",
        lambda ctx: {"result": str(ctx.result).replace("ada@example.com", "[REDACTED:email]")},
        guard=True,
    )
    tokens = Tokens.from_file(write_tokens(tmp_path / "tokens", dev=TOKEN))
    with ServerThread(create_app(bus, tokens=tokens)) as server:
        yield server, records


def test_a_denied_command_exits_2_with_the_reason(served: Any) -> None:
    server, records = served
    done = hook(server.url, bash("rm -rf build"))
    assert (done.returncode, done.stdout, done.stderr) == (
        2,
        "",
        "Deleting files is not allowed.\n",
    )
    [pre] = [r for r in records if r.type == "pre_tool_call"]
    assert (pre.run_id, pre.agent, pre.denied) == (
        "codex-019a-codex",
        "dev",
        "Deleting files is not allowed.",
    )


def test_a_rewrite_is_answered_with_the_updated_input(served: Any) -> None:
    server, _ = served
    done = hook(server.url, bash("curl example.org"))
    assert done.returncode == 0
    assert json.loads(done.stdout) == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "updatedInput": {"command": "curl --proto =https example.org"},
        }
    }


def test_an_allowed_command_prints_nothing_and_exits_0(served: Any) -> None:
    server, _ = served
    done = hook(server.url, bash("ls"))
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_a_prompt_deny_exits_2(served: Any) -> None:
    server, _ = served
    done = hook(server.url, codex_event("UserPromptSubmit", prompt="my password is x"))
    assert (done.returncode, done.stderr) == (2, "Never share passwords here.\n")


def test_an_output_rewrite_codex_cannot_carry_is_a_typed_error_in_the_records(served: Any) -> None:
    server, records = served
    body = codex_event(
        "PostToolUse",
        tool_name="mcp__contacts__lookup",
        tool_input={"name": "Ada"},
        tool_use_id="call_2",
        tool_response="Ada: ada@example.com",
    )
    done = hook(server.url, body)
    assert (done.returncode, done.stdout) == (0, "")
    [problem] = [r for r in records if r.type == "codex:unsupported"]
    assert problem.error == (
        "a handler of 'on_tool_call_result' returned {'result': ...}, which codex cannot carry out"
    )


def test_a_wrong_token_fails_closed(served: Any) -> None:
    server, records = served
    done = hook(server.url, bash("ls"), token="stolen")
    assert done.returncode == 2
    assert done.stderr == (
        "agenthooks hook: blocked (fail closed): the hook server answered 401: "
        "unauthorized: unknown bearer token\n"
    )
    assert records == []


def test_an_unreachable_server_fails_closed_for_gates_and_open_for_reports() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    gate = hook(url, bash("ls"))
    report = hook(url, codex_event("Stop"))
    garbage = hook(url, "{not json")
    assert gate.returncode == 2
    assert gate.stderr == (
        f"agenthooks hook: blocked (fail closed): the hook server at {url} cannot be reached "
        "(ConnectError)\n"
    )
    assert report.returncode == 0
    assert report.stderr.startswith("agenthooks hook: not checked (fail open): ")
    assert garbage.returncode == 2
