"""Fixtures of the Strands bridge tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from agenthooks_strands.testing import ScriptedModel
from strands import Agent
from strands_helpers import RAN, build

from agenthooks import HookBus

Make = Callable[..., tuple[Agent, ScriptedModel]]


@pytest.fixture(autouse=True)
def _clear_ran() -> None:
    RAN.clear()


@pytest.fixture
def bus() -> HookBus:
    return HookBus()


@pytest.fixture
def make(bus: HookBus) -> Make:
    """``make(script, tools=..., **agent_kwargs)``: a Strands agent with the bridge on ``bus``."""

    def make(*args: Any, **kwargs: Any) -> tuple[Agent, ScriptedModel]:
        return build(bus, *args, **kwargs)

    return make
