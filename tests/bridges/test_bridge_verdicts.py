"""A predicate's ``True`` (``should_stop``: stop the run) is a return like an interceptor's: a
declaration says whether the bridge carries it out, the table shows it, and a bridge that does
not raises the typed error for it."""

from __future__ import annotations

import pytest

from agenthooks import HookBus
from agenthooks.bridges import BridgeRun, Capabilities, UnsupportedReturnError, capability_table
from agenthooks.bridges.capabilities import VERDICT, returns
from agenthooks.errors import ConfigError


def declaration(honours: dict[str, frozenset[str]]) -> Capabilities:
    return Capabilities(
        framework="Toy",
        distribution="agenthooks-toy",
        setup="toy(bus)",
        fires=frozenset({"should_stop", "on_loop_end"}),
        honours=honours,
        gaps={"should_stop.true": "the toy loop cannot end between turns"},
    )


def test_a_predicate_may_return_true_and_an_observer_nothing() -> None:
    assert VERDICT == "true"
    assert returns("should_stop") == {"true"}
    assert returns("on_loop_end") == frozenset()


def test_the_table_shows_true_where_a_bridge_carries_it_out_and_fires_where_not() -> None:
    honoured = declaration({"should_stop": frozenset({"true"})})
    ignored = declaration({})

    table = capability_table({"a": honoured, "b": ignored}).splitlines()

    assert "| `should_stop` | True | fires |" in table
    assert "| `on_loop_end` | fires | fires |" in table


def test_a_bridge_that_does_not_carry_out_true_lists_it_and_raises_for_it() -> None:
    caps = declaration({})

    assert caps.unhonoured() == [("should_stop", "true")]
    with pytest.raises(UnsupportedReturnError) as raised:
        caps.require("should_stop", "true")
    text = str(raised.value)
    assert "should_stop" in text and "true" in text and "Toy" in text
    assert "the toy loop cannot end between turns" in text
    assert declaration({"should_stop": frozenset({"true"})}).unhonoured() == []


def test_true_is_no_return_of_an_observer() -> None:
    with pytest.raises(ConfigError, match="'on_loop_end' handlers cannot return \\['true'\\]"):
        declaration({"on_loop_end": frozenset({"true"})})


async def test_a_true_a_bridge_cannot_carry_out_is_its_typed_error_between_turns() -> None:
    bus = HookBus()
    bus.on("should_stop", lambda ctx: True)
    run = BridgeRun(bus, declaration({}), agent="toy")

    with pytest.raises(UnsupportedReturnError) as raised:
        await run.between_turns(message=None, model="m")

    assert "the toy loop cannot end between turns" in str(raised.value)


async def test_a_true_a_bridge_carries_out_stops_the_run_between_turns() -> None:
    bus = HookBus()
    answers = iter([None, True])
    bus.on("should_stop", lambda ctx: next(answers))
    run = BridgeRun(bus, declaration({"should_stop": frozenset({"true"})}), agent="toy")

    first = await run.between_turns(message=None, model="m")
    second = await run.between_turns(message=None, model="m")

    assert (first.stop, second.stop) == (False, True)
