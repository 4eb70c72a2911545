"""The import graph of ``agenthooks``, pinned: no cycles (a package counts as the import of
its ``__init__``), no private names imported across modules, imports inside functions only
of the modules that need an optional extra (the ``mcp`` SDK, psycopg), and the runtime by
concern: the typed-answer check and the matcher check in modules of their own, a stored
session read and claimed by ``Session`` itself, and one meaning per top-level name."""

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


RUNTIME = "agenthooks.runtime."
LIFECYCLE = {
    RUNTIME + name
    for name in ("agent", "session", "chat_run", "turn_loop", "tool_call", "model_call")
}
"""The modules a run's lifecycle passes through."""


def test_the_typed_answer_check_is_a_module_the_turns_use() -> None:
    assert RUNTIME + "output" in IMPORTS[RUNTIME + "turn_loop"].loaded
    assert IMPORTS[RUNTIME + "output"].loaded.isdisjoint(LIFECYCLE)
    assert "pydantic" not in _third_party(RUNTIME + "turn_loop")


def test_matcher_reachability_is_a_module_of_its_own() -> None:
    assert RUNTIME + "reach" in IMPORTS[RUNTIME + "chat_run"].loaded
    assert IMPORTS[RUNTIME + "reach"].loaded.isdisjoint(LIFECYCLE)


def test_a_stored_session_is_read_and_claimed_by_session_itself() -> None:
    # no module of free functions over a Session's private state
    assert RUNTIME + "durable.stored_session" not in MODULES
    assert not any(
        "Session" in ast.unparse(node)
        for module, path in MODULES.items()
        if module.startswith(RUNTIME + "durable")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom)
        and node.module is not None
        and node.module.endswith("session")
    )


def _third_party(module: str) -> set[str]:
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    return {
        node.module.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and not node.level and node.module
    } | {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    }


SHARED_NAMES = {
    "endpoint": "the innermost call of a stack: one per call kind (model_call, tool_call)",
}
"""Top-level names more than one runtime module defines, each with what the copies mean."""


def test_a_runtime_name_means_one_thing() -> None:
    defined: dict[str, list[str]] = {}
    for module, path in MODULES.items():
        if not module.startswith(RUNTIME):
            continue
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
            if isinstance(node, kinds) and not node.name.startswith("_"):
                defined.setdefault(node.name, []).append(module)
    shared = {name: modules for name, modules in defined.items() if len(modules) > 1}
    assert set(shared) <= set(SHARED_NAMES), shared
    assert defined["names_in_reach"] == [RUNTIME + "reach"]
    # a run streamed to its consumer; a provider's streamed call has a name of its own
    assert defined["stream"] == [RUNTIME + "chat_run"]
    assert defined["stream_provider"] == [RUNTIME + "model_call"]
    # the agents a paused run may be in, by name (not "reachable": matchers reach names)
    assert defined["agents_by_name"] == [RUNTIME + "durable.resume"]
    assert "reachable" not in defined
