"""Shared by the tools tests: a recorded scenario, deterministic recordings, the console
script and headless Chromium. Imported by name (pytest puts this folder on sys.path)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from agenthooks import Agent, Deny, ProviderResponse, ScriptedProvider, ToolCall, Usage, tool
from agenthooks.record import Recorder
from agenthooks.testing import require

REPO = Path(__file__).resolve().parents[2]
SCRIPT = Path(sys.executable).parent / "agenthooks"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def run_cli(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run the installed ``agenthooks`` console script in a subprocess."""
    assert SCRIPT.exists(), (
        f"the console script {SCRIPT} is missing: install the project with "
        "`.venv/bin/pip install -e '.[dev]'` (make install)"
    )
    full = {**os.environ, "COLUMNS": "120", "NO_COLOR": "1", "PYTHONIOENCODING": "utf-8"}
    full.pop("AGENTHOOKS_DISABLE_PLUGINS", None)
    full.update(env or {})
    return subprocess.run(
        [str(SCRIPT), *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=full,
        timeout=timeout,
        check=False,
    )


def usage(n_in: int, n_out: int) -> Usage:
    return Usage(input_tokens=n_in, output_tokens=n_out, total_tokens=n_in + n_out)


def calls(*items: tuple[str, dict[str, Any]], tokens: tuple[int, int] = (0, 0)) -> ProviderResponse:
    return ProviderResponse(
        tool_calls=[ToolCall(id="", name=name, arguments=args) for name, args in items],
        usage=usage(*tokens),
    )


@tool
def search(query: str) -> str:
    """Search the knowledge base."""
    return f"3 hits for {query}"


@tool
def delete_file(path: str) -> str:
    """Delete a file."""
    return f"deleted {path}"


@tool
def flaky_api() -> str:
    """An API that is down."""
    raise ConnectionError("upstream returned 503")


@tool
def lookup(topic: str) -> str:
    """Look a topic up."""
    return f"notes on {topic}"


def scenario() -> Agent:
    """``support`` asks for three tools at once (one denied, one failing), then delegates to
    the ``researcher`` sub-agent, then answers; a model error in between is recovered."""
    researcher = Agent(
        "researcher",
        "Research topics.",
        provider=ScriptedProvider(
            [
                calls(("lookup", {"topic": "hooks"}), tokens=(12, 4)),
                ProviderResponse(
                    content="Hooks fire at every lifecycle point.", usage=usage(20, 8)
                ),
            ]
        ),
        tools=[lookup],
    )
    support = Agent(
        "support",
        "Help users.",
        model="demo-model",
        provider=ScriptedProvider(
            [
                calls(
                    ("search", {"query": "hooks"}),
                    ("delete_file", {"path": "/etc"}),
                    ("flaky_api", {}),
                    tokens=(30, 12),
                ),
                ConnectionError("model overloaded"),
                calls(("researcher", {"task": "explain hooks"}), tokens=(50, 9)),
                ProviderResponse(
                    content="Hooks let you observe and change every step.", usage=usage(70, 11)
                ),
            ]
        ),
        tools=[search, delete_file, flaky_api],
        sub_agents=[researcher],
        parallel_tool_calls=True,
    )
    support.on("pre_tool_call", lambda ctx: Deny("file deletion is disabled"), match="delete_file")
    support.on(
        "on_model_error",
        lambda ctx: {
            "response": ProviderResponse(
                content=None,
                tool_calls=[ToolCall(id="retry_1", name="search", arguments={"query": "retry"})],
            )
        },
    )
    return support


async def record_scenario() -> list[dict[str, Any]]:
    """The scenario's recording, in memory."""
    agent = scenario()
    recorder = Recorder()
    recorder.attach(agent)
    await agent.chat("How do hooks work?")
    return recorder.records


def deterministic(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``records`` with times that depend only on the order: record n at n milliseconds. A
    tool's ``duration`` (how long it ran, which the trace draws) is kept on the same clock:
    the time since its ``pre_tool_call`` record; 0 (a call that never ran) stays 0."""
    started: dict[Any, float] = {}
    out = []
    for record in records:
        r = {
            **record,
            "mono": record["seq"] / 1000,
            "timestamp": 1_700_000_000 + record["seq"] / 1000,
        }
        if r["type"] == "pre_tool_call":
            started[r["tool_call_id"]] = r["mono"]
        elif r["type"] in ("on_tool_call_result", "on_tool_call_error") and r.get("duration"):
            r["duration"] = r["mono"] - started.get(r["tool_call_id"], r["mono"])
        out.append(r)
    return out


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


CHROMIUM_MISSING = (
    f"{CHROMIUM} is missing: the timeline tests render the page in real headless Chromium. "
    "Install the system package: apt-get update && apt-get install -y chromium"
)


def chromium(*args: str) -> subprocess.CompletedProcess[str]:
    """Run headless Chromium with a throwaway profile. Without it the calling test skips with
    the install command as its reason, except under ``CI=true`` (CI installs it), where it
    fails."""
    require(None if CHROMIUM.exists() else CHROMIUM_MISSING)
    profile = tempfile.mkdtemp(prefix="agenthooks-chromium-")
    try:
        return subprocess.run(
            [str(CHROMIUM), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def png_pixels(data: bytes) -> tuple[int, int, list[tuple[int, int, int]]]:
    """Decode an 8-bit RGB or RGBA, non-interlaced PNG (what Chromium writes) into
    (width, height, RGB pixels row by row), with the standard library only."""
    import struct
    import zlib

    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG file"
    pos, idat, header = 8, b"", b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert depth == 8 and color in (2, 6) and interlace == 0, (depth, color, interlace)
    step = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * step
    rows: list[bytearray] = []
    prev = bytearray(stride)
    i = 0
    for _ in range(height):
        kind, line = raw[i], bytearray(raw[i + 1 : i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            left = line[x - step] if x >= step else 0
            up = prev[x]
            corner = prev[x - step] if x >= step else 0
            if kind == 1:
                line[x] = (line[x] + left) & 0xFF
            elif kind == 2:
                line[x] = (line[x] + up) & 0xFF
            elif kind == 3:
                line[x] = (line[x] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                pred = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                line[x] = (line[x] + pred) & 0xFF
        rows.append(line)
        prev = line
    pixels = [(row[x], row[x + 1], row[x + 2]) for row in rows for x in range(0, stride, step)]
    return width, height, pixels
