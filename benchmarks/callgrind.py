"""Machine instructions per agent run, counted by valgrind's callgrind: a figure that does not
move with the load of a shared machine, so a change's cost shows even where CPU time swings.

    python benchmarks/callgrind.py                      # this checkout, every row
    python benchmarks/callgrind.py /tmp/old "0 hooks"   # the checkout at /tmp/old, one row
    python benchmarks/callgrind.py . "0 hooks, validated"   # the tool's arguments validated

Each row also shows what building the run's pydantic models through their constructors
costs of it (the constructions one run makes, caught with ``sys.setprofile`` and made again
alone between the markers).

The count covers everything a run executes, pydantic's compiled validators and the
interpreter included (``sys.settrace`` counts only Python bytecode, and a validator as one
call). A child interpreter imports ``agenthooks`` from the checkout given, warms the agent
up, then runs ``RUNS`` fresh conversations between two markers: callgrind zeroes its
counters when the child enters ``str.expandtabs`` (C function ``unicode_expandtabs``) and
writes them out when it enters ``str.swapcase`` (``unicode_swapcase``), two functions no run
calls. The imports and the warm-up are not counted; the figure is the total divided by
``RUNS``. The tool is an ``async def``, the kind the peer frameworks run.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
RUNS = 20
"""Conversations counted per row (the count per run is exact to a few instructions)."""
ROWS = ("0 hooks", "5 observers")
VALIDATED = "0 hooks, validated"
"""A row on demand: the 0-hook run with the call's arguments given as strings, so the tool's
argument model validates (and coerces) them; plain ints of the declared type skip it."""
ON_THE_PATH = ("pre_request", "on_response", "pre_tool_call", "on_tool_call_result", "on_chat_done")
"""One observer on each: the model call, the tool call and the end of the run."""

CHILD = """
import asyncio, sys
import agenthooks as ah

setup, runs = sys.argv[1], int(sys.argv[2])
call = ah.ToolCall(id="call_1", name="add", arguments={arguments})
ask = ah.ProviderResponse(tool_calls=[call], finish_reason="tool_calls")
answer = ah.ProviderResponse(content="5")


def script(request):
    return ask if request.messages[-1].role == "user" else answer


@ah.tool
async def add(a: int, b: int) -> int:
    "Add two integers."
    return a + b


agent = ah.Agent(
    "bench", "Add numbers.", provider=ah.providers.ScriptedProvider(script, record=False),
    tools=[add],
)
for event in {events}.get(setup, ()):
    agent.on(event, lambda ctx: None)


async def main():
    for _ in range(5):  # warm: what is built once is not per run
        assert (await ah.Session(agent).chat("2+3?")).content == "5"
    if {models}:
        await models()
        return
    "".expandtabs()  # callgrind zeroes its counters here
    for _ in range(runs):
        await ah.Session(agent).chat("2+3?")
    "".swapcase()  # and writes them out here


async def models():
    # the pydantic models one run builds, caught as their constructors are entered, then
    # built again alone between the markers: what they cost of the run
    built = []

    def caught(frame, event, arg):
        code = frame.f_code
        if event == "call" and code.co_name == "__init__" and code.co_filename.endswith(
            "pydantic/main.py"
        ):
            built.append((type(frame.f_locals["self"]), dict(frame.f_locals["data"])))

    sys.setprofile(caught)
    await ah.Session(agent).chat("2+3?")
    sys.setprofile(None)
    print(len(built), file=sys.stderr)
    "".expandtabs()
    for _ in range(runs):
        for cls, data in built:
            cls(**data)
    "".swapcase()


asyncio.run(main())
"""


def available() -> bool:
    """True when valgrind is installed."""
    return shutil.which("valgrind") is not None


def count(root: Path, setup: str, runs: int = RUNS, *, models: bool = False) -> int:
    """Instructions one run of the row ``setup`` executes with the ``agenthooks`` package of
    the checkout at ``root`` (``RuntimeError`` when callgrind wrote no count). ``models``:
    only what building the run's pydantic models (messages, requests, the response, event
    contexts) through their constructors costs, each built again alone with the arguments
    the run gave it."""
    child = CHILD.replace("{events}", repr({"5 observers": ON_THE_PATH}))
    child = child.replace("{models}", repr(models))
    arguments = {"a": "2", "b": "3"} if setup == VALIDATED else {"a": 2, "b": 3}
    child = child.replace("{arguments}", repr(arguments))
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "child.py"
        script.write_text(child)
        out = Path(tmp) / "callgrind.out"
        # a fixed hash seed: string hashes decide how many probes a dict lookup takes, which
        # moves a random-seeded count by about a thousand instructions from one child to the next
        env = {**os.environ, "PYTHONPATH": str(root), "PYTHONHASHSEED": "0"}
        subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                "--zero-before=unicode_expandtabs",
                "--dump-before=unicode_swapcase",
                f"--callgrind-out-file={out}",
                sys.executable,
                str(script),
                setup,
                str(runs),
            ],
            env=env,
            check=True,
            capture_output=True,
        )
        dumped = Path(f"{out}.1")  # the first dump: the counted runs alone
        found = re.search(r"^summary: (\d+)$", dumped.read_text(), re.MULTILINE)
        if found is None:
            raise RuntimeError(f"callgrind wrote no count for {setup!r} at {root}")
        return int(found.group(1)) // runs


def main(argv: list[str] | None = None) -> None:
    """Print the instructions per run of each row for the checkout given (default: this
    one)."""
    args = sys.argv[1:] if argv is None else argv
    root = Path(args[0]) if args else HERE.parent
    rows = args[1:] or ROWS
    if not available():
        print("callgrind: valgrind is not installed (apt-get install valgrind)")
        return
    print(f"\n## Instructions per run (callgrind), {root}")
    print(f"{'row':24} {'a run':>12} {'its models':>12} {'share':>6}")
    for setup in rows:
        whole, models = count(root, setup), count(root, setup, models=True)
        print(f"{setup:24} {whole:>12,} {models:>12,} {models / whole:6.0%}")


if __name__ == "__main__":
    main()
