"""What a plugin distribution may import from the core, pinned: the names in
``agenthooks.__all__`` and ``agenthooks.plugins.__all__``, and the public submodules. Anything
else is the core's inside, free to change under a plugin that reached for it."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path
from types import ModuleType

import pytest

import agenthooks
import agenthooks.plugins

PLUGINS = Path(__file__).resolve().parents[2] / "plugins"
PUBLIC_SUBMODULES = (
    "messages",
    "events",
    "errors",
    "providers",
    "mcp",
    "stores",
    "record",
    "testing",
    "bridges",
    "plugins",
    "server",
)
"""The modules a plugin may import from, besides ``agenthooks`` itself."""


def _sources(distribution: Path) -> list[Path]:
    return sorted((distribution / "src").rglob("*.py"))


DISTRIBUTIONS = sorted(p for p in PLUGINS.glob("agenthooks-*") if (p / "src").is_dir())


def _public_names(module: str) -> set[str] | None:
    """The names ``module`` exports (its ``__all__``), or ``None`` when it declares none and
    any name without a leading underscore counts."""
    try:
        loaded: ModuleType = importlib.import_module(module)
    except ImportError:  # an optional extra that is not installed: judge by the name alone
        return None
    exported = getattr(loaded, "__all__", None)
    return None if exported is None else set(exported)


def _offences(tree: ast.AST) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] != "agenthooks" or len(parts) == 1:
                    continue
                if len(parts) > 2 or parts[1] not in PUBLIC_SUBMODULES:
                    found.append((node.lineno, f"import {alias.name}"))
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            parts = node.module.split(".")
            if parts[0] != "agenthooks":
                continue
            names = [alias.name for alias in node.names]
            if len(parts) == 1:
                allowed = set(agenthooks.__all__) | set(PUBLIC_SUBMODULES)
                bad = [name for name in names if name not in allowed]
            elif len(parts) == 2 and parts[1] in PUBLIC_SUBMODULES:
                exported = _public_names(node.module)
                bad = [
                    name
                    for name in names
                    if name.startswith("_") or (exported is not None and name not in exported)
                ]
            else:
                bad = names
            if bad:
                found.append((node.lineno, f"from {node.module} import {', '.join(bad)}"))
    return found


def test_every_plugin_distribution_is_checked() -> None:
    names = {p.name for p in DISTRIBUTIONS}
    assert {"agenthooks-guard", "agenthooks-redis", "agenthooks-retry"} <= names


@pytest.mark.parametrize("distribution", DISTRIBUTIONS, ids=lambda p: p.name)
def test_a_plugin_imports_only_public_core_names(distribution: Path) -> None:
    offences = [
        f"{path.relative_to(PLUGINS)}:{line}: {what}"
        for path in _sources(distribution)
        for line, what in _offences(ast.parse(path.read_text(encoding="utf-8"), str(path)))
    ]
    assert not offences, "imports of the core's non-public names:\n" + "\n".join(offences)


@pytest.mark.parametrize(
    ("source", "offence"),
    [
        ("from agenthooks.loop_clients import LoopClients", "from agenthooks.loop_clients"),
        ("from agenthooks.bus import compile_matcher", "from agenthooks.bus"),
        ("from agenthooks import Registration", "import Registration"),
        ("from agenthooks.plugins import installing", "import installing"),
        ("from agenthooks.events.catalog import CATALOG", "from agenthooks.events.catalog"),
        ("import agenthooks.runtime.agent", "import agenthooks.runtime.agent"),
        ("def f():\n    from agenthooks.tools import serialize_result", "agenthooks.tools"),
    ],
)
def test_the_check_catches_a_non_public_import(source: str, offence: str) -> None:
    found = _offences(ast.parse(source))
    assert len(found) == 1 and offence in found[0][1], found


def test_the_check_allows_the_public_surface() -> None:
    source = (
        "import agenthooks\n"
        "import agenthooks.messages\n"
        "from agenthooks import Agent, HookBus, events\n"
        "from agenthooks.plugins import PluginSettings, LoopClients\n"
        "from agenthooks.errors import ConfigError\n"
        "from agenthooks.testing import assert_option_error\n"
    )
    assert _offences(ast.parse(source)) == []
    assert agenthooks.plugins.PluginSettings is not None
