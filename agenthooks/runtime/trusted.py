"""The models a run makes itself, trusted and built without validation: event contexts
(``context``) and the messages, requests and responses every run builds several times, each
from one dict literal with every field given."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

from .._construct import (
    every_field,
    instance,
    new,
    set_dict,
    set_extra,
    set_fields,
    set_private,
    template_of,
    whole,
)
from ..events.contexts import EventContext
from ..messages import AgentResponse, ChatMessage, ProviderRequest, ResponseFormat, ToolCall, Usage

M = TypeVar("M", bound=BaseModel)

_Plan = tuple[
    dict[str, Any], tuple[tuple[str, Any], ...], tuple[tuple[str, Any], ...], int, set[str]
]
_PLANS: dict[type[BaseModel], _Plan] = {}


def _context_plan(cls: type[BaseModel]) -> _Plan:
    """The template, the factories of the common fields (which a full base carries), those
    of the event's own fields (most contexts have none), how many common fields exist, and
    the shared fields-set (a context holds every field)."""
    template, factories = template_of(cls)
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
        obj = new(cls)
        set_dict(obj, {**base, **values})
        set_fields(obj, fields)
        set_extra(obj, None)
        set_private(obj, None)
        return obj
    data = {**template, **base, **values}
    if len(base) < n_common:  # a partial base (outside a run): default the rest
        for name, factory in common:
            if name not in base and name not in values:
                data[name] = factory()
    for name, factory in own:
        if name not in values:
            data[name] = factory()
    return instance(cls, data, fields)


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
) -> ChatMessage:
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
    return whole(ChatMessage, data)


def provider_request(
    model: str,
    system: str | None,
    messages: list[Any],
    tools: list[dict[str, Any]],
    tool_choice: str | dict[str, Any] | None,
    temperature: float | None,
    reasoning_effort: str | None,
    response_format: ResponseFormat | None = None,
) -> ProviderRequest:
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
    return whole(ProviderRequest, data)


def agent_response(
    content: str | None,
    finish_reason: str,
    messages: list[Any],
    usage: Usage,
    iterations: int,
    agent: str | None,
    output: Any = None,
    pending: list[Any] | None = None,
) -> AgentResponse:
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
    return whole(AgentResponse, data)


COMMON = tuple(EventContext.model_fields)
"""The fields every context carries."""


def common(ctx: EventContext) -> dict[str, Any]:
    """The common fields of ``ctx``, to start the next context of the same step."""
    data = ctx.__dict__
    return {k: data[k] for k in COMMON}


def tool_message(call: ToolCall, content: str, *, is_error: bool = False) -> ChatMessage:
    """The tool message answering ``call``."""
    return chat_message("tool", content, [], call.id, is_error, call.name)


__all__ = [
    "COMMON",
    "agent_response",
    "chat_message",
    "common",
    "context",
    "provider_request",
    "tool_message",
]
