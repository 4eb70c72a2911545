"""The agent-run rows of ``bench_agent.py`` for this code and for an earlier commit, side by
side in one process, with the speed goals checked.

    python benchmarks/compare_commits.py            # against 5192b24 (``make bench`` runs it)
    python benchmarks/compare_commits.py abc1234    # against another commit
    BENCH_PEERS=0 python benchmarks/compare_commits.py   # without the peer frameworks

The earlier commit is checked out with ``git worktree add`` (once, under the system's temp
directory) and imported as a package of another name (``agenthooks_before``): the package
imports itself only relatively, so both copies live in one process and every row of both is
timed interleaved, round by round, best of ``BENCH_REPEAT`` (default 7), in the thread's CPU
time: load on a shared machine hits both alike and moves the wall clock only. Beside the CPU
time, the machine instructions one run executes at each commit (``callgrind.py``: valgrind's
count, which does not move with the load at all). The tool is an ``async def``, as the peer
frameworks' are.

The goals: a run within 1.3x the instructions of 5192b24 with no hooks and with five
observers; one more tool call within 10 module hops; a run at least 25x cheaper than the
cheapest peer framework (``peers/bench_peers.py``, each framework in a child process of this
interpreter, as ``make bench-peers`` runs them).
"""

from __future__ import annotations

import asyncio
import gc
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import ModuleType
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
BEFORE = "5192b24"
"""The commit before issue 22 (the round's start)."""
SETUPS = ("0 hooks", "5 observers", "5 per-turn observers", "5 observers, mixed", "on_event")
ON_THE_PATH = ("pre_request", "on_response", "pre_tool_call", "on_tool_call_result", "on_chat_done")
PER_TURN = ("on_loop_start", "transform_context", "pre_request", "on_response", "on_loop_end")
MIXED = ("on_loop_start", "on_loop_end", "on_message", "on_response", "pre_tool_call")


def checkout(commit: str) -> Path:
    """A worktree of ``commit`` (made once; reused by later runs)."""
    where = Path(tempfile.gettempdir()) / f"agenthooks-{commit}"
    if not (where / "agenthooks" / "__init__.py").exists():
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(where), commit],
            check=True,
            capture_output=True,
        )
    return where


