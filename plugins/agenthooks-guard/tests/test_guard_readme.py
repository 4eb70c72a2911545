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
    script = tmp_path / "readme_example.py"
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


def test_the_readme_documents_every_key_of_the_policy_format() -> None:
    from agenthooks_guard import OPERATORS
    from agenthooks_guard.config import _CUSTOM, _INPUT, _REDACT, _RULE, _TOP

    text = README.read_text()
    found = re.search(r"```toml\n(.*?)```", text, re.DOTALL)
    assert found is not None
    reference = found.group(1)
    for key in (*_TOP, *_RULE, *_INPUT, *_REDACT, *_CUSTOM):
        assert re.search(rf"(^|[\s.\[]){key}\b", reference, re.MULTILINE), key
    for op in OPERATORS:
        assert f"`{op}`" in text, op
