"""The core's tests stand alone: none imports a plugin distribution (``agenthooks_*``), so
``pytest tests`` collects and runs with the core installed and no plugin. A plugin's behaviour
is tested in its own distribution's ``tests/``."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def plugin_imports(path: Path) -> list[tuple[int, str]]:
    """Each import of a plugin module in ``path`` as (line, module), in line order; also the
    string given to ``pytest.importorskip`` or ``importlib.import_module``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        names: list[str] = []
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("importorskip", "import_module")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            names = [node.args[0].value]
        for name in names:
            if name.split(".")[0].startswith("agenthooks_"):
                found.append((line, name))
    return sorted(found)


def test_no_core_test_imports_a_plugin() -> None:
    found = [
        f"{path.relative_to(TESTS.parent)}:{line} {name}"
        for path in sorted(TESTS.rglob("*.py"))
        for line, name in plugin_imports(path)
    ]
    assert found == [], "core tests that import a plugin (move them into its tests/):\n" + (
        "\n".join(found)
    )


def test_the_check_sees_each_form_of_import(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import agenthooks_guard\n"
        "from agenthooks_retry.policy import is_transient\n"
        "def f():\n"
        "    from agenthooks_otel import OtelPlugin\n"
        "import pytest\n"
        "redis = pytest.importorskip('agenthooks_redis')\n"
        "from agenthooks.events import CATALOG\n",
        encoding="utf-8",
    )
    assert plugin_imports(sample) == [
        (1, "agenthooks_guard"),
        (2, "agenthooks_retry.policy"),
        (4, "agenthooks_otel"),
        (6, "agenthooks_redis"),
    ]
