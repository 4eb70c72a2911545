"""The installed ``agenthooks`` console script, run in a subprocess: help, the catalog, the
plugins check (against real installed distributions), trace and its error paths."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_support import SCRIPT, run_cli
from record_support import SCENARIO_TREE, deterministic, record_scenario, write_jsonl

from agenthooks.events import CATALOG
from agenthooks.trace import load_recording

pytestmark = pytest.mark.subprocess

COMMANDS = ("events", "plugins", "demo", "trace", "tail", "sessions", "approvals")


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The scenario's recording with deterministic times, as a file."""
    records = deterministic(asyncio.run(record_scenario()))
    return write_jsonl(tmp_path_factory.mktemp("rec") / "run.jsonl", records)


def install_distribution(
    root: Path, dist: str, version: str, module: str, source: str, entry_points: dict[str, str]
) -> None:
    """Install a distribution into ``root`` the way pip lays one out: the module and a
    ``.dist-info`` with its metadata and entry points (``root`` goes on PYTHONPATH)."""
    (root / f"{module}.py").write_text(source, encoding="utf-8")
    info = root / f"{dist.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n", encoding="utf-8"
    )
    lines = "".join(f"{name} = {value}\n" for name, value in entry_points.items())
    (info / "entry_points.txt").write_text(f"[agenthooks.plugins]\n{lines}", encoding="utf-8")
    (info / "RECORD").write_text("", encoding="utf-8")


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """A directory of extra installed distributions for the subprocess (via PYTHONPATH)."""
    root = tmp_path / "site"
    root.mkdir()
    install_distribution(
        root,
        "zz-audit-plugin",
        "1.2.3",
        "zz_audit",
        ("class Audit:\n    name = 'zz-audit'\n    def on_message(self, ctx):\n        pass\n"),
        {"zz-audit": "zz_audit:Audit"},
    )
    return root


def plugin_rows(stdout: str) -> dict[str, list[str]]:
    return {line.split()[0]: line.split(None, 3) for line in stdout.splitlines()[2:] if line}


# help ------------------------------------------------------------------------------------


def test_console_script_is_installed() -> None:
    assert SCRIPT.is_file()


def test_top_level_help() -> None:
    result = run_cli("--help")
    assert result.returncode == 0, result.stderr
    assert (
        result.stdout
        == """\
usage: agenthooks [-h] [--version] COMMAND ...

Tools for people who write agenthooks hooks: the event catalog, the installed plugins, a demo run, traces of recorded
runs, the live events of every worker, stored sessions, and the approvals waiting for a human (paused runs, remote
approvals).

positional arguments:
  COMMAND
    events    list every event: kind, what a handler may return, seed aliases
    plugins   list installed plugins and check that each one loads
    bridges   list the installed framework bridges and what each fires and honours
    demo      run the demo agent (offline by default; the same as `make demo`)
    trace     show a recorded run as a tree, or write a timeline page (--html)
    tail      print the live events of every worker, from a stream URL
    sessions  list the sessions of a store, or show one (history and paused run)
    approvals
              list, approve or deny what waits for a human
    serve     serve the bus and its plugins to hook clients (Claude Code, Codex) over HTTP
    hook      a command hook (Codex) that asks the hook server

options:
  -h, --help  show this help message and exit
  --version   show program's version number and exit

Run `agenthooks COMMAND --help` for the options of each command.
"""
    )


@pytest.mark.parametrize(
    ("command", "usage", "options"),
    [
        ("events", "usage: agenthooks events [-h] [--json]", ["--json"]),
        ("plugins", "usage: agenthooks plugins [-h] [--json]", ["--json"]),
        (
            "demo",
            "usage: agenthooks demo [-h] [--base-url URL] [--model NAME] [--record FILE]",
            ["--base-url URL", "--model NAME", "--record FILE"],
        ),
        (
            "trace",
            "usage: agenthooks trace [-h] [--html OUT.html] [--color {auto,always,never}] "
            "[--run ID]",
            ["RUN.jsonl", "--html OUT.html", "--color {auto,always,never}", "--run ID"],
        ),
        (
            "tail",
            "usage: agenthooks tail [-h] [--run ID] [--event NAME] [URL]",
            ["URL", "--run ID", "--event NAME"],
        ),
        ("approvals", "usage: agenthooks approvals [-h] ACTION ...", ["ACTION"]),
    ],
)
def test_each_command_has_help(command: str, usage: str, options: list[str]) -> None:
    result = run_cli(command, "--help")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(usage)
    for option in options:
        assert f"\n  {option}" in result.stdout


