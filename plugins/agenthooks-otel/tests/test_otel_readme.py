"""The README's example runs and prints exactly what the README says it prints."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

from agenthooks.testing import readme_example

README = Path(__file__).resolve().parents[1] / "README.md"


def test_the_readme_example_prints_what_the_readme_shows() -> None:
    example, expected = readme_example(README)
    out = io.StringIO()

    with contextlib.redirect_stdout(out):
        exec(compile(example, str(README), "exec"), {"__name__": "readme_example"})

    assert out.getvalue() == expected
