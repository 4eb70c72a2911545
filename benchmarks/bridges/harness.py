"""Interleaved timing for the bridge benchmarks: each variant runs once per round, in turn, so
a change in the machine's load touches every variant alike; the figure is the median."""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable

Variant = Callable[[], Awaitable[object]]


def interleaved(
    variants: dict[str, Variant],
    rounds: int,
    warmup: int = 3,
    clock: Callable[[], float] = time.perf_counter,
) -> dict[str, float]:
    """The median seconds of one run of each variant over ``rounds`` interleaved rounds.

    ``clock``: ``time.perf_counter`` (wall time, the default) or ``time.process_time`` (the
    CPU time of this process alone, which other processes' load on a shared machine moves
    far less)."""

    async def measure() -> dict[str, float]:
        for _ in range(warmup):
            for run in variants.values():
                await run()
        times: dict[str, list[float]] = {name: [] for name in variants}
        for _ in range(rounds):
            for name, run in variants.items():
                started = clock()
                await run()
                times[name].append(clock() - started)
        return {name: statistics.median(ts) for name, ts in times.items()}

    return asyncio.run(measure())


def report(
    title: str, medians: dict[str, float], baseline: str, calls: int, targets: dict[str, float]
) -> None:
    """Print each variant's median, its ratio to ``baseline`` and the milliseconds it adds per
    model or tool call (``calls`` of them per run), beside the target for that variant."""
    base = medians[baseline]
    print(f"## {title}\n")
    print("| variant | median ms | x baseline | added ms per call | target |")
    print("|---|---:|---:|---:|---:|")
    for name, median in medians.items():
        added = (median - base) * 1000 / calls
        target = targets.get(name)
        print(
            f"| {name} | {median * 1000:.3f} | {median / base:.2f} | "
            f"{added:+.3f} | {'' if target is None else f'<= {target:g}'} |"
        )
    print()


__all__ = ["interleaved", "report"]