def test_version() -> None:
    result = run_cli("--version")
    assert (result.returncode, result.stdout) == (0, "agenthooks 0.1.0\n")


def test_no_command_and_an_unknown_command_are_usage_errors() -> None:
    result = run_cli()
    assert result.returncode == 2
    assert result.stderr.endswith(
        "agenthooks: error: the following arguments are required: COMMAND\n"
    )
    result = run_cli("bogus")
    assert result.returncode == 2
    assert "agenthooks: error: argument COMMAND: invalid choice: 'bogus'" in result.stderr


# events ----------------------------------------------------------------------------------


def test_events_table() -> None:
    result = run_cli("events")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["event", "kind", "may", "return", "seed", "aliases"]
    firsts = [line.split()[0] for line in lines[2:] if not line.startswith(" ")]
    assert firsts == list(CATALOG)
    assert (
        "on_message           observer                    -                             onMessage"
    ) in lines
    assert (
        "should_stop          predicate                   True stops                    "
        "ShouldStopAfterTurn"
    ) in lines
    row = lines.index(next(line for line in lines if line.startswith("pre_tool_call ")))
    assert lines[row : row + 4] == [
        (
            'pre_tool_call        interceptor, short-circuit  {"call"}, {"error"},          '
            "preToolCall, BeforeTool, BeforeToolCall,"
        ),
        (
            '                                                 {"result"}, Deny(reason),     '
            "PreToolUse, pre_tool_use, beforeToolCall,"
        ),
        (
            "                                                 Ask(reason)                   "
            "onToolStart"
        ),
        (
            'on_tool_call_result  interceptor                 {"result"}, {"terminate"},    '
            "onToolCallResult, AfterTool,"
        ),
    ]


def test_events_json() -> None:
    result = run_cli("events", "--json")
    assert result.returncode == 0, result.stderr
    rows: list[dict[str, Any]] = json.loads(result.stdout)
    assert [r["event"] for r in rows] == list(CATALOG)
    assert rows[list(CATALOG).index("on_chat_done")] == {
        "event": "on_chat_done",
        "kind": "observer",
        "fires": "the run completed",
        "may_return": "-",
        "can_deny": False,
        "can_ask": False,
        "fails_closed": False,
        "matches": None,
        "groups": ["after_answer"],
        "aliases": ["onChatDone", "afterRun"],
        "context": "ChatDoneContext",
        "context_doc": "``on_chat_done``: the run completed; the response is about to return.",
        "fields": [{"name": "response", "type": "AgentResponse", "writable": False}],
    }
    pre = rows[list(CATALOG).index("pre_request")]
    assert (pre["kind"], pre["may_return"]) == (
        "interceptor, short-circuit",
        '{"request"}, {"response"}, Deny(reason)',
    )
    assert pre["aliases"] == [
        "preRequest",
        "LlmCall",
        "PreModelCall",
        "pre_model_call",
        "onLlmStart",
    ]


# plugins ---------------------------------------------------------------------------------


def test_plugins_lists_an_installed_plugin_that_loads(site: Path) -> None:
    result = run_cli("plugins", env={"PYTHONPATH": str(site)})
    assert plugin_rows(result.stdout)["zz-audit"] == ["zz-audit", "zz-audit-plugin", "1.2.3", "ok"]
    assert result.stdout.splitlines()[0].split() == ["plugin", "distribution", "version", "loads"]
    # every other installed plugin is checked the same way; the status follows the rows
    broken = "BROKEN" in result.stdout
    assert result.returncode == (1 if broken else 0), result.stdout + result.stderr


def test_plugins_exits_1_for_a_plugin_that_does_not_import(site: Path) -> None:
    install_distribution(
        site,
        "zz-broken-plugin",
        "0.0.1",
        "zz_broken",
        "import zz_not_installed_dependency\n",
        {"zz-broken": "zz_broken:setup"},
    )
    result = run_cli("plugins", env={"PYTHONPATH": str(site)})
    assert result.returncode == 1
    rows = plugin_rows(result.stdout)
    assert rows["zz-broken"] == [
        "zz-broken",
        "zz-broken-plugin",
        "0.0.1",
        ("BROKEN: ModuleNotFoundError: No module named 'zz_not_installed_dependency'"),
    ]
    assert rows["zz-audit"][3] == "ok"
    assert (
        result.stderr.splitlines()[-1].endswith(": zz-broken")
        or "zz-broken, " in result.stderr.splitlines()[-1]
    )


