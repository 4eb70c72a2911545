"""The package and every plugin distribution reach into no pydantic internals: a model's fields
are set and read through the model (attributes, ``model_fields``, ``model_copy``,
``model_dump``), a model is validated through ``model_validate`` or its constructor, its
hidden state is a declared private attribute, and nothing names pydantic's own
``__pydantic_*__`` attributes (its validator, its slots). A static check cannot tell a model
from another object, so no module reads or writes any object's ``__dict__`` (a class's own
namespace is asked through what the class declares). Each finding names the file and the
line."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import agenthooks

ROOT = Path(agenthooks.__file__).resolve().parent
PLUGINS = ROOT.parent / "plugins"
SOURCES = sorted(PLUGINS.glob("agenthooks-*/src"))
"""Each plugin distribution's package sources: the same rule holds there."""
PYDANTIC = re.compile(r"__pydantic_\w+__")
"""pydantic's own attributes (``__pydantic_validator__``, the slots ``__pydantic_fields_set__``,
``__pydantic_extra__``, ``__pydantic_private__``...): no module names one."""
WRITERS = ("update", "setdefault", "pop", "popitem", "clear", "__setitem__", "__set__")
"""Methods that change the mapping (or descriptor) they are called on."""


def _is_dict(node: ast.AST) -> bool:
    """``<something>.__dict__``."""
    return isinstance(node, ast.Attribute) and node.attr == "__dict__"


def findings(source: str, filename: str) -> list[str]:
    """Each use of pydantic internals in ``source``, as ``filename:line: what``."""
    found: list[str] = []

    def add(node: ast.AST, what: str) -> None:
        found.append(f"{filename}:{getattr(node, 'lineno', 0)}: {what}")

    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            for target in targets:
                if isinstance(target, ast.Subscript) and _is_dict(target.value):
                    add(node, "writes into a __dict__")
                if _is_dict(target):
                    add(node, "replaces a __dict__")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            func = node.func
            if func.attr in WRITERS and (
                _is_dict(func.value)
                or (isinstance(func.value, ast.Subscript) and _is_dict(func.value.value))
            ):
                add(node, f"changes a __dict__ (.{func.attr})")
            if (
                func.attr == "__setattr__"
                and len(node.args) >= 2
                and isinstance(node.args[1], ast.Constant)
                and str(node.args[1].value).startswith("__")
            ):
                add(node, f"sets {node.args[1].value} with __setattr__")
        elif isinstance(node, ast.Attribute) and PYDANTIC.fullmatch(node.attr):
            add(node, f"uses {node.attr}")
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and PYDANTIC.fullmatch(node.value)
        ):
            add(node, f"names {node.value}")
        elif (
            isinstance(node, ast.Subscript)
            and _is_dict(node.value)
            and isinstance(node.value, ast.Attribute)
            and isinstance(node.value.value, ast.Name)
            and node.value.value.id == "BaseModel"
        ):
            add(node, "takes a slot of BaseModel.__dict__")
        if isinstance(node, ast.Attribute) and _is_dict(node) and isinstance(node.ctx, ast.Load):
            add(node, "reads a __dict__")
    return sorted(found, key=lambda f: int(f.split(":")[1]))


def test_the_package_uses_no_pydantic_internals() -> None:
    found = [
        finding
        for path in sorted(ROOT.rglob("*.py"))
        for finding in findings(
            path.read_text(encoding="utf-8"), str(path.relative_to(ROOT.parent))
        )
    ]
    assert found == [], "pydantic internals used:\n" + "\n".join(found)


def test_every_plugin_distribution_is_checked() -> None:
    names = {source.parent.name for source in SOURCES}
    assert {"agenthooks-agent-hooks-spec", "agenthooks-guard", "agenthooks-langchain"} <= names
    assert len(SOURCES) == len(list(PLUGINS.glob("agenthooks-*/pyproject.toml")))


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.parent.name)
def test_no_plugin_uses_pydantic_internals(source: Path) -> None:
    found = [
        finding
        for path in sorted(source.rglob("*.py"))
        for finding in findings(path.read_text(encoding="utf-8"), str(path.relative_to(PLUGINS)))
    ]
    assert found == [], "pydantic internals used:\n" + "\n".join(found)


def test_the_trusted_model_builder_is_gone() -> None:
    assert not (ROOT / "_construct.py").exists()


def test_each_kind_of_reach_into_pydantic_is_found() -> None:
    source = "\n".join(
        (
            "ctx.__dict__['call'] = call",
            "ctx.__dict__.update(values)",
            "object.__setattr__(record, '__pydantic_fields_set__', fields)",
            "obj.__pydantic_extra__ = None",
            "set_dict = BaseModel.__dict__['__dict__'].__set__",
            "model.__dict__ = data",
            "value = ctx.__dict__.get('error')",
            "model = Args.__pydantic_validator__.validate_python(arguments)",
            "return dict(model.__dict__)",
            "schema = getattr(Args, '__pydantic_core_schema__')",
            "if 'spec' in cls.__dict__: pass",
            "ctx.call = call",  # through the model: fine
            "args = Args.model_validate(arguments)",  # public: fine
            "values = {name: getattr(args, name) for name in Args.model_fields}",  # fine
            "data = args.model_dump()",  # fine
            "__all__ = ['__version__']",  # another dunder: fine
        )
    )
    assert findings(source, "m.py") == [
        "m.py:1: writes into a __dict__",
        "m.py:1: reads a __dict__",
        "m.py:2: changes a __dict__ (.update)",
        "m.py:2: reads a __dict__",
        "m.py:3: sets __pydantic_fields_set__ with __setattr__",
        "m.py:3: names __pydantic_fields_set__",
        "m.py:4: uses __pydantic_extra__",
        "m.py:5: takes a slot of BaseModel.__dict__",
        "m.py:5: reads a __dict__",
        "m.py:6: replaces a __dict__",
        "m.py:7: reads a __dict__",
        "m.py:8: uses __pydantic_validator__",
        "m.py:9: reads a __dict__",
        "m.py:10: names __pydantic_core_schema__",
        "m.py:11: reads a __dict__",
    ]
