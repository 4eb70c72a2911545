"""Every event behaves as its one declaration says: each key it may return is accepted and
applied, any other return is refused with a ``BadReturnError`` naming the event, its aliases
resolve, and its kind, short-circuits, recovery, gate, teardown and ``match=`` work on a real
``HookBus``. The cases are generated from ``CATALOG``, so a new event is tested by declaring it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from agenthooks import Ask, BadReturnError, Deny, HookBus
from agenthooks.errors import IgnoredReturnWarning, RegistrationError, UnknownEventError
from agenthooks.events import CATALOG, EventContext, EventSpec, resolve
from agenthooks.messages import (
    AgentResponse,
    ChatMessage,
    ProviderRequest,
    ProviderResponse,
    ToolCall,
)
from agenthooks.record import handler_label

SPECS = list(CATALOG.values())
INTERCEPTORS = [s for s in SPECS if s.kind == "interceptor"]
OBSERVERS = [s for s in SPECS if s.kind == "observer"]
RETURNS = [(s, key) for s in INTERCEPTORS for key in sorted(s.returns)]
ALIASES = [(s, alias) for s in SPECS for alias in s.aliases]
MATCHED = [s for s in SPECS if s.match is not None]

_PROVIDER = object()


def sample(spec: EventSpec, key: str) -> Any:
    """A valid value for ``key`` of ``spec``'s context (what a handler would return)."""
    if key == "response":
        annotation = str(spec.context.model_fields["response"].annotation)
        if "AgentResponse" in annotation:
            return AgentResponse(content="canned answer")
        return ProviderResponse(content="canned reply")
    return {
        "message": "rewritten message",
        "request": ProviderRequest(model="other-model"),
        "messages": [ChatMessage(role="user", content="only this")],
        "call": ToolCall(id="", name="", arguments={"q": "rewritten"}),
        "result": "canned result",
        "error": RuntimeError("replaced error"),
        "terminate": True,
        "output": {"answer": 42},
        "provider": _PROVIDER,
        "model": "next-model",
        "thinking": "high",
    }[key]


def ids(spec: EventSpec) -> str:
    return spec.name


def returning(value: Any) -> Callable[[Any], Any]:
    """A handler that returns ``value``."""

    def handler(ctx: Any) -> Any:
        return value

    return handler


def test_every_returned_key_of_the_catalog_has_a_sample() -> None:
    # a new return key fails here until the cases below can exercise it
    keys = {key for _, key in RETURNS}
    assert keys == {
        "call",
        "error",
        "message",
        "messages",
        "model",
        "output",
        "provider",
        "request",
        "response",
        "result",
        "terminate",
        "thinking",
    }


def test_the_kinds_split_the_catalog() -> None:
    assert {s.name for s in SPECS if s.kind == "predicate"} == {"should_stop"}
    assert len(INTERCEPTORS) == 15 and len(OBSERVERS) == 25 and len(SPECS) == 41


@pytest.mark.parametrize(("spec", "key"), RETURNS, ids=[f"{s.name}-{k}" for s, k in RETURNS])
async def test_each_returned_key_is_applied_and_seen_by_the_next_handler(
    spec: EventSpec, key: str
) -> None:
    bus, value, seen = HookBus(), sample(spec, key), []
    bus.on(spec.name, lambda ctx: {key: value})
    bus.on(spec.name, lambda ctx: seen.append(getattr(ctx, key)))
    ctx = spec.context()

    assert await bus.intercept(spec.name, ctx) is None
    assert getattr(ctx, key) == value
    if key in spec.short_circuit:
        # the remaining ordinary handlers are skipped, and a guard learns why
        assert seen == [] and ctx.short_circuit == key  # type: ignore[attr-defined]
    elif key in spec.recovery:
        assert seen == [] and ctx.recovered is True  # type: ignore[attr-defined]
    else:
        assert seen == [value]


@pytest.mark.parametrize("spec", INTERCEPTORS, ids=ids)
async def test_a_key_the_event_does_not_take_is_refused_naming_the_event(spec: EventSpec) -> None:
    others = sorted({k for s in INTERCEPTORS for k in s.returns} - spec.returns) + ["bogus"]
    for key in others:
        bus = HookBus()
        bus.on(spec.name, returning({key: "x"}))
        ctx = spec.context()
        before = ctx.model_dump()
        with pytest.raises(BadReturnError, match=f"of '{spec.name}' returned key '{key}'"):
            await bus.intercept(spec.name, ctx)
        assert ctx.model_dump() == before  # nothing of a refused return is applied


async def test_a_misspelt_key_is_refused_with_the_closest_and_what_the_event_takes() -> None:
    bus = HookBus()

    def respond(ctx: Any) -> dict[str, str]:
        return {"respons": "x"}

    bus.on("on_response", respond)
    with pytest.raises(BadReturnError) as caught:
        await bus.intercept("on_response", CATALOG["on_response"].context())
    assert str(caught.value) == (
        f"handler {handler_label(respond)} of 'on_response' returned key 'respons', which "
        "on_response does not accept; did you mean 'response'? It may return "
        '{"response"}, Deny(reason)'
    )


