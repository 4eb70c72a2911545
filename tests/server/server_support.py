"""What the hook server's tests share: an app served by uvicorn on a loopback port in a
thread, a token file, and the real Claude Code CLI run headless against the loopback
Anthropic server. Imported by name (conftest puts this folder on sys.path); the plugins'
tests that drive ``agenthooks serve`` import it by path."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from agenthooks.server import token_digest

ROOT = Path(__file__).resolve().parents[2]
CLAUDE = ROOT / ".tools" / "node_modules" / "@anthropic-ai" / "claude-code" / "bin" / "claude.exe"
CLAUDE_VERSION = "2.1.337"

# Claude Code offline: no telemetry, no error reports, no update checks, no other traffic
OFFLINE = {
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "DISABLE_BUG_COMMAND": "1",
}

ALL_EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "Stop",
    "SessionEnd",
)


def claude_missing() -> str | None:
    """Why the Claude Code CLI cannot run here, else None (``make test`` installs it)."""
    if shutil.which("npm") is None:
        return "npm is not installed: the Claude Code CLI tests need it (apt-get install npm)"
    if not CLAUDE.exists():
        return (
            f"the Claude Code CLI {CLAUDE_VERSION} is not installed in .tools/ "
            "(make test installs it with npm)"
        )
    return None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def write_tokens(path: Path, **tokens: str) -> Path:
    """A token file of ``NAME = SHA256HEX`` lines for ``tokens`` ({name: token})."""
    path.write_text(
        "".join(f"{name} = {token_digest(token)}\n" for name, token in tokens.items()),
        encoding="utf-8",
    )
    return path


class ServerThread:
    """``app`` served by uvicorn on 127.0.0.1 in a thread of its own (its own event loop)."""

    def __init__(self, app: Any, **options: Any) -> None:
        self.port = free_port()
        self.config = uvicorn.Config(
            app, host="127.0.0.1", port=self.port, log_level="warning", **options
        )
        self.server = uvicorn.Server(self.config)
        self.thread = threading.Thread(target=self.server.run, name="hook-server", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> ServerThread:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the hook server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(20)


class ServedURL(str):
    """The base URL of a started ``agenthooks serve``, with its ``process``."""

    process: subprocess.Popen[str]


@contextmanager
def serve_command(
    *args: str,
    env: dict[str, str] | None = None,
    port: int | None = None,
    scheme: str = "http",
    verify: Any = True,
) -> Iterator[ServedURL]:
    """``python -m agenthooks serve ARGS`` from the checkout, until the block ends; yields
    its base URL (with the ``process``) once ``/healthz`` answers."""
    port = port or free_port()
    command = [sys.executable, "-m", "agenthooks.cli", "serve", "--port", str(port), *args]
    # its output goes to a file: a pipe nobody reads would stall a chatty server
    with tempfile.TemporaryFile(mode="w+") as log:
        process = subprocess.Popen(
            command,
            env={**os.environ, **(env or {})},
            stdout=log,
            stderr=subprocess.STDOUT,
            text=True,
        )
        url = ServedURL(f"{scheme}://127.0.0.1:{port}")
        url.process = process
        try:
            deadline = time.monotonic() + 60
            while True:
                if process.poll() is not None:
                    log.seek(0)
                    raise RuntimeError(
                        f"agenthooks serve exited {process.returncode}: {log.read()}"
                    )
                try:
                    if httpx.get(f"{url}/healthz", timeout=1, verify=verify).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError("agenthooks serve did not answer /healthz in 60 s")
                time.sleep(0.1)
            yield url
        finally:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def children(pid: int) -> list[int]:
    """The process ids whose parent is ``pid`` (uvicorn's workers), from /proc."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def hook_settings(
    url: str,
    *,
    events: Sequence[str] = ALL_EVENTS,
    token_env: str | None = "AGENTHOOKS_TOKEN",
    on_failure: str | None = "block",
    timeout: int = 30,
    allow: Sequence[str] = ("Bash",),
) -> dict[str, Any]:
    """A Claude Code settings file's content: an HTTP hook on each of ``events`` at
    ``url``/v1/hooks/claude-code, the bearer token read from the ``token_env`` variable."""
    hook: dict[str, Any] = {
        "type": "http",
        "url": f"{url}/v1/hooks/claude-code",
        "timeout": timeout,
    }
    if token_env is not None:
        hook["headers"] = {"Authorization": f"Bearer ${token_env}"}
        hook["allowedEnvVars"] = [token_env]
    if on_failure is not None:
        hook["onFailure"] = on_failure
    tool_events = {"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest"}
    hooks: dict[str, Any] = {}
    for event in events:
        entry: dict[str, Any] = {"hooks": [hook]}
        if event in tool_events:
            entry["matcher"] = "*"
        hooks[event] = [entry]
    return {"hooks": hooks, "permissions": {"allow": list(allow)}}


def run_claude(
    prompt: str,
    *,
    base_url: str,
    settings: dict[str, Any],
    workdir: Path,
    env: dict[str, str] | None = None,
    mcp_config: dict[str, Any] | None = None,
    timeout: float = 120,
) -> dict[str, Any]:
    """``claude -p PROMPT --settings FILE --output-format json`` headless in ``workdir``,
    against the Anthropic server at ``base_url``; returns the parsed result."""
    home = workdir.parent / f"{workdir.name}-home"
    home.mkdir(exist_ok=True)
    settings_file = workdir.parent / f"{workdir.name}-settings.json"
    settings_file.write_text(json.dumps(settings), encoding="utf-8")
    command = [
        str(CLAUDE),
        "-p",
        prompt,
        "--settings",
        str(settings_file),
        "--output-format",
        "json",
        "--model",
        "claude-sonnet-4-5",
    ]
    if mcp_config is not None:
        mcp_file = workdir.parent / f"{workdir.name}-mcp.json"
        mcp_file.write_text(json.dumps(mcp_config), encoding="utf-8")
        command += ["--mcp-config", str(mcp_file), "--strict-mcp-config"]
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "TMPDIR", "CI")}
    done = subprocess.run(
        command,
        cwd=workdir,
        env={
            **keep,
            "HOME": str(home),
            "ANTHROPIC_BASE_URL": base_url,
            "ANTHROPIC_API_KEY": "sk-ant-test-key",
            **OFFLINE,
            **(env or {}),
        },
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )
    try:
        result: dict[str, Any] = json.loads(done.stdout)
    except json.JSONDecodeError:
        raise AssertionError(
            f"claude exited {done.returncode} without a JSON result:\n{done.stdout}\n{done.stderr}"
        ) from None
    result["_stderr"] = done.stderr
    result["_returncode"] = done.returncode
    return result


def tool_results(request: dict[str, Any]) -> list[dict[str, Any]]:
    """The ``tool_result`` blocks of the last user message of an Anthropic request."""
    last = request["messages"][-1]
    content = last["content"] if isinstance(last["content"], list) else []
    return [block for block in content if block.get("type") == "tool_result"]


def result_text(block: dict[str, Any]) -> str:
    """A ``tool_result`` block's content as one text."""
    content = block.get("content")
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content or [])


def run_async(coro: Any) -> Any:
    return asyncio.run(coro)
