"""What every bridge fires and honours (``bridge_capabilities`` builds a declaration on it),
the returns an event's handlers may give, and the ones a declaration leaves unhonoured."""

from __future__ import annotations

import pytest

from agenthooks.bridges import (
    BASELINE_FIRES,
    BASELINE_HONOURS,
    UnsupportedReturnError,
    bridge_capabilities,
)
from agenthooks.bridges.capabilities import returns
from agenthooks.errors import ConfigError


def test_a_declaration_adds_its_own_to_the_baseline() -> None:
    caps = bridge_capabilities(
        "Toy",
        "agenthooks-toy",
        "Toy(bus)",
        fires=["pre_handoff"],
        honours={"pre_handoff": {"deny"}, "on_model_error": {"error"}},
        gaps={"pre_handoff.ask": "toy handoffs cannot wait"},
    )
    assert caps.fires == BASELINE_FIRES | {"pre_handoff"}
    assert caps.honours["on_model_error"] == {"response", "error"}
    assert caps.honours["pre_handoff"] == {"deny"}
    assert caps.honours["pre_tool_call"] == BASELINE_HONOURS["pre_tool_call"]
    with pytest.raises(UnsupportedReturnError, match="toy handoffs cannot wait"):
        caps.require("pre_handoff", "ask")


def test_the_returns_an_event_may_give() -> None:
    assert returns("pre_tool_call") == {"call", "result", "error", "deny", "ask"}
    assert returns("pre_handoff") == {"deny", "ask"}
    assert returns("on_loop_start") == frozenset()


def test_unhonoured_lists_every_return_of_a_fired_event_left_out() -> None:
    caps = bridge_capabilities("Toy", "agenthooks-toy", "Toy(bus)", fires=["pre_handoff"])
    assert ("pre_handoff", "deny") in caps.unhonoured()
    assert ("pre_handoff", "ask") in caps.unhonoured()
    assert ("pre_tool_call", "call") not in caps.unhonoured()
    assert caps.unhonoured() == sorted(caps.unhonoured())
    for event, key in caps.unhonoured():
        with pytest.raises(UnsupportedReturnError):
            caps.require(event, key)


def test_a_return_the_event_cannot_give_is_refused_when_declared() -> None:
    with pytest.raises(ConfigError, match="'on_response' handlers cannot return \\['ask'\\]"):
        bridge_capabilities("Toy", "agenthooks-toy", "Toy(bus)", honours={"on_response": {"ask"}})
