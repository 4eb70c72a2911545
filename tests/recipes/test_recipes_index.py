"""The recipe index in examples/README.md covers every code example of the five seeds.

The index quotes a line of each seed example. The seeds themselves are not in this repository:
``seed_index.py`` lists their examples by name, each with the quotes that locate it. These tests
check that every quote of the README belongs to a listed example, that every example holds at
least one quote, that every indexed recipe exists and names its seed, and that every recipe is
indexed.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from seed_index import SEED_EXAMPLES

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
ROW = re.compile(r"^\| (\d{3}) \| (.+?) \| `(.+?)` \| (.+) \|$")
LINK = re.compile(r"\[([\w.]+\.py)\]\(([\w.]+\.py)\)")


def index_rows() -> list[tuple[str, str, str, list[str]]]:
    text = (EXAMPLES / "README.md").read_text(encoding="utf-8")
    section = text.split("## Index: every seed example and its recipe", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        if line.startswith("| 0"):
            match = ROW.match(line)
            assert match is not None, f"malformed index row: {line}"
            seed, what, quote, recipes = match.groups()
            links = LINK.findall(recipes)
            assert links and all(a == b for a, b in links), f"bad recipe links: {line}"
            rows.append((seed, what, quote, [a for a, _ in links]))
    return rows


ROWS = index_rows()


def quotes_of(seed: str) -> list[str]:
    return [quote for s, _, quote, _ in ROWS if s == seed]


def test_the_index_covers_all_five_seeds() -> None:
    assert sorted({seed for seed, *_ in ROWS}) == ["000", "001", "002", "003", "004"]
    assert len(ROWS) == len({(seed, quote) for seed, _, quote, _ in ROWS})


@pytest.mark.parametrize(
    ("seed", "what", "quote", "recipes"), ROWS, ids=[f"{r[0]}:{r[2][:40]}" for r in ROWS]
)
def test_each_quote_locates_a_seed_example_and_its_recipes_exist(
    seed: str, what: str, quote: str, recipes: list[str]
) -> None:
    known = {q for _, qs in SEED_EXAMPLES[seed] for q in qs}
    assert quote in known, f"not a quote of any seed {seed} example: {quote!r}"
    for recipe in recipes:
        path = EXAMPLES / recipe
        assert path.is_file(), f"{recipe} is indexed but does not exist"
        assert f"Seed {seed}" in path.read_text(encoding="utf-8"), (
            f"{recipe} is indexed for seed {seed} but its docstring does not say so"
        )


def test_seed_001_has_fourteen_examples() -> None:
    assert len(SEED_EXAMPLES["001"]) == 14


@pytest.mark.parametrize("seed", sorted(SEED_EXAMPLES))
def test_every_example_of_every_seed_is_indexed(seed: str) -> None:
    quotes = set(quotes_of(seed))
    assert len(SEED_EXAMPLES[seed]) >= 5
    for name, located_by in SEED_EXAMPLES[seed]:
        assert quotes & set(located_by), f"seed {seed}: no index quote for the example {name!r}"


def test_every_recipe_is_indexed() -> None:
    text = (EXAMPLES / "README.md").read_text(encoding="utf-8")
    linked = set(LINK.findall(text))
    for recipe in sorted(EXAMPLES.glob("*.py")):
        assert (recipe.name, recipe.name) in linked, f"{recipe.name} is not in examples/README.md"
