"""THE acceptance test: installing agenthooks-guard and naming a policy file is all it takes.

A fresh venv gets the core, the guard and a plugin that fails to import, installed the
ordinary way (one pip call); scripts run in that venv, so discovery goes through the real
installed entry-point metadata, nothing patched.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.subprocess, pytest.mark.slow]

HERE = Path(__file__).resolve().parent
GUARD_DIR = HERE.parent
ROOT = GUARD_DIR.parent.parent
BROKEN_DIR = HERE / "fixtures" / "broken_plugin"

POLICY = """
[[rules]]
tool = "delete_file"
action = "deny"
reason = "Deleting files is not allowed by the site policy."
"""

SCRIPT = r'''
import asyncio, json, sys

from agenthooks import Agent, HookBus, ProviderResponse, ScriptedProvider, ToolCall, tool
from agenthooks.plugins import PluginError

RAN = []


@tool
def delete_file(path: str) -> str:
    """Delete a file."""
    RAN.append(path)
    return f"deleted {path}"


def describe(error):
    return {"name": error.name, "distribution": error.distribution,
            "error": f"{type(error.error).__name__}: {error.error}"}


async def main(mode):
    out = {"prefix": sys.prefix}
    if mode == "strict":
        try:
            HookBus(plugins="auto", strict=True)
        except PluginError as exc:
            out["raised"] = {"type": type(exc).__name__, **describe(exc)}
        print(json.dumps(out))
        return
    bus = HookBus(plugins="auto")
    out["plugins"] = {n: [i.distribution, i.version] for n, i in sorted(bus.plugins.items())}
    out["errors"] = [describe(e) for e in bus.plugin_errors]
    provider = ScriptedProvider([
        ProviderResponse(tool_calls=[
            ToolCall(id="c1", name="delete_file", arguments={"path": "/etc/passwd"})]),
        "done",
    ])
    agent = Agent("assistant", provider=provider, tools=[delete_file], bus=bus)
    response = await agent.chat("clean up")
    message = provider.requests[1].messages[-1]
    out["tool_message"] = {"role": message.role, "content": message.content,
                           "is_error": message.is_error}
    out["ran"] = RAN
    out["answer"] = response.content
    print(json.dumps(out))


asyncio.run(main(sys.argv[1]))
'''


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the core, the guard and the broken fixture plugin installed."""
    where = tmp_path_factory.mktemp("guard-venv")
    env = clean_env()
    subprocess.run(
        [sys.executable, "-m", "venv", str(where / "venv")], check=True, env=env, timeout=300
    )
    python = where / "venv" / "bin" / "python"
    install = subprocess.run(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "-q",
            "-e",
            str(ROOT),
            "-e",
            str(GUARD_DIR),
            "-e",
            str(BROKEN_DIR),
        ],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
    )
    assert install.returncode == 0, install.stderr
    (where / "policy.toml").write_text(POLICY)
    (where / "script.py").write_text(SCRIPT)
    return where


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment minus anything that could leak the shared venv in."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME", "PYTHONSTARTUP")
        and not k.startswith("AGENTHOOKS_")
    }
    env["PYTHONNOUSERSITE"] = "1"
    env.update(extra)
    return env


def run(venv: Path, mode: str, **env: str) -> dict[str, Any]:
    done = subprocess.run(
        [str(venv / "venv" / "bin" / "python"), str(venv / "script.py"), mode],
        env=clean_env(**env),
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        cwd=venv,
    )
    assert done.returncode == 0, done.stderr
    out: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    assert Path(out.pop("prefix")) == venv / "venv"
    return out


BROKEN_ERROR = {
    "name": "broken",
    "distribution": "agenthooks-broken-fixture",
    "error": "RuntimeError: agenthooks_broken_fixture fails to import on purpose",
}


def test_installing_the_guard_and_naming_a_policy_denies_the_tool(venv: Path) -> None:
    out = run(venv, "run", AGENTHOOKS_GUARD_POLICY=str(venv / "policy.toml"))
    assert out == {
        "plugins": {"guard": ["agenthooks-guard", "0.1.0"]},
        # the plugin that failed to import is reported and did not stop the guard
        "errors": [BROKEN_ERROR],
        "tool_message": {
            "role": "tool",
            "is_error": True,
            "content": "Deleting files is not allowed by the site policy.",
        },
        "ran": [],
        "answer": "done",
    }


def test_disabling_the_guard_by_env_lets_the_tool_run(venv: Path) -> None:
    out = run(
        venv,
        "run",
        AGENTHOOKS_GUARD_POLICY=str(venv / "policy.toml"),
        AGENTHOOKS_DISABLE_PLUGINS="guard",
    )
    assert out["plugins"] == {}
    assert out["errors"] == [BROKEN_ERROR]
    assert out["tool_message"] == {
        "role": "tool",
        "content": "deleted /etc/passwd",
        "is_error": False,
    }
    assert out["ran"] == ["/etc/passwd"]


def test_disabling_the_broken_plugin_leaves_no_errors(venv: Path) -> None:
    out = run(
        venv,
        "run",
        AGENTHOOKS_GUARD_POLICY=str(venv / "policy.toml"),
        AGENTHOOKS_DISABLE_PLUGINS="broken",
    )
    assert (out["plugins"], out["errors"], out["ran"]) == (
        {"guard": ["agenthooks-guard", "0.1.0"]},
        [],
        [],
    )


def test_strict_loading_raises_the_plugin_error(venv: Path) -> None:
    out = run(venv, "strict", AGENTHOOKS_GUARD_POLICY=str(venv / "policy.toml"))
    assert out == {"raised": {"type": "PluginError", **BROKEN_ERROR}}


def test_no_policy_variable_means_the_guard_allows_everything(venv: Path) -> None:
    out = run(venv, "run")
    assert out["plugins"] == {"guard": ["agenthooks-guard", "0.1.0"]}
    assert out["ran"] == ["/etc/passwd"]
