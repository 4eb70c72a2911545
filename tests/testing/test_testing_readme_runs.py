"""``agenthooks.testing.assert_readme_runs``: every Python block of a README runs as written;
the example prints its documented output, the others what the test says."""

from __future__ import annotations

from pathlib import Path

import pytest

from agenthooks.testing import assert_readme_runs

README = (
    "```python\nprint('hi')\n```\n\n```\nhi\n```\n\n"
    "```python\nx = 1\n```\n\n```python\nprint('paid')\n```\n"
)


def test_every_block_runs_and_prints_what_it_should(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(README)
    assert_readme_runs(readme, prints={2: "paid\n"})


def test_a_block_printing_something_else_is_named(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(README)
    with pytest.raises(AssertionError, match=r"python block 2 printed 'paid\\n', not ''"):
        assert_readme_runs(readme)


def test_a_block_that_raises_fails_with_its_error(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(README.replace("x = 1", "x = undefined"))
    with pytest.raises(NameError, match="undefined"):
        assert_readme_runs(readme, prints={2: "paid\n"})
