"""Counting generated cases: how many held, and which kinds of break the others showed.

A generator test feeds every case's problems to a ``Tally`` and ends with
``tally.assert_held()``: it passes when every case held, else fails with the counts per kind
of break and the first cases of each kind (a minimal repro to start from). The summary line
is printed too (``pytest -s`` shows the figures the README table keeps).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

Problem = tuple[str, str]  # (kind of break, what exactly)
EXAMPLES = 6  # examples kept per kind of break


@dataclass
class Tally:
    """The cases of one class of promise and the breaks among them."""

    name: str
    cases: int = 0
    held: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[str]] = field(default_factory=dict)

    groups: dict[str, set[str]] = field(default_factory=dict)
    only: Counter[str] = field(default_factory=Counter)  # cases with this break and no other

    def case(self, label: str, problems: list[Problem], group: str = "") -> bool:
        """Count one case; True when it held. The examples shown per kind of break come from
        distinct ``group`` values first (say, one per event), so one cause does not hide the
        others."""
        self.cases += 1
        if not problems:
            self.held += 1
            return True
        kinds = list(dict.fromkeys(k for k, _ in problems))
        if len(kinds) == 1:
            self.only[kinds[0]] += 1
        for kind in kinds:
            self.kinds[kind] += 1
            shown = self.examples.setdefault(kind, [])
            groups = self.groups.setdefault(kind, set())
            if len(shown) < EXAMPLES and (group not in groups or not group):
                groups.add(group)
                detail = "; ".join(d for k, d in problems if k == kind)
                shown.append(f"{label}: {detail[:240]}")
        return False

    def summary(self) -> str:
        lines = [f"[{self.name}] {self.held} of {self.cases} cases held"]
        for kind, count in self.kinds.most_common():
            lines.append(
                f"  {count} case(s) broke '{kind}' ({self.only[kind]} broke nothing else), e.g."
            )
            lines += [f"    - {example}" for example in self.examples[kind]]
        return "\n".join(lines)

    def assert_held(self) -> None:
        """Print the figures; fail with the breaks when a case did not hold."""
        text = self.summary()
        print(text)
        assert self.cases > 0, f"[{self.name}] generated no case"
        assert self.held == self.cases, text
