"""Concurrent runs on one shared agent, with exact per-run event accounting, and the memory
each run holds (printed).

One plain handler per event counts emissions by run id. After ``asyncio.gather`` of every run:
each top-level run fired exactly the events of the same run alone, each sub-agent run exactly
those of a sub-agent run alone, every run ended with its own answer, and no task is left.

- 10,000 concurrent Sessions of one agent whose parallel tools touch memory;
- 500 concurrent Sessions of the whole scenario tree (parallel tools, a sub-agent, a handoff,
  sequential tools); ``make soak`` runs 60,000 of these.

Memory per run: the Python allocations (``tracemalloc``) of a batch of concurrent runs (500
and 100 under ``make test``, 10,000 each under ``make soak``), at the peak and after, per run.
"""

from __future__ import annotations

import asyncio
import gc
import tracemalloc
from collections import Counter, defaultdict
from collections.abc import Callable
from typing import Any

from rel_drive import scale
from rel_probe import TERMINAL, Probe
from rel_scenario import (
    PROBE,
    add,
    answer,
    calls,
    closer_script,
    helper_script,
    lead_script,
    note,
    recall,
    stamp,
    turn_of,
)

from agenthooks import (
    CATALOG,
    Agent,
    Memory,
    ProviderRequest,
    ProviderResponse,
    ScriptedProvider,
    Session,
)

LIGHT_RUNS = 10_000
TREE_RUNS = scale(500, 60_000)


class Accounts:
    """Emission counts per run id, and which run is whose sub-agent run."""

    def __init__(self) -> None:
        self.counts: dict[str, Counter[str]] = defaultdict(Counter)
        self.parent: dict[str, str | None] = {}

    def handler(self, name: str) -> Any:
        def count(ctx: Any) -> None:
            self.counts[ctx.run_id][name] += 1
            self.parent.setdefault(ctx.run_id, ctx.parent_run_id)

        return count


def _tree(accounts: Accounts) -> Agent:
    helper = Agent("helper", provider=ScriptedProvider(helper_script, record=False), tools=[add])
    closer = Agent("closer", provider=ScriptedProvider(closer_script, record=False), tools=[stamp])
    lead = Agent(
        "lead",
        provider=ScriptedProvider(lead_script, record=False),
        tools=[note, recall],
        sub_agents=[helper],
        handoffs=[closer],
        parallel_tool_calls=True,
        memory=Memory(),
    )
    return _counted(lead, accounts)


def _solo_script(request: ProviderRequest) -> ProviderResponse:
    if turn_of(request) == 0:
        return calls(("S1", "note", {"key": "k", "value": "v"}), ("S2", "recall", {"key": "k"}))
    return answer("solo answer")


def _solo(accounts: Accounts) -> Agent:
    lead = Agent(
        "solo",
        provider=ScriptedProvider(_solo_script, record=False),
        tools=[note, recall],
        parallel_tool_calls=True,
        memory=Memory(),
    )
    return _counted(lead, accounts)


def _counted(agent: Agent, accounts: Accounts) -> Agent:
    for name in CATALOG:
        if name != "on_event":
            agent.bus.on(name, accounts.handler(name))
    return agent


async def _memory_per_run(build: Callable[[Accounts], Agent], runs: int) -> str:
    """The Python allocations (tracemalloc) per run of ``runs`` concurrent runs: at the peak,
    and held once they are done (their Sessions kept)."""
    lead = build(Accounts())
    sessions = [Session(lead) for _ in range(runs)]
    gc.collect()
    tracemalloc.start()
    base, _ = tracemalloc.get_traced_memory()
    await asyncio.gather(*(s.chat("go") for s in sessions))
    gc.collect()
    held, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return (
        f"{runs} concurrent runs of {lead.name!r}: {(peak - base) / runs / 1024:.1f} KiB per "
        f"run at the peak, {(held - base) / runs / 1024:.1f} KiB per run held after (history "
        "and the counting handler's accounts; tracemalloc)"
    )


async def _accounting(
    build: Callable[[Accounts], Agent], runs: int, answer_text: str, memory_runs: int
) -> None:
    PROBE.set(Probe())  # the scenario's tools mark their steps on it
    alone = Accounts()
    await Session(build(alone)).chat("go")
    top_alone = next(c for r, c in alone.counts.items() if alone.parent[r] is None)
    sub_alone = [c for r, c in alone.counts.items() if alone.parent[r] is not None]

    accounts = Accounts()
    lead = build(accounts)
    sessions = [Session(lead) for _ in range(runs)]
    before_tasks = asyncio.all_tasks()
    responses = await asyncio.gather(*(s.chat("go") for s in sessions))

    wrong: list[str] = []
    tops = [r for r, p in accounts.parent.items() if p is None]
    children: dict[str | None, list[str]] = defaultdict(list)
    for run, parent in accounts.parent.items():
        if parent is not None:
            children[parent].append(run)
    if len(tops) != runs:
        wrong.append(f"{len(tops)} top-level runs seen, {runs} started")
    for run in tops:
        if accounts.counts[run] != top_alone:
            diff = (accounts.counts[run] - top_alone) + (top_alone - accounts.counts[run])
            wrong.append(f"run {run}: events off by {dict(diff)}")
        kids = [accounts.counts[k] for k in children.get(run, [])]
        if kids != sub_alone:
            wrong.append(f"run {run}: sub-agent runs {[dict(k) for k in kids]}")
        if sum(accounts.counts[run][t] for t in TERMINAL) != 1:
            wrong.append(f"run {run}: not one terminal event")
    answers = Counter(r.content for r in responses)
    if answers != Counter({answer_text: runs}):
        wrong.append(f"answers {dict(answers)}")
    histories = Counter(len(s.history) for s in sessions)
    if len(histories) != 1:
        wrong.append(f"history lengths differ across runs: {dict(histories)}")
    left = [t for t in asyncio.all_tasks() - before_tasks if not t.done()]
    if left:
        wrong.append(f"{len(left)} tasks left pending")
    assert wrong == [], f"{len(wrong)} problem(s), first: {wrong[:5]}"
    print(f"\n{runs} concurrent runs: every run fired exactly its own events")
    print(await _memory_per_run(build, memory_runs))


async def test_ten_thousand_concurrent_runs_each_fire_exactly_their_own_events() -> None:
    await _accounting(_solo, LIGHT_RUNS, "solo answer", scale(500, LIGHT_RUNS))


async def test_concurrent_runs_of_an_agent_tree_each_fire_exactly_their_own_events() -> None:
    await _accounting(_tree, TREE_RUNS, "closer answer", scale(100, 10_000))
