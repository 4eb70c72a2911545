"""Every recipe in examples/ runs (against the ScriptedProvider) and prints exactly what its
docstring says it prints."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
RECIPES = sorted(EXAMPLES.glob("*.py"))
# durations differ from run to run; every other character of the output must match
TIMES = re.compile(r"\d+(\.\d+)? ms\b")


def documented_output(path: Path) -> str:
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")), clean=False)
    assert docstring is not None, f"{path.name} has no docstring"
    assert "\nOutput:\n" in docstring, f"{path.name}: its docstring has no 'Output:' section"
    block = docstring.split("\nOutput:\n", 1)[1]
    lines = block.rstrip().split("\n")
    assert all(line.startswith("    ") for line in lines if line), path.name
    return "\n".join(line[4:] for line in lines) + "\n"


def normalized(text: str) -> str:
    return TIMES.sub("N ms", text)


def test_there_are_recipes() -> None:
    assert len(RECIPES) >= 40


@pytest.mark.subprocess
@pytest.mark.parametrize("recipe", RECIPES, ids=[p.stem for p in RECIPES])
def test_recipe_prints_its_documented_output(recipe: Path, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8", "NO_COLOR": "1"}
    result = subprocess.run(
        [sys.executable, str(recipe)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert normalized(result.stdout) == normalized(documented_output(recipe))


@pytest.mark.parametrize("recipe", RECIPES, ids=[p.stem for p in RECIPES])
def test_recipe_is_a_script_with_a_main(recipe: Path) -> None:
    tree = ast.parse(recipe.read_text(encoding="utf-8"))
    names = {node.name for node in tree.body if isinstance(node, ast.AsyncFunctionDef)}
    assert "main" in names, f"{recipe.name} has no async def main()"
    assert 'if __name__ == "__main__":' in recipe.read_text(encoding="utf-8")
