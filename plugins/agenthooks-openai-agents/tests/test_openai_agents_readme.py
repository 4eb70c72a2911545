"""The README's example runs as is and prints what the README says."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_the_example_prints_what_the_readme_says(tmp_path: Path) -> None:
    text = README.read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```\n\nprints\n\n```text\n(.*?)```", text, re.S)
    assert len(blocks) == 1
    code, expected = blocks[0]
    script = tmp_path / "example.py"
    script.write_text(code, encoding="utf-8")

    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120
    )

    assert done.returncode == 0, done.stderr
    assert done.stdout == expected
