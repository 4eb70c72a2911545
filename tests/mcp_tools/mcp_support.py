"""Fixtures of the MCP tests: the weather server as a stdio subprocess, and what reached it."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agenthooks.mcp import MCPServerStdio

HERE = Path(__file__).resolve().parent
SERVER = HERE / "weather_server.py"
if str(HERE) not in sys.path:  # http_server.py imports weather_server.py
    sys.path.insert(0, str(HERE))


class StdioWeather:
    """Builds ``MCPServerStdio`` objects for the weather server; ``calls()`` reads what
    reached the subprocess (every server built here records to the same file)."""

    def __init__(self, log: Path) -> None:
        self.log = log

    def server(self, *extra: str, **options: Any) -> MCPServerStdio:
        return MCPServerStdio(sys.executable, [str(SERVER), str(self.log), *extra], **options)

    def calls(self) -> list[dict[str, Any]]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines()]


@pytest.fixture
def weather(tmp_path: Path) -> StdioWeather:
    """The stdio weather server's factory and call log."""
    return StdioWeather(tmp_path / "calls.jsonl")


def children() -> list[int]:
    """The process ids of this process's live children (zombies included: not yet reaped)."""
    me = str(os.getpid())
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # pid (comm) state ppid ...: comm may hold spaces, so split after its closing paren
        fields = stat.rsplit(")", 1)[1].split()
        if fields[1] == me:
            found.append(int(entry.name))
    return found


@pytest.fixture
def no_leaked_children() -> Callable[[], list[int]]:
    """A check that returns the children started during the test that are still there."""
    before = set(children())
    return lambda: sorted(set(children()) - before)
