"""Every skip goes through one rule, ``agenthooks.testing.require``: a test skips only when an
external program or service it needs is missing, and under ``CI=true`` (where CI provides them
all) it fails instead. So no test of the core or of a plugin skips or expects to fail by other
means (``pytest.importorskip``, ``pytest.skip``, the ``skip``/``skipif``/``xfail`` marks), and
none catches everything with a bare ``except:``."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FORBIDDEN = {"importorskip", "skip", "skipif", "xfail"}


def files_of_tests() -> list[Path]:
    roots = [REPO / "tests", *sorted((REPO / "plugins").glob("*/tests"))]
    return sorted(p for root in roots for p in root.rglob("*.py"))


def other_skips(path: Path) -> list[tuple[int, str]]:
    """Each way around ``require`` in ``path``, as (line, what)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Attribute) and node.attr in FORBIDDEN:
            base = node.value
            # pytest.skip(...), pytest.importorskip(...), pytest.mark.skipif(...), mark.xfail
            if (isinstance(base, ast.Name) and base.id in ("pytest", "mark")) or (
                isinstance(base, ast.Attribute) and base.attr == "mark"
            ):
                found.append((node.lineno, f"{ast.unparse(node)}"))
        elif isinstance(node, ast.ExceptHandler) and node.type is None:
            found.append((node.lineno, "a bare except:"))
    return sorted(found)


def test_no_test_skips_but_through_require() -> None:
    found = [
        f"{path.relative_to(REPO)}:{line} {what}"
        for path in files_of_tests()
        for line, what in other_skips(path)
        if path != Path(__file__)
    ]
    assert found == [], "use agenthooks.testing.require(problem) instead:\n" + "\n".join(found)


def test_the_check_sees_each_way(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import pytest\n"
        "redis = pytest.importorskip('redis')\n"
        "@pytest.mark.skipif(True, reason='x')\n"
        "def test_a():\n"
        "    pytest.skip('no')\n"
        "@pytest.mark.xfail\n"
        "def test_b():\n"
        "    try:\n"
        "        pass\n"
        "    except:\n"
        "        pass\n"
        "from agenthooks.testing import require\n"
        "require(None)\n",
        encoding="utf-8",
    )
    assert other_skips(sample) == [
        (2, "pytest.importorskip"),
        (3, "pytest.mark.skipif"),
        (5, "pytest.skip"),
        (6, "pytest.mark.xfail"),
        (10, "a bare except:"),
    ]
