"""Fixtures of the store tests: a store URL per backend (a SQLite file, or a schema of its
own in the real PostgreSQL on 127.0.0.1:5432, dropped afterwards) and a loopback model
server that refuses what a strict provider refuses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
_PROVIDERS = str(HERE.parent / "providers")
if _PROVIDERS not in sys.path:
    sys.path.insert(0, _PROVIDERS)
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from wire_server import WireServer  # noqa: E402

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
    except Exception as exc:
        return f"PostgreSQL at {POSTGRES} is not reachable: {type(exc).__name__}: {exc}"
    return None


def need_postgres() -> None:
    """Skip with the reason when PostgreSQL is not there; under CI=true, fail instead."""
    missing = postgres_missing()
    if missing is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{missing} (CI=true: the PostgreSQL tests must run)")
        pytest.skip(missing)


@pytest.fixture
def postgres_schema() -> Iterator[str]:
    """A schema of its own in the test database, dropped afterwards."""
    need_postgres()
    import psycopg

    schema = f"t_{uuid.uuid4().hex[:12]}"
    yield schema
    with psycopg.connect(POSTGRES, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


@pytest.fixture(params=["sqlite", "postgres"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A store URL: a SQLite file, or a fresh schema of the real PostgreSQL."""
    if request.param == "sqlite":
        return str(tmp_path / "sessions.db")
    schema = request.getfixturevalue("postgres_schema")
    return f"{POSTGRES}?agenthooks_schema={schema}"


@pytest.fixture
def wire() -> Iterator[WireServer]:
    """A loopback OpenAI-format server."""
    with WireServer() as server:
        yield server


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
