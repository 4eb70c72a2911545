"""The README's example runs as written and prints what the README says it prints, and every
other Python block of the README runs as is."""

from __future__ import annotations

from pathlib import Path

from agenthooks.testing import assert_readme_runs

README = Path(__file__).resolve().parents[1] / "README.md"


def test_every_python_block_of_the_readme_runs_and_prints_what_it_says() -> None:
    assert_readme_runs(README)