def load(root: Path, name: str) -> ModuleType:
    """Import the ``agenthooks`` package under ``root`` as ``name``."""
    package = root / "agenthooks"
    spec = importlib.util.spec_from_file_location(
        name, package / "__init__.py", submodule_search_locations=[str(package)]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def make_agent(ah: ModuleType, setup: str) -> Any:
    """The agent of one row of ``bench_agent.py``, built from the package ``ah``."""
    call = ah.ToolCall(id="call_1", name="add", arguments={"a": 2, "b": 3})
    ask = ah.ProviderResponse(tool_calls=[call], finish_reason="tool_calls")
    answer = ah.ProviderResponse(content="5")

    def script(request: Any) -> Any:
        return ask if request.messages[-1].role == "user" else answer

    @ah.tool
    async def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    provider = ah.providers.ScriptedProvider(script, record=False)
    agent = ah.Agent("bench", "Add numbers.", provider=provider, tools=[add])
    events = {"5 observers": ON_THE_PATH, "5 per-turn observers": PER_TURN}.get(setup, ())
    events = MIXED if setup == "5 observers, mixed" else events
    for event in ("on_event",) if setup == "on_event" else events:
        agent.on(event, lambda ctx: None)
    return agent


async def measure(
    packages: dict[str, ModuleType], number: int, repeat: int
) -> dict[tuple[str, str], float]:
    """(code, row) -> seconds per run, best of ``repeat`` interleaved rounds, in this
    thread's CPU time: the machine's other load moves the wall clock, not this."""
    cases: list[tuple[tuple[str, str], Callable[[], Awaitable[Any]]]] = []
    for code, ah in packages.items():
        for setup in SETUPS:
            agent = make_agent(ah, setup)

            def one(agent: Any = agent, session: Any = ah.Session) -> Awaitable[Any]:
                return session(agent).chat("2+3?")  # type: ignore[no-any-return]

            cases.append(((code, setup), one))
    best = {key: float("inf") for key, _ in cases}
    for key, run in cases:  # warm: what is built once is not per run
        assert (await run()).content == "5", key
    for _ in range(repeat):
        for key, run in cases:
            gc.collect()
            start = time.thread_time()
            for _ in range(number):
                await run()
            best[key] = min(best[key], (time.thread_time() - start) / number)
    return best


def cheapest_peer() -> tuple[str, float, float] | None:
    """The cheapest peer framework's row, its seconds per run and ours (0 hooks) in the same
    harness (``peers/bench_peers.py``: wall clock, each framework in a child process of this
    interpreter), or None when no peer framework is installed (``make bench-peers``)."""
    script = HERE / "peers" / "bench_peers.py"
    rows: list[tuple[str, float]] = []
    for name in ("agenthooks", "openai-agents", "langchain", "strands"):
        done = subprocess.run(
            [sys.executable, str(script), "--json", "--only", name],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode == 0:
            rows += [(row, seconds) for row, seconds, _ in json.loads(done.stdout.splitlines()[-1])]
    ours = dict(rows).get("agenthooks, 0 hooks")
    peers = [(r, s) for r, s in rows if not r.startswith(("agenthooks", "floor", "hand-written"))]
    if ours is None or not peers:
        return None
    name, seconds = min(peers, key=lambda r: r[1])
    return name, seconds, ours


def main(argv: list[str] | None = None) -> None:
    """Print both codes' rows and whether each goal holds."""
    args = sys.argv[1:] if argv is None else argv
    before = args[0] if args else BEFORE
    sys.path.insert(0, str(HERE))
    import callgrind

    import agenthooks  # this checkout's

    packages = {before: load(checkout(before), "agenthooks_before"), "now": agenthooks}
    number = int(os.environ.get("BENCH_RUNS", "1000"))
    repeat = int(os.environ.get("BENCH_REPEAT", "7"))
    times = asyncio.run(measure(packages, number, repeat))
    print(f"\n## One agent run, this code against {before}, one process (best of {repeat})")
    counted = callgrind.available()
    print(
        f"{'row':24} {before + ' µs':>12} {'now µs':>9} {'now/before':>11} "
        f"{'instructions ' + before:>21} {'now':>9} {'now/before':>11}"
    )
    worst: dict[str, float] = {}
    for setup in SETUPS:
        old, new = times[before, setup], times["now", setup]
        line = f"{setup:24} {old * 1e6:12.1f} {new * 1e6:9.1f} {new / old:11.2f}"
        if counted and setup in callgrind.ROWS:
            was, now = (callgrind.count(root, setup) for root in (checkout(before), ROOT))
            worst[setup] = now / was
            line += f" {was:21,} {now:9,} {now / was:11.2f}"
        print(line)
    from bench_agent import hops_per_tool_call

    _, hops = hops_per_tool_call()
    print("\ngoals:")
    if not counted:
        print("  instructions within 1.3x: not counted (valgrind is not installed)")
    for setup, ratio in worst.items():
        print(f"  {setup}: instructions within 1.3x {before}'s: {ratio:.2f}x  {_ok(ratio <= 1.3)}")
    print(f"  one more tool call within 10 module hops: {hops}  {_ok(hops <= 10)}")
    peer = cheapest_peer() if os.environ.get("BENCH_PEERS", "1") != "0" else None
    if peer is None:
        print("  25x cheaper than the cheapest peer: not measured (no peer installed)")
    else:
        name, seconds, ours = peer
        ratio = seconds / ours
        print(
            f"  25x cheaper than the cheapest peer ({name}, {seconds * 1e6:.0f} µs a run; "
            f"ours {ours * 1e6:.0f} µs, same harness): {ratio:.0f}x  {_ok(ratio >= 25)}"
        )


def _ok(held: bool) -> str:
    return "holds" if held else "MISSED"


if __name__ == "__main__":
    main()
