"""The distributions install as wheels: the core's and every plugin's wheel is built (not an
editable install), the core and the demo's plugins are installed into a fresh venv, and the
quick start, the CLI, the timeline page and an entry-point plugin run from them. Every other
plugin's wheel carries its ``py.typed`` and its entry points."""

from __future__ import annotations

import subprocess
import sys
import venv
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

pytestmark = [pytest.mark.subprocess, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
PLUGINS = sorted(
    p for p in (REPO / "plugins").glob("agenthooks-*") if (p / "pyproject.toml").is_file()
)
DEMO_PLUGINS = ("guard", "retry", "cache", "structlog")
# installed in code only: loaded without its interceptors it would deny every emission
NO_ENTRY_POINT = {"agenthooks-agent-hooks-spec"}

QUICK_START = '''
import asyncio

from agenthooks import Agent, Deny, HookBus, ProviderResponse, ScriptedProvider, ToolCall, tool

bus = HookBus()


@bus.on("pre_tool_call", match="delete_file")
def no_deletes(ctx):
    return Deny(f"deleting {ctx.call.arguments['path']} is not allowed")


@tool
def delete_file(path: str) -> str:
    """Delete a file."""
    return f"deleted {path}"


model = ScriptedProvider([
    ProviderResponse(tool_calls=[ToolCall(id="1", name="delete_file", arguments={"path": "/etc/hosts"})]),
    "I was not allowed to delete it.",
])
agent = Agent("assistant", "You manage files.", provider=model, tools=[delete_file], bus=bus)
response = asyncio.run(agent.chat("Delete /etc/hosts"))
assert model.requests[1].messages[-1].content == "deleting /etc/hosts is not allowed"
print(response.content)
'''


def run(*args: str | Path, cwd: Path | None = None, timeout: float = 600) -> str:
    done = subprocess.run(
        [str(a) for a in args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0, f"{' '.join(map(str, args))}\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheels")
    # one pip for all of them (a pip per distribution started 14 interpreters); no build
    # isolation: setuptools and wheel come from the test environment, so nothing is
    # downloaded per distribution
    run(
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "-q",
        "--no-deps",
        "--no-build-isolation",
        "-w",
        out,
        REPO,
        *PLUGINS,
    )
    return out


def wheel_of(wheels: Path, distribution: str) -> Path:
    found = sorted(wheels.glob(distribution.replace("-", "_") + "-*.whl"))
    assert len(found) == 1, (distribution, sorted(p.name for p in wheels.iterdir()))
    return found[0]


def test_every_wheel_carries_py_typed_and_its_entry_points(wheels: Path) -> None:
    for project in (REPO, *PLUGINS):
        name = "agenthooks" if project == REPO else project.name
        module = name.replace("-", "_")
        with zipfile.ZipFile(wheel_of(wheels, name)) as whl:
            names = whl.namelist()
            assert f"{module}/py.typed" in names, name
            assert not any(n.startswith(("tests/", "plugins/")) for n in names), name
            metadata = next(n for n in names if n.endswith(".dist-info/METADATA"))
            assert Parser().parsestr(whl.read(metadata).decode())["Name"] == name
            if name in NO_ENTRY_POINT:
                continue
            entries = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
            assert entries, f"{name} declares no entry point"
            assert "[agenthooks." in whl.read(entries[0]).decode(), name
    with zipfile.ZipFile(wheel_of(wheels, "agenthooks")) as whl:
        names = whl.namelist()
        # the timeline page's assets and the demo's policy are package data
        assert "agenthooks/demo/policy.toml" in names
        assert "agenthooks/trace/assets/timeline.css" in names
        assert "agenthooks/trace/assets/timeline.js" in names


def test_the_wheels_install_into_a_fresh_venv_and_run(wheels: Path, tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    chosen = [wheel_of(wheels, "agenthooks")] + [
        wheel_of(wheels, f"agenthooks-{name}") for name in DEMO_PLUGINS
    ]
    run(python, "-m", "pip", "install", "-q", "--disable-pip-version-check", *chosen)
    # nothing is imported from the clone: the installed package lives in the venv
    where = run(python, "-c", "import agenthooks; print(agenthooks.__file__)", cwd=tmp_path)
    assert where.startswith(str(env_dir)), where

    quick = tmp_path / "quick_start.py"
    quick.write_text(QUICK_START, encoding="utf-8")
    assert run(python, quick, cwd=tmp_path) == "I was not allowed to delete it.\n"

    cli = env_dir / "bin" / "agenthooks"
    version = run(python, "-c", "import agenthooks; print(agenthooks.__version__)", cwd=tmp_path)
    assert run(cli, "--version", cwd=tmp_path) == f"agenthooks {version}"
    assert "pre_tool_call" in run(cli, "events", cwd=tmp_path)
    plugins = run(cli, "plugins", cwd=tmp_path)
    for name in DEMO_PLUGINS:
        assert name in plugins, plugins

    run(cli, "demo", "--record", "run.jsonl", cwd=tmp_path, timeout=300)
    run(cli, "trace", "run.jsonl", "--html", "timeline.html", cwd=tmp_path)
    page = (tmp_path / "timeline.html").read_text(encoding="utf-8")
    # the stylesheet and script, read from the installed package data, are inlined
    assert "<style>\n:root { --ok-run: #3d6fb6;" in page
    assert '"use strict";\n  var data = JSON.parse(document.getElementById("trace-data")' in page
    assert "delete_file" in page
