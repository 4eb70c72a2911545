"""The Agent's public API (hooks, bus, scopes, history, chat_sync) and ``@tool``: what the
decorator returns, the schema, where sync tools run, how results and bad arguments read."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from pydantic import BaseModel

from agenthooks import (
    Agent,
    ChatMessage,
    Disposer,
    HookBus,
    ProviderResponse,
    RegistrationError,
    Scope,
    ScriptedProvider,
    Tool,
    ToolCall,
    UnknownEventError,
    tool,
)
from agenthooks.runtime.agent import ScopeRegistry


def ask(name: str, call_id: str = "c1", **arguments: Any) -> ProviderResponse:
    return ProviderResponse(
        finish_reason="tool_calls",
        tool_calls=[ToolCall(id=call_id, name=name, arguments=arguments)],
    )


def answered(call_id: str, name: str, content: str, *, is_error: bool = False) -> ChatMessage:
    return ChatMessage(
        role="tool", content=content, tool_call_id=call_id, name=name, is_error=is_error
    )


# ------------------------------------------------------------------------------ hooks


async def test_on_once_off_and_add_hook_register_on_the_agents_bus() -> None:
    agent = Agent("api", provider=ScriptedProvider(["1", "2", "3"]))
    calls: list[str] = []

    def every(ctx: Any) -> None:
        calls.append(f"on:{ctx.message}")

    def first(ctx: Any) -> None:
        calls.append(f"once:{ctx.message}")

    def hooked(ctx: Any) -> None:
        calls.append(f"add_hook:{ctx.message}")

    disposer = agent.on("on_chat_start", every)
    agent.once("BeforeRun", first)  # an alias registers on on_chat_start
    dispose_hook = agent.add_hook("on_chat_start", hooked)

    assert isinstance(disposer, Disposer) and isinstance(dispose_hook, Disposer)
    assert agent.bus.handlers("on_chat_start") == [every, first, hooked]
    await agent.chat("a")
    dispose_hook()
    dispose_hook()  # idempotent
    assert not dispose_hook.active
    await agent.chat("b")
    assert agent.off("on_chat_start", every) is True
    assert agent.off("on_chat_start", every) is False
    await agent.chat("c")

    assert calls == ["on:a", "once:a", "add_hook:a", "on:b"]
    assert agent.bus.handlers("on_chat_start") == []


async def test_on_without_a_handler_is_a_decorator_and_options_pass_through() -> None:
    agent = Agent("api", provider=ScriptedProvider(["done"]))
    order: list[str] = []

    @agent.on("pre_request", priority=5)
    def early(ctx: Any) -> None:
        order.append("early")

    @agent.on("pre_request")
    def late(ctx: Any) -> None:
        order.append("late")

    assert callable(early) and early.__name__ == "early"
    with pytest.raises(RegistrationError, match="match= is not supported on 'pre_request'"):
        agent.on("pre_request", late, match="x")
    with pytest.raises(UnknownEventError, match="unknown event 'pre_requets'"):
        agent.on("pre_requets", late)

    await agent.chat("go")
    assert order == ["early", "late"]


def test_agent_exposes_its_bus_and_scopes() -> None:
    shared = HookBus()
    helper = Agent("helper")
    agent = Agent("api", bus=shared, tools=[add], sub_agents=[helper], handoffs=[Agent("other")])
    plain = Agent("plain")

    assert agent.bus is shared
    assert isinstance(plain.bus, HookBus) and plain.bus is not shared
    assert isinstance(agent.scopes, ScopeRegistry)
    assert [s.name for s in agent.scopes] == ["default", "sub_agents", "handoffs"]
    assert agent.scopes.names() == ["add", "helper", "transfer_to_other"]
    assert agent.scopes["default"].tools == {"add": add}
    assert agent.scopes.lookup("helper") == (
        agent.scopes["sub_agents"].tools["helper"],
        agent.scopes["sub_agents"],
    )
    assert agent.scopes.lookup("nothing") is None
    assert agent.has_own_bus and not plain.has_own_bus
    plain.on("on_message", print)
    assert plain.has_own_bus  # hooks added to its own bus make it its own


async def test_history_is_a_copy_of_the_agents_conversation() -> None:
    agent = Agent("api", provider=ScriptedProvider(["hello", "again"]))
    await agent.chat("hi")

    snapshot = agent.history
    snapshot.append(ChatMessage(role="user", content="injected"))
    snapshot.clear()

    assert agent.history == [
        ChatMessage(role="user", content="hi"),
        ChatMessage(role="assistant", content="hello"),
    ]
    await agent.chat("once more")
    assert len(agent.history) == 4


def test_chat_sync_runs_a_whole_chat_from_plain_code() -> None:
    provider = ScriptedProvider([ask("add", a=1, b=2), "3"])
    agent = Agent("api", provider=provider, tools=[add])
    ends: list[str] = []
    agent.on("on_chat_end", lambda c: ends.append(c.response.content))

    response = agent.chat_sync("1 + 2?")

    assert (response.content, response.iterations) == ("3", 2)
    assert ends == ["3"]
    assert provider.requests[1].messages[-1] == answered("c1", "add", "3")


def test_agent_validates_its_configuration() -> None:
    with pytest.raises(RegistrationError, match="^an agent needs a name, got ''$"):
        Agent("")
    with pytest.raises(RegistrationError, match="^max_turns must be at least 1, got 0$"):
        Agent("a", max_turns=0)
    with pytest.raises(RegistrationError, match="^middleware= takes Middleware objects"):
        Agent("a", middleware=[object()])  # type: ignore[list-item]


# ------------------------------------------------------------------------------ @tool


@tool
def add(a: int, b: int) -> int:
    """Add two integers.

    Used for arithmetic."""
    return a + b


async def test_tool_returns_a_tool_still_callable_as_the_original_function() -> None:
    @tool
    async def shout(text: str) -> str:
        """Shout."""
        return text.upper()

    @tool(name="subtract", description="Take b from a.")
    def minus(a: int, b: int = 1) -> int:
        return a - b

    assert isinstance(add, Tool) and isinstance(shout, Tool) and isinstance(minus, Tool)
    assert add(2, 3) == 5
    assert add(a=4, b=5) == 9
    assert await shout("hey") == "HEY"
    assert minus(5) == 4
    assert add.__wrapped__.__name__ == "add"
    assert add.__doc__ == "Add two integers.\n\n    Used for arithmetic."
    assert (add.name, add.description) == ("add", "Add two integers.\n\nUsed for arithmetic.")
    assert (minus.name, minus.description) == ("subtract", "Take b from a.")
    assert minus.schema == {
        "type": "function",
        "function": {
            "name": "subtract",
            "description": "Take b from a.",
            "parameters": {
                "additionalProperties": False,
                "properties": {
                    "a": {"title": "A", "type": "integer"},
                    "b": {"default": 1, "title": "B", "type": "integer"},
                },
                "required": ["a"],
                "type": "object",
            },
        },
    }


async def test_the_model_is_offered_the_schema_from_the_function() -> None:
    provider = ScriptedProvider(["ok"])
    agent = Agent("api", provider=provider, tools=[add])

    await agent.chat("hi")

    assert provider.requests[0].tools == [add.schema]
    assert add.schema["function"]["description"] == "Add two integers.\n\nUsed for arithmetic."


async def test_a_plain_function_in_tools_is_wrapped_as_a_tool() -> None:
    def echo(word: str) -> str:
        """Echo a word."""
        return word

    provider = ScriptedProvider([ask("echo", word="hi"), "ok"])
    agent = Agent("api", provider=provider, tools=[echo])

    await agent.chat("go")

    assert provider.requests[0].tools[0]["function"]["description"] == "Echo a word."
    assert provider.requests[1].messages[-1] == answered("c1", "echo", "hi")


async def test_a_sync_tool_runs_in_a_worker_thread_unless_inline() -> None:
    threads: dict[str, int] = {}

    @tool
    def threaded() -> str:
        """Runs in a worker thread."""
        threads["threaded"] = threading.get_ident()
        return "t"

    @tool(inline=True)
    def inline() -> str:
        """Runs on the loop."""
        threads["inline"] = threading.get_ident()
        return "i"

    @tool
    async def coroutine() -> str:
        """Runs on the loop."""
        threads["async"] = threading.get_ident()
        return "a"

    provider = ScriptedProvider(
        [
            ProviderResponse(
                tool_calls=[
                    ToolCall(id="1", name="threaded"),
                    ToolCall(id="2", name="inline"),
                    ToolCall(id="3", name="coroutine"),
                ]
            ),
            "done",
        ]
    )
    agent = Agent("api", provider=provider, tools=[threaded, inline, coroutine])
    loop_thread = threading.get_ident()

    await agent.chat("go")

    assert threads["threaded"] != loop_thread
    assert threads["inline"] == loop_thread
    assert threads["async"] == loop_thread
    assert [m.content for m in provider.requests[1].messages[-3:]] == ["t", "i", "a"]


class Point(BaseModel):
    x: int
    y: int


async def test_tool_results_that_are_not_strings_are_serialized_to_json() -> None:
    values: dict[str, Any] = {
        "as_dict": {"total": 3, "items": ["a", "é"]},
        "as_list": [1, 2.5, None, True],
        "as_int": 42,
        "as_none": None,
        "as_model": Point(x=1, y=2),
        "as_nested_models": {"points": [Point(x=0, y=1)]},
        "as_text": "plain text",
        "as_tuple": (1, "two"),
    }

    def make(name: str, value: Any) -> Tool[Any]:
        def fn() -> Any:
            return value

        fn.__name__ = name
        fn.__doc__ = name
        return tool(fn)

    provider = ScriptedProvider(
        [ProviderResponse(tool_calls=[ToolCall(id=name, name=name) for name in values]), "done"]
    )
    agent = Agent("api", provider=provider, tools=[make(n, v) for n, v in values.items()])

    await agent.chat("go")

    assert {m.name: m.content for m in provider.requests[1].messages if m.role == "tool"} == {
        "as_dict": '{"total": 3, "items": ["a", "é"]}',
        "as_list": "[1, 2.5, null, true]",
        "as_int": "42",
        "as_none": "null",
        "as_model": '{"x":1,"y":2}',
        "as_nested_models": '{"points": [{"x": 0, "y": 1}]}',
        "as_text": "plain text",
        "as_tuple": '[1, "two"]',
    }


async def test_argument_validation_failure_names_the_tool_and_the_argument() -> None:
    provider = ScriptedProvider(
        [
            ProviderResponse(
                tool_calls=[
                    ToolCall(id="bad_type", name="add", arguments={"a": "two", "b": 3}),
                    ToolCall(id="missing", name="add", arguments={"a": 1}),
                    ToolCall(id="extra", name="add", arguments={"a": 1, "b": 2, "c": 3}),
                    ToolCall(id="coerced", name="add", arguments={"a": "4", "b": 5}),
                ]
            ),
            "done",
        ]
    )
    agent = Agent("api", provider=provider, tools=[add])
    ran: list[str] = []
    sources: list[tuple[str, str]] = []
    agent.on("pre_tool_call", lambda c: ran.append(c.tool_call_id))
    agent.on("on_tool_call_error", lambda c: sources.append((c.tool_call_id, c.source)))

    await agent.chat("go")

    assert provider.requests[1].messages[-4:] == [
        answered(
            "bad_type",
            "add",
            "invalid arguments for tool 'add': a: Input should be a "
            "valid integer, unable to parse string as an integer",
            is_error=True,
        ),
        answered(
            "missing", "add", "invalid arguments for tool 'add': b: Field required", is_error=True
        ),
        answered(
            "extra",
            "add",
            "invalid arguments for tool 'add': c: Extra inputs are not permitted",
            is_error=True,
        ),
        answered("coerced", "add", "9"),
    ]
    assert ran == ["coerced"]  # pre_tool_call runs only after the arguments validate
    assert sources == [
        ("bad_type", "validation"),
        ("missing", "validation"),
        ("extra", "validation"),
    ]


async def test_an_unknown_tool_gets_an_error_naming_the_offered_tools() -> None:
    provider = ScriptedProvider([ask("multiply", a=1), "done"])
    agent = Agent("api", provider=provider, tools=[add])
    await agent.scopes.register(Scope("more", tools=[tool(lambda: "x")]))

    await agent.chat("go")

    assert provider.requests[1].messages[-1] == answered(
        "c1", "multiply", 'unknown tool "multiply"; the tools are: add, <lambda>', is_error=True
    )
