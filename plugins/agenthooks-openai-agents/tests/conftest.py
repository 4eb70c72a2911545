"""Fixtures of the bridge's tests: a fresh bus, and a recorder of every event it fires."""

from __future__ import annotations

import pytest
from openai_agents_helpers import Recorder

from agenthooks import HookBus


@pytest.fixture
def bus() -> HookBus:
    return HookBus()


@pytest.fixture
def recorder(bus: HookBus) -> Recorder:
    return Recorder(bus)
