"""Budgets count the whole run (item 8 as a class, hypothesis).

Hypothesis builds agent trees: a top agent with ``max_total_tokens`` / ``max_cost`` (or none),
tool turns that call a plain tool or a sub-agent (which may have its own caps and sub-agents),
and maybe a handoff to a target with or without caps. Every model response costs a drawn number
of tokens. The properties:

- no request starts once the whole run's usage (every agent it reached) is at the top cap;
- no request of a sub-agent run starts once that run's own usage is at its own cap;
- a run that completes reports the usage of every response of every agent it reached;
- a run ends with ``BudgetExceeded`` only when a cap was really reached;
- and the run invariants hold.
"""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass, field
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from rel_drive import PHASES, drive, invariant_problems, scale
from rel_probe import Probe
from rel_scenario import turn_of

from agenthooks import (
    Agent,
    BudgetExceeded,
    HookBus,
    ProviderRequest,
    ProviderResponse,
    ScriptedProvider,
    Session,
    ToolCall,
    Usage,
    tool,
)


@dataclass
class Spec:
    """One agent of a tree: its price per response, caps, tool turns and handoff target."""

    name: str
    tokens: int
    cap: int | None
    cost_cap: float | None
    actions: list[Spec | None]  # a sub-agent to call, or None for the plain tool
    handoff: Spec | None = None

    def __repr__(self) -> str:
        subs = ", ".join("tool" if a is None else repr(a) for a in self.actions)
        hand = f" → {self.handoff!r}" if self.handoff else ""
        return f"{self.name}({self.tokens}t cap={self.cap} cost_cap={self.cost_cap} [{subs}]{hand})"


names = itertools.count(1)


@st.composite
def trees(draw: Any, depth: int = 0) -> Spec:
    name = "top" if depth == 0 else f"agent{next(names)}"
    actions: list[Spec | None] = []
    for _ in range(draw(st.integers(0, 3))):
        sub = depth < 2 and draw(st.booleans())
        actions.append(draw(trees(depth + 1)) if sub else None)
    handoff = draw(trees(1)) if depth == 0 and draw(st.booleans()) else None
    return Spec(
        name=name,
        tokens=draw(st.integers(1, 40)),
        cap=draw(st.none() | st.integers(1, 150)),
        cost_cap=draw(st.none() | st.sampled_from([0.05, 0.2, 0.6])) if depth == 0 else None,
        actions=actions,
        handoff=handoff,
    )


@tool
async def work(task: str) -> str:
    """Do some plain work."""
    return f"worked on {task}"


@dataclass
class Ledger:
    """Every response served in one chat, and what was spent before each request."""

    total: int = 0
    cost: float = 0.0
    per_run: dict[str, int] = field(default_factory=dict)
    broken: list[str] = field(default_factory=list)
    sub_capped: bool = False  # a sub-agent run reached its own cap
    took_over: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Each capped handoff target: (the run's total when it took over, its own cap)."""

    @property
    def handoff_capped(self) -> bool:
        """A handoff target reached its own cap on what was spent since it took over."""
        return any(self.total - base >= cap for base, cap in self.took_over.values())

    ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))


def _script(spec: Spec, ledger: Ledger, top: Spec, offset: int, sub: bool) -> Any:
    def script(request: ProviderRequest) -> ProviderResponse:
        run = next(m.content for m in request.messages if m.role == "user") or ""
        before = ledger.per_run.get(run, 0)
        if top.cap is not None and ledger.total >= top.cap:
            ledger.broken.append(
                f"{spec.name} asked the model with {ledger.total} tokens spent of the run's "
                f"max_total_tokens={top.cap}"
            )
        if top.cost_cap is not None and ledger.cost >= top.cost_cap - 1e-9:
            ledger.broken.append(
                f"{spec.name} asked the model with {ledger.cost:.2f} spent of the run's "
                f"max_cost={top.cost_cap}"
            )
        if sub and spec.cap is not None and before >= spec.cap:
            ledger.broken.append(
                f"sub-agent {spec.name} asked the model with {before} tokens spent of its "
                f"own max_total_tokens={spec.cap}"
            )
        if not sub and spec is not top and spec.cap is not None:
            ledger.took_over.setdefault(spec.name, (ledger.total, spec.cap))
        ledger.total += spec.tokens
        ledger.cost += spec.tokens / 100
        ledger.per_run[run] = before + spec.tokens
        if sub and spec.cap is not None and before + spec.tokens >= spec.cap:
            ledger.sub_capped = True
        usage = Usage(input_tokens=spec.tokens, total_tokens=spec.tokens, cost=spec.tokens / 100)
        turn = turn_of(request) - offset
        n = next(ledger.ids)
        if 0 <= turn < len(spec.actions):
            action = spec.actions[turn]
            call = (
                ToolCall(id=f"c{n}", name="work", arguments={"task": f"job {n}"})
                if action is None
                else ToolCall(id=f"c{n}", name=action.name, arguments={"task": f"task {n}"})
            )
            return ProviderResponse(finish_reason="tool_calls", tool_calls=[call], usage=usage)
        if turn == len(spec.actions) and spec.handoff is not None:
            call = ToolCall(id=f"c{n}", name=f"transfer_to_{spec.handoff.name}", arguments={})
            return ProviderResponse(finish_reason="tool_calls", tool_calls=[call], usage=usage)
        return ProviderResponse(content=f"{spec.name} done", usage=usage)

    return script


def _agent(spec: Spec, ledger: Ledger, top: Spec, *, offset: int = 0, sub: bool = False) -> Agent:
    subs = [_agent(a, ledger, top, sub=True) for a in spec.actions if a is not None]
    unique = list({a.name: a for a in subs}.values())
    handoffs = []
    if spec.handoff is not None:
        handoffs.append(_agent(spec.handoff, ledger, top, offset=len(spec.actions) + 1))
    return Agent(
        spec.name,
        provider=ScriptedProvider(_script(spec, ledger, top, offset, sub)),
        tools=[work],
        sub_agents=unique,
        handoffs=handoffs,
        max_total_tokens=spec.cap,
        max_cost=spec.cost_cap,
        max_turns=10,
        bus=HookBus() if spec is top else None,
    )


async def _run(top: Spec) -> list[str]:
    ledger = Ledger()
    agent = _agent(top, ledger, top)
    probe = Probe()
    probe.attach(agent.bus)
    session = Session(agent)
    outcome = await drive(session, "go", probe, stream=False)
    problems = [
        f"{kind}: {detail}"
        for kind, detail in await invariant_problems(probe, outcome, session.history)
    ]
    problems += ledger.broken
    if outcome.kind == "response":
        usage = outcome.response.usage
        if usage.total_tokens != ledger.total:
            problems.append(
                f"the run reports {usage.total_tokens} tokens, its agents were served "
                f"{ledger.total}"
            )
    elif isinstance(outcome.error, BudgetExceeded):
        reached = (top.cap is not None and ledger.total >= top.cap) or (
            top.cost_cap is not None and ledger.cost >= top.cost_cap - 1e-9
        )
        if not reached and not ledger.sub_capped and not ledger.handoff_capped:
            problems.append(f"BudgetExceeded with no cap reached: {outcome.error}")
    else:
        problems.append(f"the run ended with {outcome.describe()}")
    return problems


@settings(max_examples=scale(120, 2500), deadline=None, database=None, phases=PHASES)
@given(top=trees())
def test_a_runs_budget_counts_every_agent_it_reached(top: Spec) -> None:
    assert asyncio.run(_run(top)) == []
