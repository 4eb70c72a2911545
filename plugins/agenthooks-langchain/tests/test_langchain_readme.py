"""The README's example runs as written and prints what the README says it prints, and every
other Python snippet in it runs."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from agenthooks.testing import readme_example

README = Path(__file__).resolve().parent.parent / "README.md"


def test_the_readme_example_prints_its_documented_output(tmp_path: Path) -> None:
    code, expected = readme_example(README)
    script = tmp_path / "readme_example.py"
    script.write_text(code)
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == expected


def test_every_python_snippet_of_the_readme_runs() -> None:
    snippets = re.findall(r"```python\n(.*?)```", README.read_text(), re.DOTALL)
    assert len(snippets) == 2
    for snippet in snippets[1:]:
        exec(compile(snippet, str(README), "exec"), {})
