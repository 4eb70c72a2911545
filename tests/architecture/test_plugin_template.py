"""Every plugin distribution follows one template, pinned from its files (no plugin is
imported): the ``src/`` layout; no ``errors.py`` of its own; its README's sections; every
option its ``PluginSettings`` subclass declares in the README's options table, with its
environment variable; each ``agenthooks.plugins`` entry point naming a class with a
``from_env()`` constructor; every plugin's ``setup(self, bus: HookBus)`` typed; and no option
error caught and raised again as another type. ``plugins/README.md`` describes the template."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

PLUGINS = Path(__file__).resolve().parents[2] / "plugins"
DISTRIBUTIONS = sorted(p for p in PLUGINS.glob("agenthooks-*") if (p / "pyproject.toml").is_file())
SECTIONS = ["## Install", "## Example", "## Options", "## What it promises"]
"""The first sections of every README, in this order (any others follow)."""
TABLE = "| option | environment variable | default | meaning |"


def _package(distribution: Path) -> Path:
    [package] = [p for p in (distribution / "src").iterdir() if (p / "__init__.py").is_file()]
    return package


def _settings(package: Path) -> list[tuple[str, str, list[str]]]:
    """``(class, env_prefix, fields)`` of each ``PluginSettings`` subclass in the package."""
    found = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef):
                continue
            if not any(ast.unparse(base).endswith("PluginSettings") for base in node.bases):
                continue
            prefix = ""
            fields = []
            for item in node.body:
                if (
                    isinstance(item, ast.AnnAssign)
                    and isinstance(item.target, ast.Name)
                    and "ClassVar" not in ast.unparse(item.annotation)
                ):
                    fields.append(item.target.id)
                if isinstance(item, ast.Assign) and ast.unparse(item.targets[0]) == "model_config":
                    for keyword in getattr(item.value, "keywords", []):
                        if keyword.arg == "env_prefix":
                            prefix = ast.literal_eval(keyword.value)
            found.append((node.name, prefix, fields))
    return found


def _options_section(readme: str) -> str:
    start = readme.index("## Options")
    end = readme.find("\n## ", start + 1)
    return readme[start : end if end != -1 else None]


def test_every_distribution_is_checked() -> None:
    names = {p.name for p in DISTRIBUTIONS}
    assert {"agenthooks-guard", "agenthooks-retry", "agenthooks-langchain"} <= names


@pytest.mark.parametrize("distribution", DISTRIBUTIONS, ids=lambda p: p.name)
def test_the_layout_has_no_errors_module_of_its_own(distribution: Path) -> None:
    package = _package(distribution)
    assert package.name == distribution.name.replace("-", "_")
    assert not (package / "errors.py").exists(), (
        f"{package / 'errors.py'}: a plugin's errors live beside the code that raises them"
    )


@pytest.mark.parametrize("distribution", DISTRIBUTIONS, ids=lambda p: p.name)
def test_the_readme_has_the_template_sections(distribution: Path) -> None:
    readme = (distribution / "README.md").read_text(encoding="utf-8")
    assert readme.startswith(f"# {distribution.name}\n\n"), "the title is the distribution"
    sections = re.findall(r"(?m)^## .*$", readme)
    assert sections[: len(SECTIONS)] == SECTIONS, sections


CONFIGURED = [d for d in DISTRIBUTIONS if _settings(_package(d))]
"""The distributions that declare options (a bridge may take all of its in code)."""


def test_the_plugins_with_options_are_found() -> None:
    assert len(CONFIGURED) >= 8, [d.name for d in CONFIGURED]


@pytest.mark.parametrize("distribution", CONFIGURED, ids=lambda p: p.name)
def test_every_declared_option_is_in_the_readme_table(distribution: Path) -> None:
    declared = _settings(_package(distribution))
    section = _options_section((distribution / "README.md").read_text(encoding="utf-8"))
    assert TABLE in section, f"the options table's header is {TABLE}"
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    missing = []
    for cls, prefix, fields in declared:
        for field in fields:
            row = next((r for r in rows if f"`{field}`" in r.split("|")[1]), None)
            variable = prefix + field.upper()
            if row is None or (variable not in row and "code only" not in row):
                missing.append(f"{cls}.{field} ({variable})")
    assert not missing, f"options not in the README's table: {', '.join(missing)}"


@pytest.mark.parametrize("distribution", DISTRIBUTIONS, ids=lambda p: p.name)
def test_an_entry_point_names_a_class_with_from_env(distribution: Path) -> None:
    project = tomllib.loads((distribution / "pyproject.toml").read_text(encoding="utf-8"))
    points = project["project"].get("entry-points", {}).get("agenthooks.plugins", {})
    package = _package(distribution)
    for name, value in points.items():
        module, _, attribute = value.partition(":")
        assert module.split(".")[0] == package.name, f"{name} = {value}"
        classes = {
            node.name: node
            for path in package.rglob("*.py")
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.ClassDef)
        }
        assert attribute in classes, f"{name} = {value}: not a class of the package"
        methods = {n.name for n in classes[attribute].body if isinstance(n, ast.FunctionDef)}
        assert "from_env" in methods, f"{name} = {value}: {attribute} has no from_env()"


def _methods(package: Path, name: str) -> list[tuple[str, ast.FunctionDef]]:
    """``(class, method)`` for each method called ``name`` of a class in the package."""
    found = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                found += [
                    (node.name, item)
                    for item in node.body
                    if isinstance(item, ast.FunctionDef) and item.name == name
                ]
    return found


SETUPS = [
    (distribution, cls, method)
    for distribution in DISTRIBUTIONS
    for cls, method in _methods(_package(distribution), "setup")
    if [a.arg for a in method.args.args[1:2]] == ["bus"]
]
"""Each plugin class's ``setup(self, bus)`` (a test harness's ``setup`` takes other things)."""


def test_the_setup_methods_are_found() -> None:
    assert {cls for _, cls, _ in SETUPS} >= {
        "Guard",
        "Limits",
        "CachePlugin",
        "StructlogPlugin",
        "OtelPlugin",
        "RedisEventPublisher",
        "AgentHooksSpec",
    }


@pytest.mark.parametrize(
    ("distribution", "cls", "method"),
    SETUPS,
    ids=[f"{d.name}:{c}" for d, c, _ in SETUPS],
)
def test_setup_takes_a_typed_hookbus(distribution: Path, cls: str, method: ast.FunctionDef) -> None:
    bus = method.args.args[1]
    assert bus.annotation is not None and ast.unparse(bus.annotation) == "HookBus", (
        f"{distribution.name}: {cls}.setup(bus) must be typed setup(self, bus: HookBus)"
    )


@pytest.mark.parametrize("distribution", CONFIGURED, ids=lambda p: p.name)
def test_an_option_error_is_raised_as_the_settings_raise_it(distribution: Path) -> None:
    # a PluginOptionError caught and raised again as another type loses what the shared
    # helper promises (the plugin, the source, the closest key): no plugin re-wraps it
    rewrapped = [
        f"{path.relative_to(PLUGINS)}:{node.lineno}"
        for path in sorted(_package(distribution).rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ExceptHandler)
        and node.type is not None
        and "PluginOptionError" in ast.unparse(node.type)
        and any(isinstance(inner, ast.Raise) for inner in ast.walk(node))
    ]
    assert rewrapped == []
