"""Fixtures of the otel plugin tests (``Traced`` lives in ``otel_traced.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from otel_traced import Traced

# wire_server.py (a real loopback OpenAI-format server) lives in the core's provider tests
_PROVIDERS = str(Path(__file__).resolve().parents[3] / "tests" / "providers")
if _PROVIDERS not in sys.path:
    sys.path.insert(0, _PROVIDERS)


@pytest.fixture
def traced() -> Traced:
    """A ``Traced`` without content capture."""
    return Traced()


@pytest.fixture
def traced_content() -> Traced:
    """A ``Traced`` whose plugin captures content (``capture_content=True``)."""
    return Traced(capture_content=True)
