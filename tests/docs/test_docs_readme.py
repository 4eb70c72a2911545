"""The README is part of the product: its event table is the catalog, its code runs."""

from __future__ import annotations

import re
from pathlib import Path

from agenthooks.events.describe import markdown_table

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_event_table_is_the_catalog() -> None:
    text = README.read_text()
    table = text.split("<!-- events-table:start -->\n", 1)[1].split("<!-- events-table:end -->")[0]
    assert table.strip() == markdown_table()


def test_readme_python_blocks_run_in_order(capsys) -> None:  # type: ignore[no-untyped-def]
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert len(blocks) >= 2
    namespace: dict[str, object] = {"__name__": "readme"}
    for block in blocks:
        exec(compile(block, str(README), "exec"), namespace)
    assert capsys.readouterr().out.splitlines()[0] == "I was not allowed to delete it."
