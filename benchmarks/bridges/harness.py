"""Interleaved timing for the bridge benchmarks: each variant runs once per round, in turn, so
a change in the machine's load touches every variant alike; the figures are medians.

Every run is timed on two clocks at once: the wall clock (what a user waits) and the CPU time
of this process (``time.process_time``), which the other processes of a shared machine move
far less. Each bridge's script builds its variants and hands them to ``compare``, which prints
one table per clock in the same format for every bridge.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from agenthooks import HookBus

Variant = Callable[[], Awaitable[object]]

CALLS = 3
"""Model and tool calls per scripted run: 2 model calls and 1 tool call."""

OBSERVED = ("pre_request", "on_response", "pre_tool_call", "on_tool_call_result", "on_message")
"""The events the five observers listen to (one observer each)."""

NO_HANDLER = "bridge, no handler"
FIVE_OBSERVERS = "bridge, five observers"
TARGETS = {NO_HANDLER: 0.1, FIVE_OBSERVERS: 0.5}
"""The most milliseconds the bridge may add per model or tool call, per variant."""


@dataclass(frozen=True)
class Medians:
    """The median seconds of one run of each variant, on each clock."""

    wall: dict[str, float]
    cpu: dict[str, float]


def five_observers() -> HookBus:
    """A bus with one do-nothing observer on each of the ``OBSERVED`` events."""
    bus = HookBus()
    for event in OBSERVED:
        bus.on(event, lambda ctx: None)
    return bus


def rounds(default: int = 300) -> int:
    """The rounds to run: the script's first argument, else ``default``."""
    return int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else default


def interleaved(variants: dict[str, Variant], rounds: int, warmup: int = 3) -> Medians:
    """The median seconds of one run of each variant over ``rounds`` interleaved rounds
    (after ``warmup`` untimed ones), on the wall clock and in CPU time."""

    async def measure() -> Medians:
        for _ in range(warmup):
            for run in variants.values():
                await run()
        wall: dict[str, list[float]] = {name: [] for name in variants}
        cpu: dict[str, list[float]] = {name: [] for name in variants}
        for _ in range(rounds):
            for name, run in variants.items():
                started, spent = time.perf_counter(), time.process_time()
                await run()
                cpu[name].append(time.process_time() - spent)
                wall[name].append(time.perf_counter() - started)
        return Medians(
            wall={name: statistics.median(ts) for name, ts in wall.items()},
            cpu={name: statistics.median(ts) for name, ts in cpu.items()},
        )

    return asyncio.run(measure())


def report(title: str, medians: dict[str, float], baseline: str) -> None:
    """Print each variant's median, its ratio to ``baseline`` and the milliseconds it adds per
    model or tool call (``CALLS`` of them per run), beside the target for that variant."""
    base = medians[baseline]
    print(f"## {title}\n")
    print("| variant | median ms | x baseline | added ms per call | target |")
    print("|---|---:|---:|---:|---:|")
    for name, median in medians.items():
        added = (median - base) * 1000 / CALLS
        target = TARGETS.get(name)
        print(
            f"| {name} | {median * 1000:.3f} | {median / base:.2f} | "
            f"{added:+.3f} | {'' if target is None else f'<= {target:g}'} |"
        )
    print()


def compare(title: str, variants: dict[str, Variant], baseline: str, rounds: int) -> Medians:
    """Time ``variants`` (the framework alone first, then any do-nothing extension of the
    bridge's shape, then ``NO_HANDLER`` and ``FIVE_OBSERVERS``) and print one table per clock,
    the added milliseconds counted from ``baseline``: the framework alone, or the empty
    extension where the framework charges for any extension of that shape."""
    medians = interleaved(variants, rounds)
    heading = f"{title}: {CALLS - 1} model calls + 1 tool call, {rounds} rounds"
    against = f"beside {baseline}"
    report(f"{heading}, wall time, {against}", medians.wall, baseline)
    report(f"{heading}, CPU time, {against}", medians.cpu, baseline)
    return medians


__all__ = [
    "CALLS",
    "FIVE_OBSERVERS",
    "NO_HANDLER",
    "OBSERVED",
    "TARGETS",
    "Medians",
    "Variant",
    "compare",
    "five_observers",
    "interleaved",
    "report",
    "rounds",
]
