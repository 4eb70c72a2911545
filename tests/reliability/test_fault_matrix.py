"""Fault injection: every event × occurrence × policy × fault, in chat() and chat_stream().

Items 1, 2 and 6 of the reliability issue as classes: whatever a handler raises or returns,
wherever and whenever, each run ends with exactly one terminal event, then ``on_chat_end`` and
``on_session_end``; the caller gets the outcome the contract prescribes; a run-ending hook
error never reaches the model; ``chat()`` and ``chat_stream()`` are the same run.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Any

import pytest
from rel_contract import effect
from rel_faults import (
    PARITY,
    STREAM_EVENTS,
    Case,
    References,
    check_case,
    generate,
    kth,
    normalized,
    sequence,
)
from rel_tally import Tally

# the "bad return" fault on an observer event is warned about by design (one
# IgnoredReturnWarning per handler, tested in test_silent_mistakes.py); here it is noise
pytestmark = pytest.mark.filterwarnings("ignore::agenthooks.errors.IgnoredReturnWarning")

# per mode: case (mode-free) -> (events without stream events, normalized outcome)
_SEEN: dict[bool, dict[Case, tuple[Any, Any]]] = {}


async def _matrix(stream: bool) -> Tally:
    tally = Tally(f"faults in {'chat_stream()' if stream else 'chat()'}")
    references = References()
    base_world, _ = await references.get(Case("on_event", 0, True, "raise", "none", stream), "none")
    counts = Counter(e.name for e in base_world.probe.events)
    seen: dict[Case, tuple[Any, Any]] = {}
    for case in generate(stream, counts):
        none_world, _ = await references.get(case, "none")
        base_events = none_world.probe.events
        at = base_events[kth(base_events, case.target, case.occurrence)]
        top_done = at.name == "on_chat_done" and at.parent_run_id is None
        expected = effect(
            case.target,
            via_record=case.via_record,
            policy=case.policy,
            fault=case.fault,
            top_done=top_done,
        )
        problems, world, outcome = await check_case(case, references, expected)
        tally.case(f"{case.label()} [expected {expected}]", problems, f"{case.fault} {case.target}")
        seen[replace(case, stream=False)] = (
            sequence(world.probe.events, skip_stream=True),
            normalized(outcome),
        )
    _SEEN[stream] = seen
    return tally


async def test_every_fault_in_chat_holds_the_contract() -> None:
    (await _matrix(stream=False)).assert_held()


async def test_every_fault_in_chat_stream_holds_the_contract() -> None:
    (await _matrix(stream=True)).assert_held()


async def test_chat_and_chat_stream_give_the_same_run_for_every_fault() -> None:
    for stream in (False, True):
        if stream not in _SEEN:
            await _matrix(stream)
    tally = Tally("chat()/chat_stream() parity")
    chat, streamed = _SEEN[False], _SEEN[True]
    for case, (events, outcome) in chat.items():
        if case.target in STREAM_EVENTS:
            continue
        other_events, other_outcome = streamed[case]
        problems = []
        if outcome != other_outcome:
            problems.append((PARITY, f"outcome {outcome[:3]} vs stream {other_outcome[:3]}"))
        elif events != other_events:
            first = _first_difference(events, other_events)
            problems.append(
                (
                    PARITY,
                    f"events differ at #{first}: {events[first : first + 1]} vs "
                    f"{other_events[first : first + 1]}",
                )
            )
        tally.case(
            case.label().replace("chat()", "chat()/chat_stream()"),
            problems,
            f"{case.fault} {case.target}",
        )
    tally.assert_held()


def _first_difference(a: list[Any], b: list[Any]) -> int:
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return min(len(a), len(b))
