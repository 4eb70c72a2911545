"""Building trusted internal models without validation, fast.

pydantic's ``model_construct`` re-inspects default factories on every call (tens of µs for
some models); contexts and messages built by the runtime are trusted, so they are built here
from per-class default tables computed once. The models every run builds several times
(messages, requests, responses) have constructors of their own: one dict literal each.
"""

from __future__ import annotations

from functools import cache
from typing import Any, TypeVar

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

M = TypeVar("M", bound=BaseModel)

_new = object.__new__
# the slot setters of every model, called directly: a quarter cheaper than object.__setattr__
set_dict = _set_dict = BaseModel.__dict__["__dict__"].__set__
set_fields = _set_fields = BaseModel.__dict__["__pydantic_fields_set__"].__set__
set_extra = _set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
set_private = _set_private = BaseModel.__dict__["__pydantic_private__"].__set__


def _instance(cls: type[M], data: dict[str, Any], fields: set[str]) -> M:
    """A model of ``cls`` holding ``data`` as is: its four slots set, nothing validated."""
    obj = _new(cls)
    _set_dict(obj, data)
    _set_fields(obj, fields)
    _set_extra(obj, None)
    _set_private(obj, None)
    return obj


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
    return _instance(cls, data, set(values))


EVERY_FIELD: dict[type[BaseModel], set[str]] = {}


def every_field(cls: type[BaseModel]) -> set[str]:
    """The one fields-set shared by the trusted instances of ``cls`` built with every field
    (a set of 7-8 names is ~0.7 KiB each): pydantic only ever adds to a fields-set, and
    adding a field name to a set that holds them all changes nothing; a copy gets its own."""
    fields = EVERY_FIELD[cls] = set(cls.model_fields)
    return fields


_Plan = tuple[
    dict[str, Any], tuple[tuple[str, Any], ...], tuple[tuple[str, Any], ...], int, set[str]
]
_PLANS: dict[type[BaseModel], _Plan] = {}


def _context_plan(cls: type[BaseModel]) -> _Plan:
    """The template, the factories of the common fields (which a full base carries), those
    of the event's own fields (most contexts have none), how many common fields exist, and
    the shared fields-set (a context holds every field)."""
    from .events.contexts import EventContext

    template, factories = _template(cls)
    common = tuple(f for f in factories if f[0] in EventContext.model_fields)
    own = tuple(f for f in factories if f not in common)
    fields = every_field(cls)
    plan = _PLANS[cls] = (template, common, own, len(EventContext.model_fields), fields)
    return plan


def context(cls: type[M], base: dict[str, Any], /, **values: Any) -> M:
    """An event context of ``cls``: the common fields from ``base``, then ``values``; every
    field counts as set (a context holds them all)."""
    template, common, own, n_common, fields = _PLANS.get(cls) or _context_plan(cls)
    if len(base) + len(values) == len(fields):  # every field given: the run's own contexts
        obj = _new(cls)
        _set_dict(obj, {**base, **values})
        _set_fields(obj, fields)
        _set_extra(obj, None)
        _set_private(obj, None)
        return obj
    data = {**template, **base, **values}
    if len(base) < n_common:  # a partial base (outside a run): default the rest
        for name, factory in common:
            if name not in base and name not in values:
                data[name] = factory()
    for name, factory in own:
        if name not in values:
            data[name] = factory()
    return _instance(cls, data, fields)


def whole(cls: type[M], data: dict[str, Any]) -> M:
    """A model of ``cls`` holding ``data``, which has every field: the shared fields-set
    (``_instance`` written out: the runtime builds several of these per call)."""
    obj = _new(cls)
    _set_dict(obj, data)
    _set_fields(obj, EVERY_FIELD.get(cls) or every_field(cls))
    _set_extra(obj, None)
    _set_private(obj, None)
    return obj


# Each constructor below gives exactly what ``build`` gives with every field passed (the same
# values, every field in the fields-set), at a fraction of its cost.


def chat_message(
    role: str,
    content: str | None,
    tool_calls: list[Any],
    tool_call_id: str | None = None,
    is_error: bool = False,
    name: str | None = None,
    thinking_blocks: list[Any] | None = None,
) -> _messages.ChatMessage:
    """A ``ChatMessage`` with every field set."""
    data = {
        "role": role,
        "content": content,
        "tool_calls": tool_calls,
        "tool_call_id": tool_call_id,
        "is_error": is_error,
        "name": name,
        "thinking_blocks": [] if thinking_blocks is None else thinking_blocks,
    }
    return whole(_messages.ChatMessage, data)


def provider_request(
    model: str,
    system: str | None,
    messages: list[Any],
    tools: list[dict[str, Any]],
    tool_choice: str | dict[str, Any] | None,
    temperature: float | None,
    reasoning_effort: str | None,
    response_format: _messages.ResponseFormat | None = None,
) -> _messages.ProviderRequest:
    """A ``ProviderRequest`` with every field set."""
    data = {
        "model": model,
        "system": system,
        "messages": messages,
        "tools": tools,
        "tool_choice": tool_choice,
        "temperature": temperature,
        "reasoning_effort": reasoning_effort,
        "response_format": response_format,
    }
    return whole(_messages.ProviderRequest, data)


def agent_response(
    content: str | None,
    finish_reason: str,
    messages: list[Any],
    usage: _messages.Usage,
    iterations: int,
    agent: str | None,
    output: Any = None,
    pending: list[Any] | None = None,
) -> _messages.AgentResponse:
    """An ``AgentResponse`` with every field set."""
    data = {
        "content": content,
        "finish_reason": finish_reason,
        "messages": messages,
        "usage": usage,
        "iterations": iterations,
        "agent": agent,
        "output": output,
        "pending": [] if pending is None else pending,
    }
    return whole(_messages.AgentResponse, data)


# last: messages imports ``build`` from this module, whichever of the two is imported first
from . import messages as _messages  # noqa: E402

__all__ = [
    "EVERY_FIELD",
    "agent_response",
    "build",
    "chat_message",
    "context",
    "every_field",
    "provider_request",
    "set_dict",
    "set_extra",
    "set_fields",
    "set_private",
    "whole",
]
