"""Registration and removal during dispatch (hypothesis): a handler that adds, disposes or
``off``s handlers while a run dispatches never disturbs the emission in progress.

Hypothesis writes a program: a pool of handler kinds (event, priority, ``on`` or ``once``, and
what each does on its 1st, 2nd, 3rd call: add a handler of some kind, dispose the oldest live
one of a kind, or ``bus.off`` it) and the handlers registered before the run. The expected calls
come from a model of the documented rule, replayed over the emissions the probe saw: each
emission calls the handlers registered when it started, by priority then registration order; a
handler removed meanwhile still runs in it, one added runs from the next; a ``once`` handler runs
once. The run's invariants hold throughout.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rel_drive import PHASES, drive, invariant_problems, scale
from rel_probe import Probe
from rel_scenario import calls, turn_of

from agenthooks import (
    Agent,
    Disposer,
    HookBus,
    ProviderRequest,
    ProviderResponse,
    ScriptedProvider,
    Session,
    tool,
)

EVENTS = ("on_message", "pre_tool_call", "on_tool_call_result", "on_loop_start", "pre_request")
POOL = 5
MAX_LIVE = 40  # adds beyond this many registrations are skipped (model and bus alike)


@dataclass(frozen=True)
class Kind:
    """A kind of handler: where it sits and what its n-th call does."""

    event: str
    priority: int
    once: bool
    actions: dict[int, list[tuple[str, int]]]


@dataclass
class Handler:
    """One registration of a kind."""

    id: int
    kind: Kind
    calls: int = 0
    dispose: Disposer | None = None
    fn: Any = None


@dataclass
class Registry:
    """The live registrations in registration order (the test's own bookkeeping)."""

    kinds: list[Kind]
    live: list[Handler] = field(default_factory=list)
    made: int = 0

    def add(self, index: int) -> Handler | None:
        if len(self.live) >= MAX_LIVE:
            return None
        handler = Handler(self.made, self.kinds[index])
        self.made += 1
        self.live.append(handler)
        return handler

    def take(self, index: int) -> Handler | None:
        """Remove and return the oldest live handler of kind ``index``, if any."""
        for handler in self.live:
            if handler.kind is self.kinds[index]:
                self.live.remove(handler)
                return handler
        return None


def expected_calls(kinds: list[Kind], initial: list[int], emissions: list[str]) -> list[Any]:
    """The calls the documented dispatch rule gives over ``emissions``."""
    registry = Registry(kinds)
    for index in initial:
        registry.add(index)
    spent: set[int] = set()
    out = []
    for n, event in enumerate(emissions):
        snapshot = sorted(
            (h for h in registry.live if h.kind.event == event),
            key=lambda h: (-h.kind.priority, h.id),
        )
        for handler in snapshot:
            if handler.kind.once:
                if handler.id in spent:
                    continue
                spent.add(handler.id)
                if handler in registry.live:
                    registry.live.remove(handler)
            out.append((n, handler.id))
            handler.calls += 1
            for action, index in handler.kind.actions.get(handler.calls, ()):
                if action == "add":
                    registry.add(index)
                else:
                    registry.take(index)
    return out


@tool
async def echo(text: str) -> str:
    """Echo a text."""
    return text


def _script(request: ProviderRequest) -> ProviderResponse:
    turn = turn_of(request)
    if turn == 0:
        return calls(("e1", "echo", {"text": "a"}), ("e2", "echo", {"text": "b"}))
    if turn == 1:
        return calls(("e3", "echo", {"text": "c"}))
    return ProviderResponse(content="done")


async def _run(kinds: list[Kind], initial: list[int]) -> tuple[list[Any], list[Any], list[Any]]:
    bus = HookBus()
    probe = Probe()
    probe.attach(bus)
    agent = Agent("worker", provider=ScriptedProvider(_script), tools=[echo], bus=bus)
    registry = Registry(kinds)
    actual: list[Any] = []

    def register(handler: Handler) -> None:
        def fn(ctx: Any) -> None:
            actual.append((len(probe.events) - 1, handler.id))
            if handler.kind.once and handler in registry.live:
                registry.live.remove(handler)  # the bus removed it: keep the count alike
            handler.calls += 1
            for action, index in handler.kind.actions.get(handler.calls, ()):
                if action == "add":
                    new = registry.add(index)
                    if new is not None:
                        register(new)
                    continue
                old = registry.take(index)
                if old is None:
                    continue
                if action == "dispose":
                    assert old.dispose is not None
                    old.dispose()
                else:
                    bus.off(old.kind.event, old.fn)

        handler.fn = fn
        how = bus.once if handler.kind.once else bus.on
        handler.dispose = how(handler.kind.event, fn, priority=handler.kind.priority)

    for index in initial:
        handler = registry.add(index)
        assert handler is not None
        register(handler)
    session = Session(agent)
    outcome = await drive(session, "go", probe, stream=False)
    problems = await invariant_problems(probe, outcome, session.history)
    if outcome.kind != "response":
        problems.append(("outcome", outcome.describe()))
    return actual, [e.name for e in probe.events], problems


kinds_strategy = st.lists(
    st.builds(
        Kind,
        event=st.sampled_from(EVENTS),
        priority=st.integers(-2, 2),
        once=st.booleans(),
        actions=st.dictionaries(
            st.integers(1, 3),
            st.lists(
                st.tuples(st.sampled_from(["add", "dispose", "off"]), st.integers(0, POOL - 1)),
                max_size=3,
            ),
            max_size=2,
        ),
    ),
    min_size=POOL,
    max_size=POOL,
)


@settings(
    max_examples=scale(150, 3000),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    database=None,
    phases=PHASES,
)
@given(kinds=kinds_strategy, initial=st.lists(st.integers(0, POOL - 1), min_size=1, max_size=6))
def test_registration_during_dispatch_never_disturbs_the_emission_in_progress(
    kinds: list[Kind], initial: list[int]
) -> None:
    actual, emissions, problems = asyncio.run(_run(kinds, initial))
    assert problems == []
    assert actual == expected_calls(kinds, initial, emissions)
