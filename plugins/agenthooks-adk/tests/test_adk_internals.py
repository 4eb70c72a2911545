"""Every ADK internal the bridge relies on (the README's "Framework internals"), looked up on
the installed ADK the way the bridge uses it: a release that moves, renames or reshapes one
fails the test named after it, and the README lists exactly the internals tested here."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from agenthooks_adk.translate import function_spec
from google.adk.tools.function_tool import FunctionTool
from google.genai import types

README = Path(__file__).resolve().parents[1] / "README.md"


def get_declaration() -> None:
    def lookup(city: str, days: int) -> str:
        """The weather in a city."""
        return city

    declaration = FunctionTool(lookup)._get_declaration()
    assert isinstance(declaration, types.FunctionDeclaration)
    assert declaration.name == "lookup"
    assert declaration.description == "The weather in a city."
    # read as the bridge reads it, whichever of ADK's two schema fields carries the schema
    parameters = function_spec(declaration)["function"]["parameters"]
    assert parameters["required"] == ["city", "days"]
    assert parameters["properties"]["days"]["type"] == "integer"


INTERNALS: dict[str, Callable[[], None]] = {
    "BaseTool._get_declaration()": get_declaration,
}


@pytest.mark.parametrize("internal", list(INTERNALS))
def test_the_internal_is_where_the_bridge_uses_it(internal: str) -> None:
    INTERNALS[internal]()


def test_the_readme_lists_exactly_the_internals_tested_here() -> None:
    section = README.read_text(encoding="utf-8").split("\n## Framework internals\n", 1)[1]
    section = section.split("\n## ", 1)[0]
    listed = re.findall(r"^\| `([^`]+)` \|", section, flags=re.MULTILINE)
    assert listed == list(INTERNALS)
