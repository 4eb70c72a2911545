"""A timeit-style harness for coroutines: every case runs in one asyncio loop.

Each statement is compiled into ``async def inner(_n, <names>): for _ in range(_n): <stmt>``
(the names arrive as locals, as ``timeit`` does with its template), timed best-of-``repeat``
with the garbage collector off, and the same loop around ``pass`` is subtracted, so a number is
the cost of the statement alone.
"""

from __future__ import annotations

import gc
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

REPEAT = int(os.environ.get("BENCH_REPEAT", "7"))
TARGET_SECONDS = float(os.environ.get("BENCH_SECONDS", "0.05"))  # per repeat

_TEMPLATE = """
async def inner(_n, {names}):
    for _ in range(_n):
        {stmt}
"""


def compile_case(stmt: str, names: dict[str, Any]) -> Callable[..., Awaitable[None]]:
    """``stmt`` in a ``for`` loop inside a coroutine, with ``names`` as fast locals."""
    src = _TEMPLATE.format(names=", ".join(names) or "_unused=None", stmt=stmt)
    scope: dict[str, Any] = {}
    exec(compile(src, f"<bench {stmt!r}>", "exec"), scope)
    fn = scope["inner"]

    async def run(n: int) -> None:
        await fn(n, **names)

    return run


async def _time(run: Callable[[int], Awaitable[None]], n: int) -> float:
    t0 = time.perf_counter_ns()
    await run(n)
    return (time.perf_counter_ns() - t0) / n


async def _calibrate(run: Callable[[int], Awaitable[None]]) -> int:
    n = 100
    while True:
        t0 = time.perf_counter()
        await run(n)
        elapsed = time.perf_counter() - t0
        if elapsed >= TARGET_SECONDS / 5 or n >= 10_000_000:
            return max(100, int(n * TARGET_SECONDS / max(elapsed, 1e-9)))
        n *= 10


Case = tuple[str, dict[str, Any]]


async def measure(*cases: Case) -> list[float]:
    """ns per execution of each ``(stmt, names)`` case: best of REPEAT rounds, the empty loop
    subtracted. The cases of one call are timed interleaved, round by round, so a burst of
    load on the machine hits them alike instead of skewing one side of a comparison."""
    runs = [compile_case(stmt, names) for stmt, names in cases]
    empty = compile_case("pass", {})
    sizes = []
    for run in runs:
        await run(10)  # warm up (first-call caches, imports)
        sizes.append(await _calibrate(run))
    best = [float("inf")] * len(runs)
    overhead = [float("inf")] * len(runs)
    enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(REPEAT):
            for i, (run, n) in enumerate(zip(runs, sizes)):
                best[i] = min(best[i], await _time(run, n))
                overhead[i] = min(overhead[i], await _time(empty, n))
    finally:
        if enabled:
            gc.enable()
    return [max(b - o, 0.0) for b, o in zip(best, overhead)]


@dataclass
class Row:
    """One line of a results table."""

    case: str
    ours: float
    floor: float
    blinker: float | None = None
    pluggy: float | None = None
    target: float | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def ratio(self) -> float:
        return self.ours / self.floor if self.floor else float("inf")

    @property
    def met(self) -> str:
        if self.target is None:
            return "-"
        return "yes" if self.ratio <= self.target else "NO"


def _ns(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"


def table(rows: list[Row]) -> str:
    """A markdown table: case, ours, floor, ratio, blinker, pluggy, target, met?"""
    head = [
        "case",
        "ours ns/op",
        "floor ns/op",
        "ratio to floor",
        "blinker ns/op",
        "pluggy ns/op",
        "target",
        "met?",
    ]
    lines = [head, ["---"] + ["---:"] * 6 + [":---:"]]
    for r in rows:
        lines.append(
            [
                r.case,
                _ns(r.ours),
                _ns(r.floor),
                f"{r.ratio:.2f}x",
                _ns(r.blinker),
                _ns(r.pluggy),
                "-" if r.target is None else f"<= {r.target:g}x",
                r.met,
            ]
        )
    return "\n".join("| " + " | ".join(cells) + " |" for cells in lines)
