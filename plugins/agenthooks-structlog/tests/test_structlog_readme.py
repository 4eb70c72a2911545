"""The README's example runs and prints what the README says it prints."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    text = README.read_text(encoding="utf-8")
    code = re.search(r"```python\n(.*?)```", text, re.DOTALL)
    printed = re.search(r"Prints:\n\n```\n(.*?)```", text, re.DOTALL)
    assert code is not None and printed is not None
    # the README is this distribution's own file: running it is the point of the test
    exec(compile(code.group(1), str(README), "exec"), {"__name__": "__main__"})
    assert capsys.readouterr().out == printed.group(1)
