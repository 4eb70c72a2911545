"""The five bridges, each timed side by side with its framework alone and with the framework's
same extension points installed doing nothing (medians of interleaved rounds of a scripted run
of 2 model calls and 1 tool call, in CPU and wall time): the milliseconds the bridge adds per
model or tool call over the do-nothing extension, with no handler and with five observers.
Each bridge's script lives in ``benchmarks/bridges/`` and runs alone too."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

BRIDGES = Path(__file__).resolve().parent / "bridges"


def main() -> None:
    sys.path.insert(0, str(BRIDGES))
    for script in sorted(BRIDGES.glob("bench_*.py")):
        spec = importlib.util.spec_from_file_location(script.stem, script)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        module.main()


if __name__ == "__main__":
    main()
