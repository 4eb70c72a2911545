"""No module of the package reaches into another module's private state: an attribute with a
leading underscore is used on ``self`` / ``cls``, or on another object only in the one module
that defines it (a ``HookBus`` on its own view, a ``Run`` on its parent). What other modules
need of an ``Agent``, a ``Session`` or a ``Run`` is a public attribute or method of its own.
Each finding names the file, the line and the expression."""

from __future__ import annotations

import ast
from pathlib import Path

import agenthooks

ROOT = Path(agenthooks.__file__).resolve().parent
NAMEDTUPLE = frozenset({"_replace", "_asdict", "_fields", "_make"})
"""A named tuple's public methods, underscored so they never clash with a field."""


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _on_self(node: ast.Attribute) -> bool:
    value = node.value
    if isinstance(value, ast.Name):
        return value.id in ("self", "cls")
    # super()._name: the class's own base, extended by the class
    return isinstance(value, ast.Call) and ast.unparse(value.func) == "super"


def defined(source: str) -> set[str]:
    """The private names a module defines: set on ``self`` / ``cls``, or a class's methods."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.ctx, ast.Store)
            and _on_self(node)
            and _private(node.attr)
        ):
            names.add(node.attr)
        elif isinstance(node, ast.ClassDef):
            names.update(
                item.name
                for item in node.body
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and _private(item.name)
            )
    return names


def findings(sources: dict[str, str]) -> list[str]:
    """Each use, in ``sources`` (file name -> text), of a private attribute on another object
    than ``self`` / ``cls`` outside the one module that defines it."""
    owners: dict[str, set[str]] = {}
    for filename, source in sources.items():
        for name in defined(source):
            owners.setdefault(name, set()).add(filename)
    found = []
    for filename, source in sources.items():
        for node in ast.walk(ast.parse(source)):
            if (
                isinstance(node, ast.Attribute)
                and _private(node.attr)
                and not _on_self(node)
                and node.attr not in NAMEDTUPLE
                and owners.get(node.attr) != {filename}
            ):
                found.append(f"{filename}:{node.lineno}: {ast.unparse(node)}")
    return sorted(found)


def test_no_module_reaches_another_modules_private_state() -> None:
    sources = {
        str(path.relative_to(ROOT.parent)): path.read_text(encoding="utf-8")
        for path in sorted(ROOT.rglob("*.py"))
    }
    assert findings(sources) == []


def test_each_kind_of_reach_is_found() -> None:
    agent = "\n".join(
        (
            "class Agent:",
            "    def __init__(self, handoffs):",
            "        self._history = []",
            "        self._paused = None",
            "        self._ready = any(h._ready for h in handoffs)",  # its own kind: fine
            "    def _gated(self, gated):",
            "        return gated",
        )
    )
    session = "\n".join(
        (
            "class Session:",
            "    def __init__(self, agent):",
            "        self._history = []",
            "        self.agent = agent",
            "    def chat(self):",
            "        self._history.append(1)",  # its own: fine
            "        return self.agent._gated(True), self.agent._history",
        )
    )
    pausing = "\n".join(
        (
            "def chat_in_memory(owner, parts):",
            "    start = len(owner._history)",
            "    owner._paused = None",
            "    return parts._replace(start=start)",  # a named tuple's method: fine
        )
    )
    assert findings({"agent.py": agent, "session.py": session, "pausing.py": pausing}) == [
        "pausing.py:2: owner._history",
        "pausing.py:3: owner._paused",
        "session.py:7: self.agent._gated",
        "session.py:7: self.agent._history",
    ]