@pytest.mark.parametrize("spec", INTERCEPTORS, ids=ids)
async def test_deny_and_ask_are_taken_exactly_where_declared(spec: EventSpec) -> None:
    for answer, allowed, refusal in (
        (Deny("no"), spec.deny, "cannot deny"),
        (Ask("a human decides"), spec.ask, "cannot pause a run"),
    ):
        bus = HookBus()
        bus.on(spec.name, returning(answer))
        if allowed:
            assert await bus.intercept(spec.name, spec.context()) is answer
        else:
            with pytest.raises(BadReturnError, match=f"on '{spec.name}', which {refusal}"):
                await bus.intercept(spec.name, spec.context())


@pytest.mark.parametrize("spec", INTERCEPTORS, ids=ids)
async def test_a_return_of_the_wrong_shape_is_refused_naming_the_event(spec: EventSpec) -> None:
    bus = HookBus()
    bus.on(spec.name, lambda ctx: 42)
    with pytest.raises(BadReturnError, match=f"of '{spec.name}' returned int"):
        await bus.intercept(spec.name, spec.context())


@pytest.mark.parametrize("spec", OBSERVERS, ids=ids)
async def test_an_observer_runs_every_handler_and_ignores_returns(spec: EventSpec) -> None:
    bus, calls = HookBus(), []

    def first(ctx: Any) -> dict[str, str]:
        calls.append("first")
        return {"anything": "x"}

    bus.on(spec.name, first)
    bus.on(spec.name, lambda ctx: calls.append("second"))
    ctx = spec.context()
    before = ctx.model_dump()
    with pytest.warns(IgnoredReturnWarning, match=spec.name):
        await bus.emit(spec.name, ctx)
    assert calls == ["first", "second"] and ctx.model_dump() == before


async def test_the_predicate_stops_at_the_first_true_and_refuses_anything_but_a_bool() -> None:
    spec = CATALOG["should_stop"]
    bus, calls = HookBus(), []
    bus.on(spec.name, lambda ctx: calls.append("a"))
    bus.on(spec.name, lambda ctx: True)
    bus.on(spec.name, lambda ctx: calls.append("never"))
    assert await bus.check(spec.name, spec.context()) is True
    assert calls == ["a"]

    nobody = HookBus()
    nobody.on(spec.name, lambda ctx: False)
    assert await nobody.check(spec.name, spec.context()) is False

    wrong = HookBus()
    wrong.on(spec.name, lambda ctx: "yes")
    with pytest.raises(BadReturnError, match="should_stop handlers return True, False or None"):
        await wrong.check(spec.name, spec.context())


@pytest.mark.parametrize("spec", [s for s in SPECS if s.kind != "predicate"], ids=ids)
async def test_a_raising_handler_is_isolated_as_declared(spec: EventSpec) -> None:
    def boom(ctx: Any) -> None:
        raise RuntimeError("handler broke")

    # raised by default, unless the event is a teardown event
    bus = HookBus()
    bus.on(spec.name, boom)
    if spec.teardown:
        assert await bus.intercept(spec.name, spec.context()) is None
    else:
        with pytest.raises(RuntimeError, match="handler broke"):
            await bus.intercept(spec.name, spec.context())

    # isolated: a gate fails closed, everything else goes on
    isolated = HookBus(errors="isolate")
    isolated.on(spec.name, boom)
    outcome = await isolated.intercept(spec.name, spec.context())
    if spec.gate:
        assert isinstance(outcome, Deny) and "handler broke" in str(outcome.reason)
    else:
        assert outcome is None


@pytest.mark.parametrize(("spec", "alias"), ALIASES, ids=[a for _, a in ALIASES])
async def test_an_alias_resolves_and_its_handler_runs_on_the_event(
    spec: EventSpec, alias: str
) -> None:
    assert resolve(alias) is spec
    bus, seen = HookBus(), []
    bus.on(alias, lambda ctx: seen.append(type(ctx)))
    await bus.intercept(spec.name, spec.context())
    assert seen == [spec.context]


def test_aliases_are_unique_and_no_alias_is_an_event_name() -> None:
    aliases = [a for _, a in ALIASES]
    assert len(aliases) == len(set(aliases))
    assert not set(aliases) & set(CATALOG)


def test_an_unknown_name_is_refused_with_the_closest_names() -> None:
    with pytest.raises(UnknownEventError, match="unknown event 'on_tool_cal_error'") as caught:
        resolve("on_tool_cal_error")
    assert "on_tool_call_error" in str(caught.value)


def matching(spec: EventSpec, value: str) -> EventContext:
    """A context of ``spec`` whose ``match`` attribute is ``value``."""
    if spec.match == "tool_name":  # derived from the call
        return spec.context.model_validate({"call": ToolCall(id="c1", name=value)})
    assert spec.match is not None
    return spec.context.model_validate({spec.match: value})


@pytest.mark.parametrize("spec", MATCHED, ids=ids)
async def test_match_tests_the_declared_attribute(spec: EventSpec) -> None:
    bus, seen = HookBus(), []
    bus.on(spec.name, lambda ctx: seen.append(getattr(ctx, str(spec.match))), match="search")
    for value in ("search", "fetch"):
        await bus.intercept(spec.name, matching(spec, value))
    assert seen == ["search"]


async def test_match_on_an_event_that_declares_none_is_refused() -> None:
    with pytest.raises(RegistrationError, match="match= is not supported on 'on_response'"):
        HookBus().on("on_response", lambda ctx: None, match="search")
