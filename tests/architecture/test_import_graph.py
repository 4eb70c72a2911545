"""The import graph of ``agenthooks``, pinned: no cycles (a package counts as the import of
its ``__init__``), no private names imported across modules, and imports inside functions
only of the modules that need an optional extra (the ``mcp`` SDK, psycopg)."""

from __future__ import annotations

import ast
from pathlib import Path

import agenthooks

ROOT = Path(agenthooks.__file__).resolve().parent
OPTIONAL = ("agenthooks.mcp", "agenthooks.server", "agenthooks.stores.postgres")
"""What may be imported inside a function: it needs an extra that may not be installed."""


def _name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def _target(module: str, node: ast.ImportFrom) -> str:
    if not node.level:  # an absolute import names its module as it is
        return node.module or ""
    base = module.split(".")
    if MODULES[module].name != "__init__.py":
        base = base[:-1]
    if node.level:
        base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def _type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


class _Imports(ast.NodeVisitor):
    """The agenthooks modules one module imports when it is imported, the imports inside
    its functions, and the private names it imports."""

    def __init__(self, module: str) -> None:
        self.module = module
        self.loaded: set[str] = set()
        self.inner: list[tuple[str, int]] = []
        self.private: list[tuple[str, str, int]] = []
        self.depth = 0

    def visit_If(self, node: ast.If) -> None:
        if not _type_checking(node):
            self.generic_visit(node)

    def _function(self, node: ast.AST) -> None:
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = _function

    def _add(self, target: str, line: int) -> None:
        if not target.startswith("agenthooks"):
            return
        if self.depth:
            self.inner.append((target, line))
            return
        parts = target.split(".")
        for end in range(1, len(parts) + 1):  # importing a.b.c runs a and a.b first
            name = ".".join(parts[:end])
            if name in MODULES and name != self.module and not self.module.startswith(name + "."):
                self.loaded.add(name)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._add(alias.name, node.lineno)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        target = _target(self.module, node)
        self._add(target, node.lineno)
        for alias in node.names:
            if f"{target}.{alias.name}" in MODULES:
                self._add(f"{target}.{alias.name}", node.lineno)
            elif alias.name.startswith("_") and not alias.name.startswith("__"):
                self.private.append((target, alias.name, node.lineno))


IMPORTS = {}
for _module, _path in MODULES.items():
    IMPORTS[_module] = _Imports(_module)
    IMPORTS[_module].visit(ast.parse(_path.read_text(encoding="utf-8")))


def _cycles() -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for other in sorted(IMPORTS[module].loaded):
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            component = []
            while True:
                other = stack.pop()
                component.append(other)
                if other == module:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in MODULES:
        if module not in index:
            visit(module)
    return found


def test_the_graph_is_read_from_every_module() -> None:
    assert "agenthooks.runtime.tool_call" in MODULES
    assert "agenthooks.bus.dispatch" in IMPORTS["agenthooks.bus.hookbus"].loaded
    # importing a module of a package runs the package first
    assert "agenthooks.runtime" in IMPORTS["agenthooks.demo.app"].loaded


def test_the_import_graph_has_no_cycles() -> None:
    assert _cycles() == []


def test_imports_inside_functions_are_of_optional_extras_only() -> None:
    inner = [
        f"{module}:{line} imports {target}"
        for module, found in IMPORTS.items()
        for target, line in found.inner
        if not target.startswith(OPTIONAL)
    ]
    assert inner == []


def test_no_private_name_is_imported_from_another_module() -> None:
    private = [
        f"{module}:{line} imports {name} from {target}"
        for module, found in IMPORTS.items()
        for target, name, line in found.private
    ]
    assert private == []
