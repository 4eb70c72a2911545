"""The README's example runs and prints exactly what the README says it prints."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README.read_text(), flags=re.DOTALL)


def test_the_readme_example_prints_what_the_readme_shows() -> None:
    (example,) = blocks("python")
    (expected,) = blocks("text")
    out = io.StringIO()

    with contextlib.redirect_stdout(out):
        exec(compile(example, str(README), "exec"), {"__name__": "readme_example"})

    assert out.getvalue() == expected