def test_plugins_exits_1_for_a_plugin_whose_setup_fails(site: Path) -> None:
    install_distribution(
        site,
        "zz-setup-plugin",
        "2.0",
        "zz_setup",
        ("def setup(bus):\n    bus.on('on_mesage', print)\n"),
        {"zz-setup": "zz_setup:setup"},
    )
    result = run_cli("plugins", "--json", env={"PYTHONPATH": str(site)})
    assert result.returncode == 1
    rows = {r["name"]: r for r in json.loads(result.stdout)}
    error = rows["zz-setup"].pop("error")
    assert rows["zz-setup"] == {
        "name": "zz-setup",
        "value": "zz_setup:setup",
        "distribution": "zz-setup-plugin",
        "version": "2.0",
        "status": "broken",
    }
    assert error.startswith(
        "UnknownEventError: unknown event 'on_mesage'; did you mean 'on_message'"
    )
    assert rows["zz-audit"]["status"] == "ok"


def test_disabled_plugins_are_listed_as_disabled_and_not_loaded(site: Path) -> None:
    install_distribution(
        site,
        "zz-broken-plugin",
        "0.0.1",
        "zz_broken",
        "raise RuntimeError('must not be imported')\n",
        {"zz-broken": "zz_broken:setup"},
    )
    result = run_cli(
        "plugins",
        "--json",
        env={"PYTHONPATH": str(site), "AGENTHOOKS_DISABLE_PLUGINS": "zz-broken"},
    )
    rows = {r["name"]: r for r in json.loads(result.stdout)}
    assert (rows["zz-broken"]["status"], rows["zz-broken"]["error"]) == ("disabled", None)
    assert result.returncode == (1 if any(r["status"] == "broken" for r in rows.values()) else 0)


# trace -----------------------------------------------------------------------------------


def test_trace_prints_the_tree(recording: Path) -> None:
    result = run_cli("trace", str(recording))
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == SCENARIO_TREE


def test_trace_colour_always(recording: Path) -> None:
    result = run_cli("trace", str(recording), "--color", "always")
    assert result.returncode == 0
    assert (
        "\033[31mtool flaky_api()  5.0 ms  ERROR: ConnectionError: upstream returned 503\033[0m"
        in result.stdout
    )


def test_trace_writes_the_page(recording: Path, tmp_path: Path) -> None:
    out = tmp_path / "timeline.html"
    result = run_cli("trace", str(recording), "--html", str(out))
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == f"wrote {out} (20 spans from 79 records)\n"
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert "<title>agenthooks trace: run.jsonl</title>" in page


def test_trace_of_a_missing_file(tmp_path: Path) -> None:
    missing = tmp_path / "nope.jsonl"
    result = run_cli("trace", str(missing))
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == f"agenthooks trace: error: {missing}: no such file\n"


def test_trace_of_a_directory(tmp_path: Path) -> None:
    result = run_cli("trace", str(tmp_path))
    assert (result.returncode, result.stdout) == (2, "")
    assert (
        result.stderr == f"agenthooks trace: error: {tmp_path}: is a directory, not a recording\n"
    )


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("[tool.ruff]\nline-length = 100\n", "line 1 is not JSON (Expecting value)"),
        (
            '{"name": "agenthooks", "version": "0.1.0"}\n',
            'line 1 is an object without "type", not an event record',
        ),
        ("", "it is empty"),
    ],
)
def test_trace_of_a_file_that_is_not_a_recording(
    tmp_path: Path, content: str, problem: str
) -> None:
    path = tmp_path / "other.jsonl"
    path.write_text(content, encoding="utf-8")
    result = run_cli("trace", str(path))
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        f"agenthooks trace: error: {path} is not an agenthooks recording: {problem}; write one "
        "with agenthooks.record.Recorder or `agenthooks demo --record FILE`\n"
    )


