"""The recipe index in examples/README.md covers every code example of the five seeds.

The index quotes a line of each seed example. These tests check that every quote is really in
its seed, that every code block of every seed holds at least one quote (the blocks are found
by their shape: 001's fenced blocks, 004's file captions, the hook calls and type declarations
of the others), that every indexed recipe exists and names its seed, and that every recipe is
indexed.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
SEEDS = REPO.parent / "shared" / "seeds"
ROW = re.compile(r"^\| (\d{3}) \| (.+?) \| `(.+?)` \| (.+) \|$")
LINK = re.compile(r"\[([\w.]+\.py)\]\(([\w.]+\.py)\)")

# where each seed's code examples start: every match opens one block, which runs to the next
# match (or the end); ``lead`` characters before a match still belong to its block (a comment
# or caption introducing it)
BLOCK_STARTS: dict[str, list[str]] = {
    "000": [r"agent\.addHook\(", r"^type \w+ ="],
    "002": [r"^\w+: func\("],
    "003": [
        r"agent\.Hooks\{",
        r"NewObservingHooks\(func",
        r"orchestrator := agent\.New\(",
        r"^type \w+ struct \{",
    ],
    "004": [r"^[\w-]+\.ts$", r"^type \w+Decision =", r"^Explicitly allow"],
}


def seed_text(number: str) -> str:
    assert SEEDS.is_dir(), (
        f"the seeds are missing: expected {SEEDS} (the shared folder beside the checkout)"
    )
    (path,) = SEEDS.glob(f"{number}_*.txt")
    return path.read_text(encoding="utf-8")


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
def test_each_quote_is_in_its_seed_and_its_recipes_exist(
    seed: str, what: str, quote: str, recipes: list[str]
) -> None:
    assert quote in seed_text(seed), f"not in seed {seed}: {quote!r}"
    for recipe in recipes:
        path = EXAMPLES / recipe
        assert path.is_file(), f"{recipe} is indexed but does not exist"
        assert f"Seed {seed}" in path.read_text(encoding="utf-8"), (
            f"{recipe} is indexed for seed {seed} but its docstring does not say so"
        )


def test_every_fenced_block_of_seed_001_is_indexed() -> None:
    text = seed_text("001")
    blocks = re.findall(r"```typescript\n(.*?)```", text, flags=re.DOTALL)
    assert len(blocks) == 14
    quotes = quotes_of("001")
    for block in blocks:
        assert any(q in block for q in quotes), f"seed 001 example not indexed:\n{block}"
    assert all(sum(q in b for b in blocks) == 1 for q in quotes)


@pytest.mark.parametrize("seed", sorted(BLOCK_STARTS))
def test_every_code_block_of_the_other_seeds_is_indexed(seed: str) -> None:
    text = seed_text(seed)
    starts = sorted(
        {
            m.start()
            for pattern in BLOCK_STARTS[seed]
            for m in re.finditer(pattern, text, flags=re.MULTILINE)
        }
    )
    assert len(starts) >= 5
    lead = 120
    found = [m.start() for q in quotes_of(seed) for m in re.finditer(re.escape(q), text)]
    for start, end in zip(starts, [*starts[1:], len(text)]):
        assert any(start - lead <= at < end for at in found), (
            f"seed {seed}: no index quote for the example at:\n{text[start : start + 200]}"
        )


def test_every_recipe_is_indexed() -> None:
    text = (EXAMPLES / "README.md").read_text(encoding="utf-8")
    linked = set(LINK.findall(text))
    for recipe in sorted(EXAMPLES.glob("*.py")):
        assert (recipe.name, recipe.name) in linked, f"{recipe.name} is not in examples/README.md"
