"""Shared by the CLI tests (and the timeline's): the installed ``agenthooks`` console script
and a way to run it. Imported by name (pytest puts this folder on sys.path; the trace
folder's conftest adds it)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(sys.executable).parent / "agenthooks"


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
