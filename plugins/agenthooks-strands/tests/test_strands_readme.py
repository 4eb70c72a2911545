"""The README's example runs and prints what the README says; every other Python block of
the README runs as is."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agenthooks.testing import readme_example

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def test_readme_example_prints_what_it_says(capsys: pytest.CaptureFixture[str]) -> None:
    code, printed = readme_example(README)
    # the README is this distribution's own file: running it is the point of the test
    exec(compile(code, str(README), "exec"), {"__name__": "__main__"})
    assert capsys.readouterr().out == printed


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_every_python_block_runs(index: int, capsys: pytest.CaptureFixture[str]) -> None:
    exec(compile(BLOCKS[index], f"{README}[{index}]", "exec"), {"__name__": "__main__"})
    if index == 1:
        assert capsys.readouterr().out.strip() == "Paid."
