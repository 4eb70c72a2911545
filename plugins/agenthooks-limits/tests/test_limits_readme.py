"""The README's example runs as written and prints what the README says it prints."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from agenthooks.testing import readme_example

README = Path(__file__).resolve().parent.parent / "README.md"


@pytest.mark.subprocess
def test_the_readme_example_prints_its_documented_output(tmp_path: Path) -> None:
    code, expected = readme_example(README)
    script = tmp_path / "readme_limits_example.py"
    script.write_text(code)
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == expected
    # the warnings the README mentions went to stderr, in this order
    actions = re.findall(r"limit_reached\s.*?action=(\w+)", done.stderr)
    assert actions == ["deny", "warn", "downgrade", "deny", "stop"]


def test_the_readme_toml_block_is_a_valid_configuration() -> None:
    from agenthooks_limits import Limits, parse_limits

    found = re.search(r"```toml\n(.*?)```", README.read_text(), re.DOTALL)
    assert found is not None
    limits = Limits(**parse_limits(found.group(1), source="README.md"))
    assert limits.max_calls_per_tool["search"].limit == 5


@pytest.mark.parametrize(
    "text",
    [
        "turn limit: 5 of 5 turns used",
        "token limit: 120000 of 100000 tokens used",
        "cost limit: $0.56 of $0.5 spent",
        "tool call limit: 30 of 30 tool calls used",
        'tool call limit for "search": 5 of 5 calls used',
        'rate limit for "search": 10 calls in the last 60 seconds, the limit is 10',
    ],
)
def test_the_documented_reason_texts_are_the_real_ones(text: str) -> None:
    from agenthooks_limits import Breach, Step

    made = {
        "turns": Breach("turns", 5, 5, Step(1.0, "stop")),
        "token": Breach("tokens", 120000, 100000, Step(1.0, "stop")),
        "cost": Breach("cost", 0.35 + 0.21, 0.5, Step(1.0, "stop")),
        "tool calls": Breach("tool_calls", 30, 30, Step(1.0, "deny")),
        "calls used": Breach("tool", 5, 5, Step(1.0, "deny"), tool="search"),
        "rate": Breach("rate", 10, 10, Step(1.0, "deny"), tool="search", per=60.0),
    }
    assert text in {b.text for b in made.values()}
    assert text in README.read_text()
