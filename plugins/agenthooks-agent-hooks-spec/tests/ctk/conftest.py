"""The CTK here always tests agenthooks: without ``--agent-hooks-harness`` the SDK's pytest
plugin would silently run its own reference host instead."""

from __future__ import annotations

import importlib

import pytest
from agenthooks_agent_hooks_spec.ctk import AgenthooksHarness


@pytest.fixture
def agent_hooks_harness(request: pytest.FixtureRequest) -> type:
    """The harness class: ``--agent-hooks-harness=module:Class`` if given, else ours."""
    spec = request.config.getoption("--agent-hooks-harness")
    if spec is None:
        return AgenthooksHarness
    module, _, name = spec.rpartition(":") if ":" in spec else spec.rpartition(".")
    harness: type = getattr(importlib.import_module(module), name)
    return harness
