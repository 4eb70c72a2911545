"""Fixtures: the core repository's loopback OpenAI-compatible server."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests" / "providers"))

from wire_server import WireServer


@pytest.fixture
def server() -> Iterator[WireServer]:
    with WireServer() as running:
        yield running


@pytest.fixture
def backup_server() -> Iterator[WireServer]:
    with WireServer() as running:
        yield running
