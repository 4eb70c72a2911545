"""Building trusted internal models without validation, fast.

pydantic's ``model_construct`` re-inspects default factories on every call (tens of µs for
some models); contexts and messages built by the runtime are trusted, so they are built here
from per-class default tables computed once.
"""

from __future__ import annotations

from functools import cache
from typing import Any, TypeVar

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

M = TypeVar("M", bound=BaseModel)

_set = object.__setattr__


@cache
def _template(cls: type[BaseModel]) -> tuple[dict[str, Any], tuple[tuple[str, Any], ...]]:
    """Every field with its default in declaration order (``None`` where a factory makes the
    default), and the (name, factory) pairs."""
    template: dict[str, Any] = {}
    factories: list[tuple[str, Any]] = []
    for name, field in cls.model_fields.items():
        if field.default_factory is not None:
            template[name] = None
            factories.append((name, field.default_factory))
        else:
            template[name] = None if field.default is PydanticUndefined else field.default
    return template, tuple(factories)


def build(cls: type[M], /, **values: Any) -> M:
    """An instance of ``cls`` from trusted ``values``; absent fields take their defaults."""
    template, factories = _template(cls)
    data = template.copy()
    data.update(values)
    for name, factory in factories:
        if name not in values:
            data[name] = factory()
    obj = cls.__new__(cls)
    _set(obj, "__dict__", data)
    _set(obj, "__pydantic_fields_set__", set(values))
    _set(obj, "__pydantic_extra__", None)
    _set(obj, "__pydantic_private__", None)
    return obj


def context(cls: type[M], base: dict[str, Any], /, **values: Any) -> M:
    """An event context of ``cls``: the common fields from ``base``, then ``values``."""
    template, factories = _template(cls)
    data = template.copy()
    data.update(base)
    data.update(values)
    for name, factory in factories:
        if name not in values and name not in base:
            data[name] = factory()
    obj = cls.__new__(cls)
    _set(obj, "__dict__", data)
    _set(obj, "__pydantic_fields_set__", set(values))
    _set(obj, "__pydantic_extra__", None)
    _set(obj, "__pydantic_private__", None)
    return obj


__all__ = ["build", "context"]
