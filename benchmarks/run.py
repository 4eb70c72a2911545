"""Run every ``benchmarks/bench_*.py`` module's ``main()`` in this one process.

    python benchmarks/run.py            # all of them (``make bench``)
    python benchmarks/run.py bus agent  # only bench_bus.py and bench_agent.py

``BENCH_REPEAT`` (best of N, default 7) and ``BENCH_SECONDS`` (time per repeat, default 0.05)
trade precision for time.
"""

from __future__ import annotations

import datetime
import importlib
import os
import platform
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def modules(selected: list[str]) -> list[str]:
    """The ``bench_*`` module names to run, sorted, filtered by ``selected`` when given."""
    names = sorted(p.stem for p in HERE.glob("bench_*.py"))
    if selected:
        wanted = {s.removeprefix("bench_").removesuffix(".py") for s in selected}
        unknown = wanted - {n.removeprefix("bench_") for n in names}
        if unknown:
            raise SystemExit(f"no benchmark named {sorted(unknown)}; have {names}")
        names = [n for n in names if n.removeprefix("bench_") in wanted]
    return names


def main(argv: list[str] | None = None) -> int:
    sys.path.insert(0, str(HERE))
    names = modules(sys.argv[1:] if argv is None else argv)
    print(f"# agenthooks benchmarks, {datetime.date.today().isoformat()}")
    print(
        f"python {platform.python_version()} ({platform.python_implementation()}), "
        f"{platform.machine()}, {os.cpu_count()} CPUs, {platform.system()}\n"
    )
    for name in names:
        module = importlib.import_module(name)
        main_fn = getattr(module, "main", None)
        if main_fn is None:
            print(f"(skipped {name}: no main())\n")
            continue
        main_fn()
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
