"""``agenthooks serve``: what it refuses (in one line, exit 2) and that it serves."""

from __future__ import annotations

import os
import shutil
import ssl
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from server_support import serve_command, write_tokens

from agenthooks.cli import main
from agenthooks.testing import require

pytestmark = [pytest.mark.subprocess, pytest.mark.server]


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (
            ["--no-auth", "--host", "0.0.0.0"],
            "agenthooks serve: error: --no-auth is refused on 0.0.0.0: without tokens the "
            "server listens on a loopback address only (--host 127.0.0.1)",
        ),
        (
            [],
            "agenthooks serve: error: give --token-file FILE (NAME = SHA256HEX lines), or "
            "--no-auth on loopback",
        ),
        (["--workers", "0", "--no-auth"], "agenthooks serve: error: --workers must be at least 1"),
    ],
)
def test_serve_refuses_in_one_line(
    args: list[str], error: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["serve", *args]) == 2
    assert capsys.readouterr().err == error + "\n"


def test_a_bad_token_file_is_refused_naming_the_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tokens = tmp_path / "tokens"
    tokens.write_text("ada = 1234\n", encoding="utf-8")
    assert main(["serve", "--token-file", str(tokens)]) == 2
    assert capsys.readouterr().err == (
        f"agenthooks serve: error: {tokens}:1: token 'ada': '1234' is not a SHA-256 in hex "
        "(64 hex digits)\n"
    )


def test_without_the_extra_serve_says_what_to_install() -> None:
    # starlette made unimportable in a child interpreter, as in an install without the extra
    code = (
        "import sys; sys.modules['starlette'] = None\n"
        "from agenthooks.cli import main\n"
        "raise SystemExit(main(['serve', '--no-auth']))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr == (
        "agenthooks serve: error: the hook server needs its extra: "
        "pip install 'agenthooks[server]'\n"
    )


def test_serve_answers_with_the_installed_plugins_switched_off(tmp_path: Path) -> None:
    tokens = write_tokens(tmp_path / "tokens", ada="tok-a")
    names = subprocess.run(
        [sys.executable, "-m", "agenthooks.cli", "plugins", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    off = ",".join(p["name"] for p in __import__("json").loads(names.stdout))
    env = {"AGENTHOOKS_DISABLE_PLUGINS": off} if off else {}
    with serve_command("--token-file", str(tokens), env={**env}) as url:
        ready = httpx.get(f"{url}/readyz", timeout=10)
        body = {
            "session_id": "s1",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "ls"},
        }
        got = httpx.post(
            f"{url}/v1/hooks/claude-code",
            json=body,
            headers={"Authorization": "Bearer tok-a"},
            timeout=10,
        )
        refused = httpx.post(f"{url}/v1/hooks/claude-code", json=body, timeout=10)
    assert ready.json() == {"status": "ready", "plugins": []}
    assert (got.status_code, got.json()) == (200, {})
    assert refused.status_code == 401
    assert os.environ.get("AGENTHOOKS_SERVER_TOKEN_FILE") is None  # the parent's untouched


def test_serve_speaks_tls_with_uvicorns_certificate_options(tmp_path: Path) -> None:
    openssl = shutil.which("openssl")
    require(None if openssl else "openssl is not installed: the TLS test makes its certificate")
    assert openssl is not None
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            openssl,
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    tokens = write_tokens(tmp_path / "tokens", ada="tok-a")
    context = ssl.create_default_context(cafile=str(cert))
    args = ("--token-file", str(tokens), "--ssl-certfile", str(cert), "--ssl-keyfile", str(key))
    with serve_command(*args, scheme="https", verify=context) as url:
        got = httpx.post(
            f"{url}/v1/hooks/claude-code",
            json={"session_id": "s", "hook_event_name": "Stop"},
            headers={"Authorization": "Bearer tok-a"},
            verify=context,
            timeout=10,
        )
        with pytest.raises(httpx.HTTPError):
            httpx.get(f"http://127.0.0.1:{url.rsplit(':', 1)[1]}/healthz", timeout=5)
    assert (got.status_code, got.json()) == (200, {})
    assert url.startswith("https://")


def test_a_bad_rate_is_refused_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--no-auth", "--rate", "lots"]) == 2
    assert capsys.readouterr().err == (
        "agenthooks serve: error: --rate: rate 'lots': expected CALLS/SECONDS with both "
        "positive, e.g. 600/60\n"
    )
