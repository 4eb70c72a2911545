"""The README's example runs as written and prints what the README says it prints."""

from __future__ import annotations

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
