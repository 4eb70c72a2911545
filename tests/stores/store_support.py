"""What the store tests share: the PostgreSQL they use, the skip rule, and the worker
processes (``durable_worker.py``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from agenthooks.testing import require

HERE = Path(__file__).resolve().parent
POSTGRES = os.environ.get("AGENTHOOKS_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")
"""The PostgreSQL the tests use (trust auth on this machine)."""
WORKER = HERE / "durable_worker.py"


def postgres_missing() -> str | None:
    """Why PostgreSQL cannot be used, or None when it answers."""
    try:
        import psycopg
    except ImportError:
        return "psycopg is not installed (pip install 'agenthooks[postgres]')"
    try:
        with psycopg.connect(POSTGRES, connect_timeout=3) as conn:
            conn.execute("SELECT 1")
    except (psycopg.Error, OSError) as exc:
        return f"PostgreSQL at {POSTGRES} is not reachable: {type(exc).__name__}: {exc}"
    return None


def need_postgres() -> None:
    """Skip with the reason when PostgreSQL is not there; under CI=true, fail instead."""
    require(postgres_missing())


def worker(config: dict[str, Any], *, timeout: float = 120) -> subprocess.Popen[str]:
    """Start one worker process."""
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    return subprocess.Popen(
        [sys.executable, str(WORKER), json.dumps(config)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def finish(process: subprocess.Popen[str], timeout: float = 120) -> dict[str, Any]:
    """Wait for a worker; its JSON output."""
    out, err = process.communicate(timeout=timeout)
    assert process.returncode == 0, err
    return json.loads(out.strip().splitlines()[-1])  # type: ignore[no-any-return]


def run(config: dict[str, Any]) -> dict[str, Any]:
    """Run one worker to its end."""
    return finish(worker(config))
