"""Building trusted internal models without validation, fast.

pydantic's ``model_construct`` re-inspects default factories on every call (tens of µs for
some models); the models the runtime makes are trusted, so they are built with these
helpers from per-class default tables computed once (``runtime/trusted.py`` holds the
constructors of the models every run makes). Nothing of the project is imported here.
"""

from __future__ import annotations

from functools import cache
from typing import Any, TypeVar

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

M = TypeVar("M", bound=BaseModel)

new = _new = object.__new__
# the slot setters of every model, called directly: a quarter cheaper than object.__setattr__
set_dict = _set_dict = BaseModel.__dict__["__dict__"].__set__
set_fields = _set_fields = BaseModel.__dict__["__pydantic_fields_set__"].__set__
set_extra = _set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
set_private = _set_private = BaseModel.__dict__["__pydantic_private__"].__set__


def instance(cls: type[M], data: dict[str, Any], fields: set[str]) -> M:
    """A model of ``cls`` holding ``data`` as is: its four slots set, nothing validated."""
    obj = _new(cls)
    _set_dict(obj, data)
    _set_fields(obj, fields)
    _set_extra(obj, None)
    _set_private(obj, None)
    return obj


@cache
def template_of(cls: type[BaseModel]) -> tuple[dict[str, Any], tuple[tuple[str, Any], ...]]:
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
    template, factories = template_of(cls)
    data = template.copy()
    data.update(values)
    for name, factory in factories:
        if name not in values:
            data[name] = factory()
    return instance(cls, data, set(values))


EVERY_FIELD: dict[type[BaseModel], set[str]] = {}


def every_field(cls: type[BaseModel]) -> set[str]:
    """The one fields-set shared by the trusted instances of ``cls`` built with every field
    (a set of 7-8 names is ~0.7 KiB each): pydantic only ever adds to a fields-set, and
    adding a field name to a set that holds them all changes nothing; a copy gets its own."""
    fields = EVERY_FIELD[cls] = set(cls.model_fields)
    return fields


def whole(cls: type[M], data: dict[str, Any]) -> M:
    """A model of ``cls`` holding ``data``, which has every field: the shared fields-set
    (``instance`` written out: the runtime builds several of these per call)."""
    obj = _new(cls)
    _set_dict(obj, data)
    _set_fields(obj, EVERY_FIELD.get(cls) or every_field(cls))
    _set_extra(obj, None)
    _set_private(obj, None)
    return obj


__all__ = [
    "EVERY_FIELD",
    "build",
    "every_field",
    "instance",
    "new",
    "set_dict",
    "set_extra",
    "set_fields",
    "set_private",
    "template_of",
    "whole",
]
