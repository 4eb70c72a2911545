"""``agenthooks.testing.readme_example``: a README's example and the output it documents."""

from __future__ import annotations

from pathlib import Path

import pytest

from agenthooks.testing import readme_example


def test_it_pairs_the_first_python_block_with_the_next_output_block(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(
        "```sh\npip install x\n```\n\n```python\nprint('hi')\n```\n\nPrints:\n\n```\nhi\n```\n"
        "\n```text\nnot this one\n```\n"
    )
    assert readme_example(readme) == ("print('hi')\n", "hi\n")


def test_a_text_tagged_output_block_counts_too(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("```python\nprint(1)\n```\n\n```text\n1\n```\n")
    assert readme_example(readme) == ("print(1)\n", "1\n")


def test_a_readme_without_an_example_is_named_in_the_error(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("# nothing to run\n")
    with pytest.raises(AssertionError, match=r"README\.md has no ```python example"):
        readme_example(readme)
