"""The README's example runs and prints what the README says it prints."""

from __future__ import annotations

from pathlib import Path

import pytest

from agenthooks.testing import readme_example

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    code, printed = readme_example(README)
    # the README is this distribution's own file: running it is the point of the test
    exec(compile(code, str(README), "exec"), {"__name__": "__main__"})
    assert capsys.readouterr().out == printed