def test_trace_of_a_truncated_recording_renders_what_is_readable(
    recording: Path, tmp_path: Path
) -> None:
    text = recording.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(lines[:44]) + lines[44][:40], encoding="utf-8")
    result = run_cli("trace", str(cut))
    assert result.returncode == 2
    assert result.stdout.splitlines()[0] == "agent support  43 ms  UNFINISHED"
    assert result.stdout.endswith(
        "└─ turn 2  10 ms  UNFINISHED\n"
        "   ├─ model call demo-model  1.0 ms  tokens 50 in / 9 out  → tools: researcher\n"
        '   └─ tool researcher({"task": "explain hooks"})  5.0 ms  UNFINISHED\n'
        "      └─ agent researcher  3.0 ms  UNFINISHED\n"
    )
    assert result.stderr == (
        f"agenthooks trace: skipped line 45 of {cut}: truncated: the file ends in the middle "
        "of this line (was the run stopped while writing?)\n"
        f"agenthooks trace: error: 1 line of {cut} could not be read; the rest is shown above\n"
    )


def test_trace_html_of_a_truncated_recording_lists_the_skipped_line(
    recording: Path, tmp_path: Path
) -> None:
    lines = recording.read_text(encoding="utf-8").splitlines(keepends=True)
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(lines[:44]) + lines[44][:40], encoding="utf-8")
    out = tmp_path / "cut.html"
    result = run_cli("trace", str(cut), "--html", str(out))
    assert result.returncode == 2
    assert result.stdout == f"wrote {out} (13 spans from 44 records)\n"
    assert "could not be read; the rest is shown above" in result.stderr
    assert "<strong>1 line skipped</strong><ul><li>line 45: truncated" in out.read_text(
        encoding="utf-8"
    )


def test_trace_html_into_a_missing_directory(recording: Path, tmp_path: Path) -> None:
    out = tmp_path / "no" / "such" / "dir" / "t.html"
    result = run_cli("trace", str(recording), "--html", str(out))
    assert (result.returncode, result.stdout) == (2, "")
    assert (
        result.stderr == f"agenthooks trace: error: cannot write {out}: No such file or directory\n"
    )


def test_trace_without_a_file_is_a_usage_error() -> None:
    result = run_cli("trace")
    assert result.returncode == 2
    assert result.stderr.endswith(
        "agenthooks trace: error: the following arguments are required: RUN.jsonl\n"
    )


def test_a_reader_that_leaves_early_is_not_an_error(tmp_path: Path) -> None:
    records = [
        {
            "seq": n,
            "type": "on_loop_start",
            "mono": n / 1000,
            "run_id": "r",
            "agent": "a",
            "branch": "a",
            "iteration": n,
        }
        for n in range(1, 20001)
    ]
    path = write_jsonl(tmp_path / "long.jsonl", records)
    process = subprocess.Popen(
        [str(SCRIPT), "trace", str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.readline() == b"agent a  20.00 s  UNFINISHED\n"
    process.stdout.close()  # like `agenthooks trace long.jsonl | head -1`
    assert process.wait(timeout=120) == 0
    assert process.stderr.read() == b""


def test_python_dash_m_runs_the_same_command() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "agenthooks.cli", "events", "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert [r["event"] for r in json.loads(result.stdout)] == list(CATALOG)


# demo ------------------------------------------------------------------------------------


def test_demo_passes_its_options_through_to_a_real_endpoint(tmp_path: Path) -> None:
    from wire_server import WireServer, completion, json_reply

    with WireServer() as server:
        server.reply(*[json_reply(completion("All done.", model="wire-model")) for _ in range(20)])
        result = run_cli(
            "demo",
            "--base-url",
            server.url,
            "--model",
            "wire-model",
            "--record",
            "run.jsonl",
            cwd=tmp_path,
        )
        bodies = server.requests
    assert result.returncode == 0, result.stdout + result.stderr
    assert bodies and {b["model"] for b in bodies} == {"wire-model"}
    records = load_recording(tmp_path / "run.jsonl").records
    answers = [r["output"]["content"] for r in records if r["type"] == "on_response"]
    # the recording holds what the server sent (a cache plugin may answer a repeat itself)
    assert set(answers) == {"All done."} and len(answers) >= len(bodies)


def test_demo_usage_error_comes_from_the_demo() -> None:
    result = run_cli("demo", "--model", "m")
    assert result.returncode == 2
    assert "--model needs --base-url" in result.stderr
