"""Fixtures of the store tests: a store URL per backend (a SQLite file, or a schema of its
own in the real PostgreSQL on 127.0.0.1:5432, dropped afterwards) and a loopback model
server that refuses what a strict provider refuses."""

from __future__ import annotations

import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
for path in (str(HERE.parent / "providers"), str(HERE)):
    if path not in sys.path:
        sys.path.insert(0, path)

from store_support import POSTGRES, need_postgres  # noqa: E402
from wire_server import WireServer  # noqa: E402


@pytest.fixture
def postgres_schema() -> Iterator[str]:
    """A schema of its own in the test database, dropped afterwards."""
    need_postgres()
    import psycopg

    schema = f"t_{uuid.uuid4().hex[:12]}"
    yield schema
    with psycopg.connect(POSTGRES, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.server)])
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
