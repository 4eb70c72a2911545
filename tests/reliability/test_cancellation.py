"""Cancellation at every await point of a run (item 1 as a class).

Two generators over the scenario run (parallel tools, a sub-agent, a handoff):

- at every step: the k-th handler, tool step or provider step of the run (k = 1..N, N counted
  on a clean run) cancels the task that runs ``chat()`` / iterates ``chat_stream()``, or sets the
  run's abort signal, and the cancellation lands inside that very step;
- at every loop iteration: the task is cancelled at the j-th iteration of the event loop,
  wherever the run is suspended then (every iteration under ``make soak``, a stride under
  ``make test``).

Each case: teardown completes (one terminal event, ``on_chat_end``, ``on_session_end``; every
sub-agent started is stopped), then ``CancelledError`` (``RunAborted`` for the signal) reaches
the caller; every tool call has its one tool message and the transcript takes a next turn; no
task is left pending.
"""

from __future__ import annotations

import asyncio
from typing import Any

from rel_drive import Outcome, drive, invariant_problems, scale
from rel_probe import TERMINAL
from rel_scenario import World, build
from rel_tally import Problem, Tally

from agenthooks import RunAborted

OUTCOME = "the outcome the contract prescribes"
LANDING = 6  # iterations the cancelling step waits, so the cancellation lands inside it


def _top_terminal_step(world: World) -> int:
    """The index (0-based) of the top-level run's terminal event in the probe's events."""
    for i, e in enumerate(world.probe.events):
        if e.name in TERMINAL and e.parent_run_id is None:
            return i
    raise AssertionError("the clean run has no terminal event")


async def _clean(stream: bool) -> tuple[World, Outcome]:
    world = build()
    outcome = await drive(world.session, "go", world.probe, stream=stream)
    assert outcome.kind == "response", outcome.describe()
    return world, outcome


def _expect(
    world: World, outcome: Outcome, *, kind: str, ended: bool, clean: Outcome, strict: bool
) -> list[str]:
    """The outcome and terminal event a cancellation must give."""
    wrong = []
    tops = [e.name for e in world.probe.events if e.name in TERMINAL and e.parent_run_id is None]
    if kind == "signal":
        if ended:
            if outcome.summary() != clean.summary():
                wrong.append(f"got {outcome.describe()} after the run ended, expected its answer")
        elif not isinstance(outcome.error, RunAborted):
            wrong.append(f"got {outcome.describe()}, expected RunAborted")
    elif not isinstance(outcome.error, asyncio.CancelledError):
        wrong.append(f"got {outcome.describe()}, expected CancelledError after teardown")
    if not world.probe.events and isinstance(outcome.error, asyncio.CancelledError):
        return wrong  # cancelled before the call's first step: no run began
    want = ["on_chat_done"] if ended else ["on_chat_abort"]
    if tops != want and (strict or tops not in (["on_chat_done"], ["on_chat_abort"])):
        wrong.append(f"top-level terminal events {tops}, expected {want}")
    return wrong


async def _cancelled_at_step(
    stream: bool, kind: str, k: int
) -> tuple[World, Outcome, dict[str, Any]]:
    """One run whose k-th step cancels its task (or sets its signal), landing inside it."""
    world = build()
    signal = asyncio.Event() if kind == "signal" else None
    holder: dict[str, Any] = {}
    landed: dict[str, Any] = {}

    async def on_step(step: int, name: str) -> None:
        if step != k:
            return
        landed["name"] = name
        landed["events"] = len(world.probe.events)
        if signal is not None:
            signal.set()
        else:
            holder["task"].cancel()
        for _ in range(LANDING):
            await asyncio.sleep(0)

    world.probe.on_step = on_step
    outcome = await drive(
        world.session,
        "go",
        world.probe,
        stream=stream,
        on_start=lambda task: holder.__setitem__("task", task),
        signal=signal,
    )
    return world, outcome, landed


async def _at_every_step(stream: bool, kind: str) -> Tally:
    tally = Tally(f"{kind} at every step of {'chat_stream()' if stream else 'chat()'}")
    clean_world, clean = await _clean(stream)
    steps = clean_world.probe.steps
    terminal_at = _top_terminal_step(clean_world)
    for k in range(1, steps + 1):
        world, outcome, landed = await _cancelled_at_step(stream, kind, k)
        ended = landed.get("events", 0) > terminal_at  # the terminal event had fired
        problems: list[Problem] = await invariant_problems(
            world.probe, outcome, world.session.history
        )
        problems += [
            (OUTCOME, w)
            for w in _expect(world, outcome, kind=kind, ended=ended, clean=clean, strict=True)
        ]
        where = landed.get("name", "?")
        tally.case(f"{kind} at step {k}/{steps} ({where})", problems, where)
    return tally


async def _at_every_iteration(stream: bool) -> Tally:
    tally = Tally(f"cancel at every loop iteration of {'chat_stream()' if stream else 'chat()'}")
    clean_world, clean = await _clean(stream)
    loop = asyncio.get_running_loop()

    async def run(stop_at: int | None) -> tuple[World, Outcome, int, int]:
        world = build()
        count = 0
        issued = {"events": -1}

        def arm(task: asyncio.Task[Any]) -> None:
            def tick() -> None:
                nonlocal count
                if task.done():
                    return
                count += 1
                if count == stop_at:
                    issued["events"] = len(world.probe.events)
                    task.cancel()
                else:
                    loop.call_soon(tick)

            loop.call_soon(tick)

        outcome = await drive(world.session, "go", world.probe, stream=stream, on_start=arm)
        return world, outcome, count, issued["events"]

    _, _, iterations, _ = await run(None)
    terminal_at = _top_terminal_step(clean_world)
    stride = scale(max(1, iterations // 150), 1)
    for j in range(1, iterations + 1, stride):
        world, outcome, _, events_then = await run(j)
        ended = events_then > terminal_at
        problems: list[Problem] = await invariant_problems(
            world.probe, outcome, world.session.history
        )
        # chat_stream(): the consumer's cancellation reaches the run one step later, so a
        # run about to end may still end done
        problems += [
            (OUTCOME, w)
            for w in _expect(
                world, outcome, kind="cancel", ended=ended, clean=clean, strict=not stream
            )
        ]
        last = world.probe.events[events_then - 1].name if events_then > 0 else "start"
        tally.case(f"cancel at iteration {j}/{iterations} (after {last})", problems, last)
    return tally


async def test_cancel_at_every_step_of_chat() -> None:
    (await _at_every_step(stream=False, kind="cancel")).assert_held()


async def test_cancel_at_every_step_of_chat_stream() -> None:
    (await _at_every_step(stream=True, kind="cancel")).assert_held()


async def test_abort_signal_at_every_step_of_chat() -> None:
    (await _at_every_step(stream=False, kind="signal")).assert_held()


async def test_abort_signal_at_every_step_of_chat_stream() -> None:
    (await _at_every_step(stream=True, kind="signal")).assert_held()


async def test_cancel_at_every_loop_iteration_of_chat() -> None:
    (await _at_every_iteration(stream=False)).assert_held()


async def test_cancel_at_every_loop_iteration_of_chat_stream() -> None:
    (await _at_every_iteration(stream=True)).assert_held()
