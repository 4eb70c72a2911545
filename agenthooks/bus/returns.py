"""Applying a handler's return to its context: validation at the hook boundary.

A return is ``None`` (unchanged), a ``Deny`` where the event accepts one, an ``Ask`` where the
event accepts one (it ends the chain like a ``Deny``; on a step approved at resume it counts as
``None``), or a mapping of the keys the event accepts. Anything else is a ``BadReturnError`` naming the event, the handler,
the key and the closest valid key.
"""

from __future__ import annotations

import difflib
import inspect
import types
import typing
import warnings
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from functools import cache
from typing import Any

import structlog
from pydantic import BaseModel, ValidationError

from ..decisions import Ask, Deny
from ..errors import BadReturnError, IgnoredReturnWarning
from ..events.catalog import CATALOG, EventSpec
from ..events.contexts import EventContext
from ..messages import ToolCall
from .registry import Registration

log = structlog.get_logger("agenthooks")


def apply_return(
    spec: EventSpec, ctx: EventContext, result: Any, reg: Registration, approved: bool = False
) -> tuple[bool, Deny | Ask | None]:
    """Validate ``result`` and apply it to ``ctx`` (``approved``: a human approved the step at
    resume, so an ``Ask`` counts as ``None``).

    Returns (stop the ordinary chain, the deny or ask that ends the chain). All keys are validated before any is applied,
    so a bad return leaves the context as the previous handler left it.
    """
    if not isinstance(result, Mapping):
        if isinstance(result, Deny):
            if spec.deny:
                return True, result
            raise BadReturnError(
                f"handler {reg.label} returned Deny on {spec.name!r}, which cannot deny; "
                f"it may return {spec.may_return}"
            )
        if isinstance(result, Ask):
            if not spec.ask:
                raise BadReturnError(
                    f"handler {reg.label} returned Ask on {spec.name!r}, which cannot pause a "
                    f"run; it may return {spec.may_return}"
                )
            if approved:  # a human approved the step at resume: the ask is answered
                return _GO_ON
            return True, result
        raise BadReturnError(
            f"handler {reg.label} of {spec.name!r} returned {type(result).__name__}; "
            f"it may return None or {spec.may_return}"
        )
    keys: AbstractSet[str] = result.keys()
    if not keys <= spec.returns:
        key = next(k for k in result if k not in spec.returns)
        close = difflib.get_close_matches(str(key), sorted(spec.returns), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else "."
        raise BadReturnError(
            f"handler {reg.label} of {spec.name!r} returned key {key!r}, which {spec.name} "
            f"does not accept{hint} It may return {spec.may_return}"
        )
    short = keys & spec.short_circuit if spec.short_circuit else _NONE
    if len(short) > 1:
        raise BadReturnError(
            f"handler {reg.label} of {spec.name!r} returned {sorted(short)}: "
            "short-circuit keys exclude each other"
        )
    recovery = keys & spec.recovery if spec.recovery else _NONE
    if recovery and getattr(ctx, "source", None) == "denied":
        log.info(
            "denied_recovery_ignored",
            hook_event=spec.name,
            handler=reg.label,
            tool_call_id=getattr(ctx, "tool_call_id", None),
        )
        keys = keys - recovery
        recovery = _NONE
    values = {key: _coerce(spec, ctx, key, result[key], reg) for key in keys}
    for key, value in values.items():
        setattr(ctx, key, value)
    if short:
        ctx.short_circuit = next(iter(short))  # type: ignore[attr-defined]
        return True, None
    if recovery:
        ctx.recovered = True  # type: ignore[attr-defined]
        return True, None
    return False, None


_NONE: frozenset[str] = frozenset()
_GO_ON: tuple[bool, Deny | Ask | None] = (False, None)


def _where(spec: EventSpec, reg: Registration, key: str) -> str:
    """The start of a bad-return message; built only when one is raised."""
    return f"handler {reg.label} of {spec.name!r} returned {key!r}"


def _coerce(spec: EventSpec, ctx: EventContext, key: str, value: Any, reg: Registration) -> Any:
    if key == "call":
        call = _model(ToolCall, value, spec, reg, key)
        current: ToolCall = ctx.call  # type: ignore[attr-defined]
        if call.id != current.id or call.name != current.name:
            raise BadReturnError(
                f"{_where(spec, reg, key)} with a changed id or name: only arguments may change"
            )
        return call
    if key == "error":
        # on_model_error re-raises the error, so it must be an exception; tool events turn
        # it into the text the model reads, so a str is fine there
        if _expected(type(ctx), key) is BaseException:
            if not isinstance(value, BaseException):
                raise BadReturnError(
                    f"{_where(spec, reg, key)} as {type(value).__name__}: give an exception"
                )
        elif not isinstance(value, (BaseException, str)):
            raise BadReturnError(
                f"{_where(spec, reg, key)} as {type(value).__name__}: give an exception or a str"
            )
        return value
    if key == "terminate":
        if not isinstance(value, bool):
            raise BadReturnError(
                f"{_where(spec, reg, key)} as {type(value).__name__}: give True or False"
            )
        return value
    expected = _expected(type(ctx), key)
    if expected is None or type(value) is expected:  # the exact type: nothing to check
        return value
    if isinstance(expected, tuple):  # list[Model]
        if not isinstance(value, list):
            raise BadReturnError(f"{_where(spec, reg, key)} as {type(value).__name__}: give a list")
        cls = expected[0]
        return [item if type(item) is cls else _model(cls, item, spec, reg, key) for item in value]
    if issubclass(expected, BaseModel):
        return _model(expected, value, spec, reg, key)
    if not isinstance(value, expected):
        raise BadReturnError(
            f"{_where(spec, reg, key)} as {type(value).__name__}: give a {expected.__name__}"
        )
    return value


def _model(cls: type[BaseModel], value: Any, spec: EventSpec, reg: Registration, key: str) -> Any:
    if isinstance(value, cls):
        return value
    try:
        return cls.model_validate(value)
    except ValidationError as exc:
        raise BadReturnError(
            f"{_where(spec, reg, key)} that is not a valid {cls.__name__}: {exc}"
        ) from None


def warn_ignored_return(spec: EventSpec, reg: Registration, result: Any) -> None:
    """Warn, once per registration, that an observer handler returned ``result``, which is
    ignored: an ``IgnoredReturnWarning`` naming the handler, the event and the events that
    take such a return, reported at the handler's own file and line."""
    reg.returned = True
    takers = _takers(result)
    where = f"it is taken by {', '.join(takers)}" if takers else "no event takes it"
    message = (
        f"handler {reg.label} returned {_shown(result)} on {spec.name!r}, an observer event: "
        f"the return is ignored ({where}). Return None, or register the handler on the "
        "event meant. Warned once per handler."
    )
    source = _source(reg.fn)
    if source is None:
        warnings.warn(message, IgnoredReturnWarning, stacklevel=2)
    else:
        module = getattr(reg.fn, "__module__", None) or "agenthooks"
        warnings.warn_explicit(message, IgnoredReturnWarning, *source, module=module)


def _takers(result: Any) -> list[str]:
    """The events whose handlers may return ``result``."""
    if isinstance(result, bool):
        return [n for n, s in CATALOG.items() if s.kind == "predicate"]
    if isinstance(result, Deny):
        return [n for n, s in CATALOG.items() if s.deny]
    if isinstance(result, Ask):
        return [n for n, s in CATALOG.items() if s.ask]
    if isinstance(result, Mapping) and result:
        keys = {str(k) for k in result}
        return [n for n, s in CATALOG.items() if keys <= s.returns]
    return []


def _shown(result: Any) -> str:
    if isinstance(result, Mapping):
        return "{" + ", ".join(f"{str(k)!r}: ..." for k in result) + "}"
    if isinstance(result, (bool, Deny, Ask)):
        return repr(result)
    return f"a {type(result).__name__}"


def _source(fn: Any) -> tuple[str, int] | None:
    """The file and first line of ``fn``'s code (a partial's function, a method's function,
    an object's ``__call__``), or None when it has no Python code."""
    target = getattr(fn, "func", fn)  # functools.partial
    target = getattr(target, "__func__", target)  # a bound method
    code = getattr(target, "__code__", None)
    if code is None and not inspect.isroutine(target):
        call = getattr(type(target), "__call__", None)  # noqa: B004
        code = getattr(getattr(call, "__func__", call), "__code__", None)
    if code is None:
        return None
    return code.co_filename, code.co_firstlineno


@cache
def _expected(cls: type[EventContext], key: str) -> Any:
    """The class a returned value must be: a model class, ``(Model,)`` for a list of models,
    a plain type, or None for anything."""
    field = cls.model_fields.get(key)
    if field is None:
        return None
    annotation = field.annotation
    options = (
        [a for a in typing.get_args(annotation) if a is not type(None)]
        if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union
        else [annotation]
    )
    if len(options) != 1:
        return None
    target = options[0]
    if typing.get_origin(target) is list:
        (item,) = typing.get_args(target)
        return (item,) if isinstance(item, type) and issubclass(item, BaseModel) else None
    return target if isinstance(target, type) and target not in (object, Any) else None


__all__ = ["apply_return", "warn_ignored_return"]
