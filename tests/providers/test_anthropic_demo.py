"""``make demo --provider anthropic``: the demo agent, its plugins untouched, runs on
AnthropicProvider against a loopback Messages API server."""

from __future__ import annotations

import io
import json

import pytest
from anthropic_server import (
    AnthropicServer,
    error_reply,
    message,
    message_reply,
    text,
    tool_use,
)

from agenthooks.cli import build_parser
from agenthooks.cli.demo import demo_argv
from agenthooks.demo import main

pytestmark = pytest.mark.server

DENY = "Deleting files is not allowed in this workspace."
ANSWER = "Ada is in Analytical Engines; London is rainy."


def test_the_demo_runs_on_the_anthropic_provider() -> None:
    with AnthropicServer() as server:
        server.reply(
            message_reply(
                message(
                    tool_use("toolu_user", "lookup_user", {"name": "Ada"}),
                    tool_use("toolu_del", "delete_file", {"path": "/etc/passwd"}),
                    stop_reason="tool_use",
                )
            ),
            error_reply(529, "overloaded_error", "Overloaded"),  # the retry plugin retries it
            message_reply(
                message(
                    tool_use("toolu_w", "get_weather", {"city": "London"}), stop_reason="tool_use"
                )
            ),
            message_reply(message(text(ANSWER))),
        )
        out = io.StringIO()
        argv = ["--provider", "anthropic", "--base-url", server.base_url, "--model", "claude-demo"]
        code = main([*argv, "--api-key", "sk-ant-demo"], out=out)
        received = server.received
    assert code == 0, out.getvalue()
    assert len(received) == 4  # session 2 was served from the cache
    assert {r.path for r in received} == {"/v1/messages"}
    assert {r.headers["x-api-key"] for r in received} == {"sk-ant-demo"}
    bodies = [r.json for r in received]
    assert [b["model"] for b in bodies] == ["claude-demo"] * 4
    assert bodies[0]["system"].startswith("You are a helpful office assistant.")
    assert [t["name"] for t in bodies[0]["tools"]] == ["lookup_user", "get_weather", "delete_file"]
    results = bodies[2]["messages"][2]["content"]
    assert [(r["tool_use_id"], r.get("is_error", False)) for r in results] == [
        ("toolu_user", False),
        ("toolu_del", True),
    ]
    assert results[1]["content"] == DENY
    assert json.loads(results[0]["content"])["email"] == "[REDACTED:email]"
    finals = [line for line in out.getvalue().splitlines() if line.startswith("   assistant: ")]
    assert finals == [f"   assistant: {ANSWER}"] * 2


@pytest.mark.parametrize(
    ("argv", "problem"),
    [
        (["--provider", "anthropic"], "--provider anthropic needs --model"),
        (["--provider", "openai", "--model", "m"], "--provider openai needs --base-url"),
        (["--provider", "scripted", "--base-url", "http://x"], "--base-url needs --provider"),
        (["--provider", "gemini"], "argument --provider: invalid choice: 'gemini'"),
    ],
)
def test_bad_provider_options_are_usage_errors(
    argv: list[str], problem: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as caught:
        main(argv, out=io.StringIO())
    assert caught.value.code == 2
    assert problem in capsys.readouterr().err


def test_the_cli_passes_the_provider_through() -> None:
    args = build_parser().parse_args(["demo", "--provider", "anthropic", "--model", "claude-demo"])
    assert demo_argv(args) == ["--provider", "anthropic", "--model", "claude-demo"]
