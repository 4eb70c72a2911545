"""The main job: the demo agent runs on the installed plugins, offline and over the wire."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agenthooks.demo import main

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "providers"))
from wire_server import WireServer, completion, error_reply, json_reply, tool_call

pytestmark = [pytest.mark.subprocess, pytest.mark.server]

ROOT = Path(__file__).resolve().parents[2]
DENY = "Deleting files is not allowed in this workspace."


def timeline(text: str) -> list[tuple[str, str]]:
    """(event, what it says) for each timeline line of the demo's output."""
    rows = []
    for line in text.splitlines():
        parts = line.split(" ms ", 1)
        if len(parts) == 2 and parts[0].strip().replace(".", "").isdigit():
            body = parts[1][4:].strip()
            event, _, said = body.partition(" ")
            rows.append((event, said.strip()))
    return rows


def test_the_offline_demo_shows_deny_redaction_retry_and_cache() -> None:
    out = io.StringIO()
    assert main([], out=out) == 0
    text = out.getvalue()
    sessions = text.split("== Session 2")
    assert len(sessions) == 2
    first, second = timeline(sessions[0]), timeline(sessions[1])
    # the guard plugin denied the tool; its reason is the tool message the model reads
    assert ("pre_tool_call", f"DENIED: {DENY}") in first
    assert ("on_message", f"tool: {DENY}") in first
    # the guard plugin redacted the e-mail address and the phone number of the tool result
    results = [said for event, said in first if event == "on_tool_call_result"]
    assert results[0].startswith(
        'lookup_user → {"name": "Ada Lovelace", "email": "[REDACTED:email]", "phone": "[REDA'
    )
    # the retry plugin recovered the dropped connection: the turn still got its answer
    assert [said for event, said in first if event == "on_response"] == [
        'asks for lookup_user({"name": "Ada"}), delete_file({"path": "/etc/passwd"})',
        'asks for get_weather({"city": "London"})',
        "answers Ada Lovelace works in Analytical Engines (her contact details are red…",
    ]
    # the cache plugin answered every model call of session 2
    assert [said for event, said in second if event == "pre_request"] == [
        "served from the cache (the provider is not called)"
    ] * 3
    assert ("pre_tool_call", f"DENIED: {DENY}") in second  # the guard still ran after the cache
    assert "model calls made: 4 (one failed and was retried; session 2 made none)" in text
    assert text.count("(stop, 3 turns") == 2


def test_the_demo_leaves_the_process_environment_as_it_was() -> None:
    before = dict(os.environ)
    main([], out=io.StringIO())
    assert dict(os.environ) == before


def test_the_demo_runs_against_an_openai_compatible_server() -> None:
    with WireServer() as server:
        server.reply(
            json_reply(
                completion(
                    tool_calls=[
                        tool_call("c1", "lookup_user", {"name": "Ada"}),
                        tool_call("c2", "delete_file", {"path": "/etc/passwd"}),
                    ],
                    finish_reason="tool_calls",
                )
            ),
            error_reply(503, "overloaded"),
            json_reply(
                completion(
                    tool_calls=[tool_call("c3", "get_weather", {"city": "London"})],
                    finish_reason="tool_calls",
                )
            ),
            json_reply(completion("Ada is in Analytical Engines; London is rainy.")),
        )
        out = io.StringIO()
        code = main(["--base-url", server.url, "--model", "demo-model"], out=out)
        bodies = server.requests
    assert code == 0
    assert len(bodies) == 4  # session 2 was served from the cache
    assert [b["model"] for b in bodies] == ["demo-model"] * 4
    tool_messages = [m for m in bodies[2]["messages"] if m["role"] == "tool"]
    assert [m["content"] for m in tool_messages][1] == DENY
    assert json.loads(tool_messages[0]["content"])["email"] == "[REDACTED:email]"
    finals = [line for line in out.getvalue().splitlines() if line.startswith("   assistant: ")]
    assert finals == ["   assistant: Ada is in Analytical Engines; London is rainy."] * 2


def test_make_demo_entry_point_runs_as_a_module() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "agenthooks.demo"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert f"DENIED: {DENY}" in done.stdout


def test_the_demo_refuses_a_model_without_a_server() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "agenthooks.demo", "--model", "x"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert "--model needs --base-url" in done.stderr
