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
def _fields(cls: type[BaseModel]) -> tuple[tuple[str, Any, Any], ...]:
    """(name, default factory or None, default) per field, in declaration order."""
    return tuple(
        (name, field.default_factory, None if field.default is PydanticUndefined else field.default)
        for name, field in cls.model_fields.items()
    )


def build(cls: type[M], /, **values: Any) -> M:
    """An instance of ``cls`` from trusted ``values``; absent fields take their defaults."""
    data = {
        name: values[name] if name in values else factory() if factory is not None else default
        for name, factory, default in _fields(cls)
    }
    obj = cls.__new__(cls)
    _set(obj, "__dict__", data)
    _set(obj, "__pydantic_fields_set__", set(values))
    _set(obj, "__pydantic_extra__", None)
    _set(obj, "__pydantic_private__", None)
    return obj


__all__ = ["build"]
