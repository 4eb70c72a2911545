"""The pytest example in examples/README.md passes in a fresh test suite (pytester)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.subprocess

pytest_plugins = ["pytester"]

README = Path(__file__).resolve().parents[2] / "examples" / "README.md"


def test_the_readme_pytest_example_passes(pytester: pytest.Pytester) -> None:
    section = README.read_text(encoding="utf-8").split("## Testing your own hooks", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    pytester.makeini(
        "[pytest]\nasyncio_mode = auto\nasyncio_default_fixture_loop_scope = function\n"
    )
    pytester.makepyfile(test_readme_example=code)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
