"""The core's dependencies, pinned to what the core imports: every distribution the core
requires is imported by some module of ``agenthooks`` (a dependency nothing imports is weight
every user installs for nothing), and a module that a plugin distribution needs (``tenacity``
for the retry plugin) is that distribution's dependency, not the core's."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import agenthooks

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

ROOT = Path(agenthooks.__file__).resolve().parent
PROJECT = ROOT.parent / "pyproject.toml"


def _distribution(requirement: str) -> str:
    """The distribution's name in ``requirement`` (``pydantic-settings>=2.7`` →
    ``pydantic-settings``)."""
    match = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement)
    assert match is not None, requirement
    return match.group(0).lower()


def _module(distribution: str) -> str:
    """The top-level module a distribution installs: its name with ``_`` for ``-``."""
    return distribution.replace("-", "_")


def imported_modules(root: Path) -> set[str]:
    """The top-level modules any module under ``root`` imports (also inside functions)."""
    found: set[str] = set()
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    return found


def required() -> list[str]:
    project = tomllib.loads(PROJECT.read_text(encoding="utf-8"))
    return [_distribution(r) for r in project["project"]["dependencies"]]


def test_every_core_dependency_is_imported_by_the_core() -> None:
    imported = imported_modules(ROOT)
    unused = [d for d in required() if _module(d) not in imported]
    assert unused == [], f"core dependencies no module of agenthooks imports: {unused}"


def test_tenacity_is_the_retry_plugins_dependency_not_the_cores() -> None:
    assert "tenacity" not in required()
    assert "tenacity" not in imported_modules(ROOT)
    retry = ROOT.parent / "plugins" / "agenthooks-retry"
    plugin = tomllib.loads((retry / "pyproject.toml").read_text(encoding="utf-8"))
    assert "tenacity" in [_distribution(r) for r in plugin["project"]["dependencies"]]
    assert "tenacity" in imported_modules(retry / "src")


def test_the_check_reads_imports_of_every_form(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(
        "import blinker.base\nfrom httpx import AsyncClient\nfrom . import sibling\n"
        "def f():\n    import psycopg\n",
        encoding="utf-8",
    )
    assert imported_modules(tmp_path) == {"blinker", "httpx", "psycopg"}
    assert _distribution("pydantic-settings>=2.7") == "pydantic-settings"
    assert _module("pydantic-settings") == "pydantic_settings"
