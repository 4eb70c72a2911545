"""The fault-injection generator: one faulty handler per case, at one emission of one event.

A case is (target event, occurrence, via an ``on_event`` record or not, policy, fault, mode).
The handler sits on the run's bus (``errors="isolate"`` for the isolate policy, ``guard=True``
for the guard policy) and faults at the ``occurrence``-th emission of ``target`` it sees:
``value`` raises a ``ValueError`` whose text carries a secret, ``cancel`` raises
``CancelledError``, ``stop`` raises ``StopRun``, ``keep`` raises that ``ValueError`` at that emission and every later one, ``bad`` returns a key
no event accepts. The
oracle (``rel_contract.effect``) is checked against two reference runs of the same scenario:
the same handler returning ``None`` there (``ignored``) or ``Deny(<the exception's text>)``
(``deny``).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from rel_drive import Outcome, drive, invariant_problems, scale
from rel_probe import TERMINAL, Emission
from rel_scenario import World, build
from rel_tally import Problem

from agenthooks import BadReturnError, Deny, StopRun

SECRET = "token=abc123"
STREAM_EVENTS = frozenset(
    {"on_stream_start", "on_stream_chunk", "on_stream_end", "on_stream_error"}
)
BAD = "bogus_key"
OUTCOME = "the outcome the contract prescribes"
PARITY = "chat() and chat_stream() agree"


@dataclass(frozen=True)
class Case:
    """One injected fault."""

    target: str
    occurrence: int
    via_record: bool
    policy: str
    fault: str  # value, cancel, stop, bad; the reference runs: none, deny_value, deny_bad
    stream: bool

    def label(self) -> str:
        where = f"on_event record of {self.target}" if self.via_record else self.target
        mode = "chat_stream()" if self.stream else "chat()"
        return f"{mode} {self.fault} in {where} #{self.occurrence} ({self.policy})"

    def reference(self, fault: str) -> Case:
        """The reference run: ``none`` (one per registration) or ``deny`` (per emission; a
        ``deny_value`` or ``deny_bad`` run, whose reason stands for this fault's text)."""
        if fault == "none":  # the handler never faults: one run serves every occurrence
            target = "on_event" if self.via_record else self.target
            return Case(target, 0, self.via_record, self.policy, fault, self.stream)
        twin = f"deny_{self.fault}"
        return Case(self.target, self.occurrence, self.via_record, self.policy, twin, self.stream)


class References:
    """The reference runs, each run once and kept."""

    def __init__(self) -> None:
        self.runs: dict[Case, tuple[World, Outcome]] = {}

    async def get(self, case: Case, fault: str) -> tuple[World, Outcome]:
        key = case.reference(fault)
        if key not in self.runs:
            world, outcome, _ = await run_case(key)
            self.runs[key] = (world, outcome)
        return self.runs[key]


class Faulty:
    """The handler of a case: counts the emissions of its target, faults at one of them."""

    def __init__(self, case: Case) -> None:
        self.case = case
        self.seen = 0
        self.fired = False
        self.planted: BaseException | None = None
        if case.fault in ("value", "keep"):
            self.planted = ValueError(f"hook internals: {SECRET}")
        elif case.fault == "stop":
            self.planted = StopRun("stopped by a hook")

    def __call__(self, ctx: Any) -> Any:
        case = self.case
        if case.via_record and ctx.type != case.target:
            return None
        self.seen += 1
        if self.seen != case.occurrence and not (
            self.seen > case.occurrence and case.fault in ("keep", "deny_keep")
        ):
            return None
        self.fired = True
        if case.fault == "cancel":
            raise asyncio.CancelledError()
        if self.planted is not None:
            raise self.planted
        if case.fault == "bad":
            return BAD if case.target == "should_stop" else {BAD: 1}
        if case.fault.startswith("deny_"):
            return Deny(deny_text(case))
        return None


def deny_text(case: Case) -> str:
    """The reason the ``deny`` reference run gives (what the fault must amount to)."""
    if case.fault in ("value", "keep", "deny_value", "deny_keep"):
        return f"hook internals: {SECRET}"
    return f"<{BAD}>"


async def run_case(case: Case) -> tuple[World, Outcome, Faulty]:
    """One run of the scenario with the case's handler in place."""
    world = build()
    handler = Faulty(case)
    options: dict[str, Any] = {}
    if case.policy == "isolate":
        options["errors"] = "isolate"
    elif case.policy == "guard":
        options["guard"] = True
    event = "on_event" if case.via_record else case.target
    world.on(event, world.probe.track(event, handler), **options)
    try:
        outcome = await drive(world.session, "go", world.probe, stream=case.stream)
    finally:
        world.close()
    return world, outcome, handler


def norm(text: str | None) -> str | None:
    """Texts compared across runs: a bad return's message stands for its deny reason."""
    if text is not None and BAD in text:
        return f"<{BAD}>"
    return text


def sequence(events: list[Emission], *, skip_stream: bool = False) -> list[tuple[Any, ...]]:
    """Events as comparable tuples (run ids numbered by first appearance)."""
    runs: dict[str | None, int] = {}
    out = []
    for e in events:
        if skip_stream and e.name in STREAM_EVENTS:
            continue
        m = e.message
        message = None if m is None else (m.role, norm(m.content), m.tool_call_id, m.is_error)
        out.append((e.name, e.agent, runs.setdefault(e.run_id, len(runs)), e.tool_call_id, message))
    return out


def normalized(outcome: Outcome) -> tuple[Any, ...]:
    summary = outcome.summary()
    if summary[0] != "response":
        return tuple(norm(s) if isinstance(s, str) else s for s in summary)
    kind, content, reason, agent, messages = summary
    return (kind, norm(content), reason, agent, [(r, norm(c), *rest) for r, c, *rest in messages])


def kth(events: list[Emission], target: str, occurrence: int) -> int:
    """The index of the ``occurrence``-th emission of ``target`` (-1 when there is none)."""
    seen = 0
    for i, e in enumerate(events):
        if e.name == target:
            seen += 1
            if seen == occurrence:
                return i
    return -1


def top_terminals(events: list[Emission]) -> list[Emission]:
    return [e for e in events if e.parent_run_id is None and e.name in TERMINAL]


def generate(stream: bool, counts: dict[str, int]) -> list[Case]:
    """Every case of one mode, from the emission counts of its baseline run."""
    # on_event records faulted under make test (every record under make soak)
    records = {
        "on_chat_done",
        "on_chat_end",
        "on_session_end",
        "on_message",
        "on_memory_write",
        "on_stream_chunk",
    }
    mixes = [(f, p) for f in ("value", "keep") for p in ("raise", "isolate", "guard")]
    mixes += [("bad", p) for p in ("raise", "isolate", "guard")]
    mixes += scale(
        [("cancel", "isolate"), ("stop", "isolate")],
        [(f, p) for f in ("cancel", "stop") for p in ("raise", "isolate", "guard")],
    )
    cases = []
    for target, count in sorted(counts.items()):
        if target in STREAM_EVENTS and not stream:
            continue
        occurrences = scale(sorted({1, count}), list(range(1, count + 1)))
        for via_record in (False, True):
            if via_record and not (target in records or scale(False, True)):
                continue
            for k in occurrences:
                for fault, policy in mixes:
                    if fault == "stop" and target == "on_chat_done":
                        continue  # StopRun after the run completed: the contract is silent
                    cases.append(Case(target, k, via_record, policy, fault, stream))
    return cases


async def check_case(
    case: Case, references: References, effect: str
) -> tuple[list[Problem], World, Outcome]:
    """Run ``case`` and compare it with what ``effect`` prescribes."""
    world, outcome, handler = await run_case(case)
    events = world.probe.events
    secret = SECRET if case.fault in ("value", "keep") and effect != "deny" else None
    problems = await invariant_problems(world.probe, outcome, world.session.history, secret=secret)
    wrong: list[str] = []
    if not handler.fired:
        wrong.append("the fault never fired")
    base_world, base = await references.get(case, "none")
    base_events = base_world.probe.events
    at = kth(base_events, case.target, case.occurrence)
    if sequence(events[: at + 1]) != sequence(base_events[: at + 1]):
        wrong.append("the events before the fault differ from the run without it")
    if effect == "ignored":
        if normalized(outcome) != normalized(base):
            wrong.append(f"got {outcome.describe()}, expected {base.describe()}")
        elif sequence(events) != sequence(base_events):
            wrong.append("the events differ from the run where the handler returned None")
    elif effect == "deny":
        twin_world, twin = await references.get(case, "deny")
        if normalized(outcome) != normalized(twin):
            wrong.append(f"got {outcome.describe()}, expected as Deny: {twin.describe()}")
        elif sequence(events) != sequence(twin_world.probe.events):
            wrong.append("the events differ from the run where the handler returned Deny")
    else:
        wrong += _ending(case, effect, outcome, handler, events, base_events)
    problems += [(OUTCOME, w) for w in wrong]
    return problems, world, outcome


def _ending(
    case: Case,
    effect: str,
    outcome: Outcome,
    handler: Faulty,
    events: list[Emission],
    base_events: list[Emission],
) -> list[str]:
    """The checks of a run that must end with an error for its caller."""
    wrong = []
    error = outcome.error
    if effect == "cancel":
        if not isinstance(error, asyncio.CancelledError):
            wrong.append(f"got {outcome.describe()}, expected CancelledError after teardown")
    elif effect == "ends" and case.fault == "bad":
        if not isinstance(error, BadReturnError):
            wrong.append(f"got {outcome.describe()}, expected the BadReturnError")
    elif error is not handler.planted:
        wrong.append(f"got {outcome.describe()}, expected the handler's own {handler.planted!r}")
    ends = top_terminals(events)
    base_end = top_terminals(base_events)[0].name
    at = kth(base_events, case.target, case.occurrence)
    already = any(e.name in TERMINAL and e.parent_run_id is None for e in base_events[: at + 1])
    want = {
        "cancel": base_end if already else "on_chat_abort",
        "ends": "on_chat_error",
        "stop": "on_chat_error",
        "done_raise": "on_chat_done",
    }[effect]
    if [e.name for e in ends] != [want]:
        wrong.append(f"top-level terminal events {[e.name for e in ends]}, expected [{want!r}]")
    elif want == "on_chat_error" and ends[0].error is not error and case.fault != "bad":
        wrong.append("on_chat_error does not carry the error the caller gets")
    if effect == "stop":
        stops = [e.reason for e in events if e.name == "on_stop" and e.parent_run_id is None]
        if stops != ["stopped by a hook"]:
            wrong.append(f"top-level on_stop reasons {stops}, expected ['stopped by a hook']")
    if effect == "done_raise":
        chat_end = [e for e in events if e.name == "on_chat_end" and e.parent_run_id is None]
        if not chat_end or chat_end[0].response is None or chat_end[0].error is not None:
            wrong.append("on_chat_end after an on_chat_done raise must carry the response")
    return wrong
