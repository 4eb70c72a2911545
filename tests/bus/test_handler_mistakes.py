"""Handler mistakes are named where they are made: a handler that cannot take the context is
refused at registration, and an observer's ignored return is warned about once per handler."""

from __future__ import annotations

import asyncio
import functools
import inspect
import warnings
from collections.abc import Callable
from typing import Any

import pytest

from agenthooks import Agent, Ask, Deny, HookBus, RegistrationError, ScriptedProvider, Session
from agenthooks.errors import AgentHooksWarning, IgnoredReturnWarning
from agenthooks.events import LoopContext, MessageContext
from agenthooks.messages import ChatMessage


def message() -> MessageContext:
    return MessageContext(message=ChatMessage(role="user", content="hi"))


def caught_warnings(run: Callable[[], Any]) -> list[warnings.WarningMessage]:
    """Every warning ``run`` gives, none deduplicated by Python's warning registry."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run()
    return list(caught)


# an observer's return -------------------------------------------------------------------------


def test_an_observer_returning_a_value_warns_once_naming_handler_event_and_takers() -> None:
    bus = HookBus()
    handler = lambda ctx: {"message": "x"}  # noqa: E731
    line = inspect.getsourcelines(handler)[1]
    bus.on("on_message", handler)

    async def three() -> None:
        for _ in range(3):
            assert await bus.emit("on_message", message()) is None

    caught = caught_warnings(lambda: asyncio.run(three()))
    assert [(w.category, str(w.message)) for w in caught] == [
        (
            IgnoredReturnWarning,
            "handler test_handler_mistakes.test_an_observer_returning_a_value_warns_once_naming_"
            "handler_event_and_takers.<locals>.<lambda> returned {'message': ...} on "
            "'on_message', an observer event: the return is ignored (it is taken by "
            "on_user_message). Return None, or register the handler on the event meant. "
            "Warned once per handler.",
        )
    ]
    # reported where the handler is written, so the warning points at the code to fix
    assert (caught[0].filename, caught[0].lineno) == (__file__, line)
    assert issubclass(IgnoredReturnWarning, AgentHooksWarning)


def test_each_kind_of_return_names_the_events_that_take_it() -> None:
    async def deny(ctx: object) -> Deny:
        return Deny("no")

    cases: list[tuple[str, Callable[[Any], Any], str]] = [
        (
            "on_loop_start",
            deny,
            "returned Deny(reason='no') on 'on_loop_start', an observer event: the return is "
            "ignored (it is taken by on_chat_start, on_user_message, pre_agent, post_agent, "
            "on_session_start, pre_request, on_response, on_output, pre_tool_call, "
            "on_tool_call_result, pre_handoff)",
        ),
        (
            "on_loop_start",
            lambda ctx: Ask("a human?"),
            "returned Ask(reason='a human?') on 'on_loop_start', an observer event: the return "
            "is ignored (it is taken by pre_tool_call, pre_handoff)",
        ),
        (
            "on_loop_end",
            lambda ctx: True,
            "returned True on 'on_loop_end', an observer event: the return is ignored (it is "
            "taken by should_stop)",
        ),
        (
            "on_loop_end",
            lambda ctx: {"result": 1, "terminate": True},
            "returned {'result': ..., 'terminate': ...} on 'on_loop_end', an observer event: "
            "the return is ignored (it is taken by on_tool_call_result, on_tool_call_error)",
        ),
        (
            "on_loop_start",
            lambda ctx: "anything",
            "returned a str on 'on_loop_start', an observer event: the return is ignored (no "
            "event takes it)",
        ),
    ]
    for event, handler, expected in cases:
        bus = HookBus()
        bus.on(event, handler)
        caught = caught_warnings(
            lambda bus=bus, event=event: asyncio.run(bus.emit(event, LoopContext(iteration=0)))
        )
        assert len(caught) == 1, (event, [str(w.message) for w in caught])
        assert expected in str(caught[0].message)


def test_one_warning_per_registration_not_per_call_nor_per_function() -> None:
    bus = HookBus()

    def counts(ctx: object) -> int:
        return 1

    bus.on("on_loop_start", counts)
    bus.on("on_loop_end", counts)  # the same function on a second event: its own warning

    async def runs() -> None:
        for i in range(5):
            await bus.emit("on_loop_start", LoopContext(iteration=i))
            await bus.emit("on_loop_end", LoopContext(iteration=i))

    caught = caught_warnings(lambda: asyncio.run(runs()))
    assert [str(w.message).split(" an observer")[0] for w in caught] == [
        "handler test_handler_mistakes.test_one_warning_per_registration_not_per_call_nor_per_"
        "function.<locals>.counts returned a int on 'on_loop_start',",
        "handler test_handler_mistakes.test_one_warning_per_registration_not_per_call_nor_per_"
        "function.<locals>.counts returned a int on 'on_loop_end',",
    ]


def test_observers_returning_none_never_warn_sync_async_or_awaitable() -> None:
    bus = HookBus()

    async def quiet(ctx: object) -> None:
        await asyncio.sleep(0)

    def gives_awaitable(ctx: object) -> Any:
        return quiet(ctx)

    seen: list[object] = []
    bus.on("on_message", seen.append)
    bus.on("on_message", quiet)
    bus.on("on_message", gives_awaitable)
    bus.on("on_message", quiet, guard=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        asyncio.run(bus.emit("on_message", message()))
    assert len(seen) == 1


def test_the_warning_comes_from_a_whole_run_too_and_the_return_stays_ignored() -> None:
    agent = Agent("a", provider=ScriptedProvider(lambda request: "fine"))
    agent.on("on_message", lambda ctx: {"message": "x"})

    async def two() -> list[str]:
        session = Session(agent)
        first = await session.chat("one")
        second = await session.chat("two")
        return [
            first.content or "",
            second.content or "",
            *[m.content or "" for m in session.history],
        ]

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        contents = asyncio.run(two())
    assert contents == ["fine", "fine", "one", "fine", "two", "fine"]
    assert [w.category for w in caught] == [IgnoredReturnWarning]


def test_turned_into_an_error_it_ends_the_emission_naming_the_handler() -> None:
    bus = HookBus()

    def meant_for_an_interceptor(ctx: object) -> dict[str, str]:
        return {"message": "x"}

    bus.on("on_message", meant_for_an_interceptor)
    with warnings.catch_warnings():
        warnings.simplefilter("error", AgentHooksWarning)
        with pytest.raises(IgnoredReturnWarning) as raised:
            asyncio.run(bus.emit("on_message", message()))
    assert raised.value.__notes__ == [
        "raised by handler test_handler_mistakes.test_turned_into_an_error_it_ends_the_"
        "emission_naming_the_handler.<locals>.meant_for_an_interceptor of event 'on_message'"
    ]


# a handler that cannot take the context -------------------------------------------------------


def no_context() -> None:
    return None


def two_required(ctx: object, extra: object) -> None:
    return None


def keyword_required(ctx: object, *, flag: bool) -> None:
    return None


class Handlers:
    def takes_ctx(self, ctx: object) -> None:
        return None

    def takes_nothing(self) -> None:
        return None

    @staticmethod
    def static(ctx: object) -> None:
        return None

    @classmethod
    def cls_method(cls, ctx: object) -> None:
        return None


class CallableTakesCtx:
    async def __call__(self, ctx: object) -> None:
        return None


class CallableTakesNothing:
    def __call__(self) -> None:
        return None


def passes_through(fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return None

    return wrapper


def test_a_handler_that_cannot_take_the_context_is_refused_at_registration() -> None:
    refused: list[tuple[Any, str, str]] = [
        (
            lambda: None,
            "test_handler_mistakes.test_a_handler_that_cannot_take_the_context_is_refused_at_"
            "registration.<locals>.<lambda>",
            "its signature () does not allow that (too many positional arguments); give it a "
            "parameter for the context, e.g. `lambda ctx: ...`",
        ),
        (
            no_context,
            "test_handler_mistakes.no_context",
            "its signature () does not allow that (too many positional arguments)",
        ),
        (
            two_required,
            "test_handler_mistakes.two_required",
            "(missing a required argument: 'extra'); give its other parameters defaults",
        ),
        (
            keyword_required,
            "test_handler_mistakes.keyword_required",
            "(missing a required argument: 'flag'); give its other parameters defaults",
        ),
        (Handlers().takes_nothing, "test_handler_mistakes.Handlers.takes_nothing", "()"),
        (
            functools.partial(two_required, 1, 2),
            "functools.partial(test_handler_mistakes.two_required)",
            "too many positional arguments",
        ),
        (CallableTakesNothing(), "test_handler_mistakes.CallableTakesNothing", "()"),
    ]
    for handler, label, detail in refused:
        for register in (
            lambda h: HookBus().on("on_message", h),
            lambda h: HookBus().on("onMessage")(h),  # the decorator and an alias
            lambda h: HookBus().once("pre_tool_call", h, match="search"),
            lambda h: Agent("a").on("on_message", h),
        ):
            with pytest.raises(RegistrationError) as raised:
                register(handler)
            text = str(raised.value)
            assert text.startswith(f"handler {label} cannot take the context of '"), text
            assert "handlers are called as handler(ctx)" in text and detail in text, text
    with pytest.raises(RegistrationError) as raised:
        HookBus().on("onMessage", no_context)
    assert str(raised.value) == (
        "handler test_handler_mistakes.no_context cannot take the context of 'on_message': "
        "handlers are called as handler(ctx), and its signature () does not allow that "
        "(too many positional arguments); give it a parameter for the context, e.g. "
        "`lambda ctx: ...`"
    )


def test_every_shape_that_can_take_the_context_is_accepted() -> None:
    async def coroutine(ctx: object) -> None:
        return None

    def variadic(*args: object) -> None:
        return None

    def defaults(ctx: object, extra: int = 1, *, flag: bool = False) -> None:
        return None

    accepted: list[Any] = [
        lambda ctx: None,
        coroutine,
        variadic,
        defaults,
        Handlers().takes_ctx,
        Handlers.static,
        Handlers.cls_method,
        CallableTakesCtx(),
        functools.partial(two_required, extra=2),
        functools.partial(lambda tag, ctx: None, "tag"),
        passes_through(no_context),  # the wrapper is what gets called, and it takes anything
        print,  # builtins: what has no signature is trusted
        len,
        [].append,
        dict,
    ]
    bus = HookBus()
    for handler in accepted:
        bus.on("on_message", handler)
    assert len(bus.handlers("on_message")) == len(accepted)


def test_a_plugin_method_that_cannot_take_the_context_is_refused_and_rolled_back() -> None:
    class Audit:
        name = "audit"

        def on_chat_start(self, ctx: object) -> None:
            return None

        def on_message(self) -> None:
            return None

    bus = HookBus()
    with pytest.raises(RegistrationError) as raised:
        bus.use(Audit())
    assert "handler test_handler_mistakes." in str(raised.value)
    assert "Audit.on_message cannot take the context of 'on_message'" in str(raised.value)
    assert bus.handlers("on_chat_start") == [] and "audit" not in bus.plugins
