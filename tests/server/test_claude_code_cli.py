"""The real Claude Code CLI (npm ``@anthropic-ai/claude-code``, pinned) run headless against
the loopback Anthropic server, its HTTP hooks pointing at the hook server: the bus's handlers
decide what Claude Code does. Handlers are registered in code here; the same cases with the
Guard policy file, Limits, approvals and the Redis stream are in the plugins' tests."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from anthropic_server import AnthropicServer, message, stream_reply, text, tool_use
from server_support import (
    ServerThread,
    claude_missing,
    hook_settings,
    result_text,
    run_claude,
    tool_results,
    write_tokens,
)

from agenthooks import Ask, Deny, HookBus, ToolCall
from agenthooks.server import Tokens, create_app
from agenthooks.testing import require

pytestmark = [pytest.mark.subprocess, pytest.mark.server]

TOKEN = "tok-ada-7f3c"


@pytest.fixture(autouse=True)
def _claude() -> None:
    require(claude_missing())


def bash(command: str, call_id: str = "toolu_01") -> Any:
    return stream_reply(
        message(
            tool_use(call_id, "Bash", {"command": command, "description": "run it"}),
            stop_reason="tool_use",
        )
    )


def answer(words: str) -> Any:
    return stream_reply(message(text(words)))


class Served:
    """A bus with a records list, served behind a token file."""

    def __init__(self, tmp_path: Path) -> None:
        self.bus = HookBus()
        self.records: list[Any] = []
        self.bus.on("on_event", self.records.append)
        self.tokens = Tokens.from_file(write_tokens(tmp_path / "tokens", ada=TOKEN))
        self.workdir = tmp_path / "work"
        self.workdir.mkdir()

    def run(
        self, prompt: str, replies: list[Any], *, token: str = TOKEN, **options: Any
    ) -> tuple[dict[str, Any], list[Any]]:
        mcp = options.pop("mcp_config", None)
        with (
            ServerThread(create_app(self.bus, tokens=self.tokens)) as server,
            AnthropicServer() as model,
        ):
            model.reply(*replies)
            result = run_claude(
                prompt,
                base_url=model.base_url,
                settings=hook_settings(server.url, **options),
                workdir=self.workdir,
                env={"AGENTHOOKS_TOKEN": token},
                mcp_config=mcp,
            )
            return result, model.requests

    def types(self) -> list[str]:
        return [r.type for r in self.records]


def test_a_denied_bash_command_never_runs_and_the_model_reads_why(tmp_path: Path) -> None:
    served = Served(tmp_path)
    keep = served.workdir / "keep.txt"
    keep.write_text("precious", encoding="utf-8")

    def no_rm(ctx: Any) -> Deny | None:
        return (
            Deny("Deleting files is not allowed.")
            if "rm " in ctx.call.arguments["command"]
            else None
        )

    served.bus.on("pre_tool_call", no_rm, match="Bash", guard=True)
    result, requests = served.run("tidy up", [bash(f"rm {keep}"), answer("I could not.")])

    assert keep.read_text(encoding="utf-8") == "precious"
    assert result["permission_denials"] == [
        {
            "tool_name": "Bash",
            "tool_use_id": "toolu_01",
            "tool_input": {"command": f"rm {keep}", "description": "run it"},
        }
    ]
    [denied] = tool_results(requests[1])
    assert denied["is_error"] is True
    assert "Deleting files is not allowed." in result_text(denied)
    assert result["result"] == "I could not."
    session = result["session_id"]
    # one run for the session, every record naming the caller
    assert {r.run_id for r in served.records} == {f"claude-code-{session}"}
    assert {r.agent for r in served.records} == {"ada"}
    pre = [r for r in served.records if r.type == "pre_tool_call"]
    assert [(r.tool_name, r.tool_call_id, r.denied) for r in pre] == [
        ("Bash", "toolu_01", "Deleting files is not allowed.")
    ]
    types = served.types()
    assert types[0] == "on_chat_start"
    assert types.count("on_chat_start") == 1
    assert types[-2:] == ["on_chat_done", "on_chat_end"]
    assert "on_tool_call_result" not in types  # the call never ran


def test_a_call_rewrite_runs_the_rewritten_command(tmp_path: Path) -> None:
    served = Served(tmp_path)

    def safer(ctx: Any) -> dict[str, ToolCall]:
        arguments = {**ctx.call.arguments, "command": "echo rewritten > out.txt"}
        return {"call": ctx.call.model_copy(update={"arguments": arguments})}

    served.bus.on("pre_tool_call", safer, match="Bash")
    result, requests = served.run("write", [bash("echo original > out.txt"), answer("done")])

    assert (served.workdir / "out.txt").read_text(encoding="utf-8") == "rewritten\n"
    assert result["permission_denials"] == []
    [done] = tool_results(requests[1])
    assert done.get("is_error") is not True
    after = [r for r in served.records if r.type == "on_tool_call_result"]
    assert len(after) == 1 and after[0].tool_call_id == "toolu_01"


def test_a_user_prompt_deny_blocks_the_prompt(tmp_path: Path) -> None:
    served = Served(tmp_path)

    def no_secrets(ctx: Any) -> Deny | None:
        return Deny("Never share passwords here.") if "password" in ctx.message else None

    served.bus.on("on_user_message", no_secrets, guard=True)
    result, requests = served.run("my password is hunter2", [answer("never sent")])

    assert requests == []  # the model never saw the prompt
    assert result["num_turns"] == 0
    assert result["result"].startswith("UserPromptSubmit operation blocked by hook:\n")
    assert "Never share passwords here." in result["result"]
    denied = [r for r in served.records if r.type == "on_user_message"]
    assert [r.denied for r in denied] == ["Never share passwords here."]


def test_an_mcp_tools_output_is_redacted_before_the_model_reads_it(tmp_path: Path) -> None:
    served = Served(tmp_path)

    def redact(ctx: Any) -> dict[str, Any] | None:
        if isinstance(ctx.result, (str, list, dict)):
            return {"result": _redacted(ctx.result)}
        return None

    served.bus.on("on_tool_call_result", redact, guard=True)
    server = Path(__file__).with_name("contacts_server.py")
    mcp = {"mcpServers": {"contacts": {"command": sys.executable, "args": [str(server)]}}}
    call = stream_reply(
        message(
            tool_use("toolu_m1", "mcp__contacts__lookup", {"name": "Ada"}), stop_reason="tool_use"
        )
    )
    _, requests = served.run(
        "find Ada",
        [call, answer("found")],
        mcp_config=mcp,
        allow=("Bash", "mcp__contacts__lookup"),
    )

    [looked_up] = tool_results(requests[1])
    seen = result_text(looked_up)
    assert "ada@example.com" not in seen
    assert "[REDACTED:email]" in seen
    assert "desk 4" in seen


def _redacted(value: Any) -> Any:
    if isinstance(value, str):
        return value.replace("ada@example.com", "[REDACTED:email]")
    if isinstance(value, list):
        return [_redacted(v) for v in value]
    if isinstance(value, dict):
        return {k: _redacted(v) for k, v in value.items()}
    return value


def test_a_wrong_token_fails_closed_with_on_failure_block(tmp_path: Path) -> None:
    served = Served(tmp_path)
    keep = served.workdir / "keep.txt"
    keep.write_text("precious", encoding="utf-8")
    ran: list[str] = []
    served.bus.on("pre_tool_call", lambda ctx: ran.append(ctx.call.name))

    # only the tool hook, so the model is asked and its Bash call meets the failing hook
    result, requests = served.run(
        "tidy up",
        [bash(f"rm {keep}"), answer("blocked")],
        token="not-the-token",
        events=("PreToolUse",),
    )

    assert keep.exists()  # the hook failed and the call was blocked
    [blocked] = tool_results(requests[1])
    assert blocked["is_error"] is True
    assert "HTTP 401" in result_text(blocked)
    assert ran == []  # no handler ran for the unknown token
    assert served.records == []
    assert result["result"] == "blocked"


def test_an_ask_goes_to_claude_codes_own_prompt_which_headless_refuses(tmp_path: Path) -> None:
    served = Served(tmp_path)
    made = served.workdir / "made.txt"
    served.bus.on("pre_tool_call", lambda ctx: Ask("A person must approve writes."), guard=True)
    result, requests = served.run("write", [bash(f"echo hi > {made}"), answer("ok")])

    assert not made.exists()  # `claude -p` has nobody to ask: the call does not run
    assert [d["tool_use_id"] for d in result["permission_denials"]] == ["toolu_01"]
    [refused] = tool_results(requests[1])
    assert result_text(refused).startswith("A person must approve writes.")
    assert [(r.type, r.asked) for r in served.records if r.type == "pre_tool_call"] == [
        ("pre_tool_call", "A person must approve writes.")
    ]
