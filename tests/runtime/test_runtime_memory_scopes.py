"""Agent memory (``ToolContext.memory``) and its events; tool scopes registered, unregistered
and disabled at runtime, with their events and what the model is offered."""

from __future__ import annotations

from typing import Any

import pytest

from agenthooks import (
    Agent,
    ChatMessage,
    HookBus,
    Memory,
    ProviderResponse,
    RegistrationError,
    Scope,
    ScriptedProvider,
    ToolCall,
    ToolContext,
    tool,
)
from agenthooks.events.contexts import EventContext


def ask(*calls: tuple[str, str, dict[str, Any]]) -> ProviderResponse:
    return ProviderResponse(
        finish_reason="tool_calls",
        tool_calls=[ToolCall(id=i, name=n, arguments=a) for i, n, a in calls],
    )


def answered(call_id: str, name: str, content: str, *, is_error: bool = False) -> ChatMessage:
    return ChatMessage(
        role="tool", content=content, tool_call_id=call_id, name=name, is_error=is_error
    )


def recorder(bus: HookBus, *events: str) -> list[tuple[str, EventContext]]:
    seen: list[tuple[str, EventContext]] = []
    for name in events:
        bus.on(name, lambda ctx, name=name: seen.append((name, ctx)))
    return seen


# ----------------------------------------------------------------------------- memory


@tool
async def remember(key: str, value: str, ctx: ToolContext) -> str:
    """Store a fact."""
    assert ctx.memory is not None
    await ctx.memory.set(key, value)
    return f"stored {key}"


@tool
async def recall(key: str, ctx: ToolContext) -> str:
    """Read a fact."""
    assert ctx.memory is not None
    value: str = await ctx.memory.get(key)
    return value


def memory_agent(memory: Memory, script: list[Any]) -> tuple[Agent, ScriptedProvider]:
    provider = ScriptedProvider(script)
    return Agent("keeper", provider=provider, memory=memory, tools=[remember, recall]), provider


async def test_tool_memory_writes_and_reads_fire_events_with_the_runs_context() -> None:
    memory = Memory()
    agent, provider = memory_agent(
        memory,
        [
            ask(("c1", "remember", {"key": "city", "value": "Lyon"})),
            ask(("c2", "recall", {"key": "city"})),
            "You live in Lyon.",
        ],
    )
    seen = recorder(
        agent.bus, "on_chat_start", "on_memory_write", "on_memory_read", "on_memory_error"
    )

    await agent.chat("Remember I live in Lyon, then tell me.")

    run_id = seen[0][1].run_id
    rows = [
        (
            n,
            c.key,
            c.value,
            c.operation,
            c.run_id,
            c.branch,
            c.agent,  # type: ignore[attr-defined]
            c.iteration,
            c.session_id,
        )
        for n, c in seen[1:]
    ]
    assert rows == [
        ("on_memory_write", "city", "Lyon", "write", run_id, "keeper", "keeper", 0, None),
        ("on_memory_read", "city", "Lyon", "read", run_id, "keeper", "keeper", 1, None),
    ]
    assert memory.store == {"city": "Lyon"}
    assert "city" in memory
    assert provider.requests[1].messages[-1] == answered("c1", "remember", "stored city")
    assert provider.requests[2].messages[-1] == answered("c2", "recall", "Lyon")
    assert [t["function"]["parameters"]["properties"] for t in provider.requests[0].tools] == [
        {"key": {"title": "Key", "type": "string"}, "value": {"title": "Value", "type": "string"}},
        {"key": {"title": "Key", "type": "string"}},
    ]  # the ToolContext parameter is injected, never offered to the model


async def test_reading_a_missing_key_fires_memory_error_then_the_tool_fails() -> None:
    agent, provider = memory_agent(
        Memory(), [ask(("c1", "recall", {"key": "pet"})), "I do not know your pet."]
    )
    seen = recorder(agent.bus, "on_memory_read", "on_memory_error", "on_tool_call_error")

    response = await agent.chat("What is my pet's name?")

    assert [n for n, _ in seen] == ["on_memory_error", "on_tool_call_error"]
    failed, tool_error = seen[0][1], seen[1][1]
    assert (failed.operation, failed.key, failed.branch) == (  # type: ignore[attr-defined]
        "read",
        "pet",
        "keeper",
    )
    assert isinstance(failed.error, KeyError)  # type: ignore[attr-defined]
    assert tool_error.error is failed.error  # type: ignore[attr-defined]
    assert tool_error.source == "handler"  # type: ignore[attr-defined]
    assert provider.requests[1].messages[-1] == answered(
        "c1", "recall", "KeyError: 'pet'", is_error=True
    )
    assert response.content == "I do not know your pet."


async def test_memory_is_shared_across_runs_and_a_sub_agent_gets_its_own_context() -> None:
    shared = Memory({"lang": "fr"})
    helper = Agent(
        "helper",
        provider=ScriptedProvider([ask(("h1", "recall", {"key": "lang"})), "fr"]),
        memory=shared,
        tools=[recall],
    )
    lead = Agent(
        "lead",
        provider=ScriptedProvider([ask(("l1", "helper", {"task": "lang?"})), "French."]),
        sub_agents=[helper],
    )
    seen = recorder(lead.bus, "on_chat_start", "on_memory_read")

    await lead.chat("Which language?")

    runs = {c.branch: c.run_id for n, c in seen if n == "on_chat_start"}
    reads = [
        (c.key, c.value, c.branch, c.agent, c.run_id, c.parent_run_id)  # type: ignore[attr-defined]
        for n, c in seen
        if n == "on_memory_read"
    ]
    assert reads == [("lang", "fr", "lead/helper", "helper", runs["lead/helper"], runs["lead"])]


async def test_memory_outside_a_run_fires_on_the_bus_it_was_given() -> None:
    bus = HookBus()
    seen = recorder(bus, "on_memory_write", "on_memory_read", "on_memory_error")
    memory = Memory(bus=bus)

    await memory.set("a", 1)
    assert await memory.get("a") == 1
    assert await memory.get("b", "fallback") == "fallback"
    with pytest.raises(KeyError):
        await memory.get("missing")
    await memory.delete("a")
    with pytest.raises(KeyError):
        await memory.delete("a")

    rows = [
        (n, c.key, c.value, c.operation, c.run_id, c.agent)  # type: ignore[attr-defined]
        for n, c in seen
    ]
    assert rows == [
        ("on_memory_write", "a", 1, "write", "", ""),
        ("on_memory_read", "a", 1, "read", "", ""),
        ("on_memory_read", "b", "fallback", "read", "", ""),
        ("on_memory_error", "missing", None, "read", "", ""),
        ("on_memory_write", "a", None, "delete", "", ""),
        ("on_memory_error", "a", None, "delete", "", ""),
    ]
    assert all(
        isinstance(c.error, KeyError)
        for n, c in seen  # type: ignore[attr-defined]
        if n == "on_memory_error"
    )
    assert memory.store == {}


async def test_memory_without_a_bus_fires_nothing_and_still_works() -> None:
    memory = Memory()
    await memory.set("k", [1, 2])
    assert await memory.get("k") == [1, 2]


# ----------------------------------------------------------------------------- scopes


@tool
def read_file(path: str) -> str:
    """Read a file."""
    return f"contents of {path}"


@tool
def list_dir(path: str) -> list[str]:
    """List a directory."""
    return [f"{path}/a.txt", f"{path}/b.txt"]


async def test_register_fires_scope_register_and_offers_the_tools_next_request() -> None:
    provider = ScriptedProvider(
        ["before", ask(("c1", "read_file", {"path": "notes"})), "read it", "after"]
    )
    agent = Agent("worker", provider=provider)
    seen = recorder(agent.bus, "on_scope_register", "on_scope_unregister")
    fs = Scope("fs", tools=[read_file, list_dir])

    await agent.chat("one")
    await agent.scopes.register(fs)
    await agent.chat("two")
    removed = await agent.scopes.unregister("fs")
    await agent.chat("three")

    assert [
        (n, c.scope, c.agent, c.branch, c.run_id, c.session_id)  # type: ignore[attr-defined]
        for n, c in seen
    ] == [
        ("on_scope_register", fs, "worker", "worker", "", None),
        ("on_scope_unregister", fs, "worker", "worker", "", None),
    ]
    assert removed is fs
    offered = [[t["function"]["name"] for t in r.tools] for r in provider.requests]
    assert offered == [[], ["read_file", "list_dir"], ["read_file", "list_dir"], []]
    assert provider.requests[2].messages[-1] == answered("c1", "read_file", "contents of notes")
    assert "fs" not in agent.scopes


async def test_a_raising_scope_register_handler_reaches_the_caller() -> None:
    agent = Agent("worker")

    def veto(ctx: Any) -> None:
        raise PermissionError(f"scope {ctx.scope.name} is not allowed")

    agent.on("on_scope_register", veto)
    agent.on("on_scope_unregister", veto)

    with pytest.raises(PermissionError) as caught:
        await agent.scopes.register(Scope("fs", tools=[read_file]))
    assert str(caught.value) == "scope fs is not allowed"
    assert caught.value.__notes__ == [
        f"raised by handler {__name__}.{veto.__qualname__} of event 'on_scope_register'"
    ]
    # the event fires after the registration: the scope is in, as an observer saw it
    assert "fs" in agent.scopes
    with pytest.raises(PermissionError) as caught:
        await agent.scopes.unregister("fs")
    assert str(caught.value) == "scope fs is not allowed"
    assert "fs" not in agent.scopes


async def test_the_register_disposer_removes_the_scope_without_an_event() -> None:
    agent = Agent("worker")
    seen = recorder(agent.bus, "on_scope_unregister")
    dispose = await agent.scopes.register(Scope("fs", tools=[read_file]))

    dispose()
    dispose()

    assert "fs" not in agent.scopes
    assert seen == []


async def test_a_disabled_scopes_tool_is_not_offered_and_calling_it_fails() -> None:
    provider = ScriptedProvider([ask(("c1", "read_file", {"path": "x"})), "cannot read"])
    agent = Agent("worker", provider=provider)
    await agent.scopes.register(Scope("fs", tools=[read_file], enabled=False))
    await agent.scopes.register(Scope("dirs", tools=[list_dir]))
    seen = recorder(agent.bus, "pre_tool_call", "on_tool_call_error", "on_tool_call_result")
    ran: list[str] = []
    agent.on("on_message", lambda c: ran.append(c.message.role))

    await agent.chat("read x")

    assert [t["function"]["name"] for t in provider.requests[0].tools] == ["list_dir"]
    assert [n for n, _ in seen] == ["on_tool_call_error"]
    error = seen[0][1]
    assert (error.source, error.tool, str(error.error)) == (  # type: ignore[attr-defined]
        "disabled",
        read_file,
        'tool "read_file" is disabled (scope "fs")',
    )
    assert provider.requests[1].messages[-1] == answered(
        "c1", "read_file", 'tool "read_file" is disabled (scope "fs")', is_error=True
    )


async def test_enabling_a_scope_between_chats_changes_what_is_offered() -> None:
    provider = ScriptedProvider(["a", "b"])
    agent = Agent("worker", provider=provider)
    fs = Scope("fs", tools=[read_file])
    await agent.scopes.register(fs)

    fs.enabled = False
    await agent.chat("one")
    fs.enabled = True
    await agent.chat("two")

    assert [[t["function"]["name"] for t in r.tools] for r in provider.requests] == [
        [],
        ["read_file"],
    ]


async def test_unregistering_an_unknown_scope_names_the_available_scopes() -> None:
    agent = Agent("worker", sub_agents=[Agent("helper")])
    await agent.scopes.register(Scope("fs", tools=[read_file]))

    with pytest.raises(RegistrationError) as caught:
        await agent.scopes.unregister("net")

    assert str(caught.value) == (
        "agent 'worker' has no scope 'net'; scopes: ['default', 'sub_agents', 'fs']"
    )


async def test_registering_a_scope_name_twice_is_a_registration_error() -> None:
    agent = Agent("worker")
    seen = recorder(agent.bus, "on_scope_register")
    await agent.scopes.register(Scope("fs", tools=[read_file]))

    with pytest.raises(RegistrationError, match="^agent 'worker' already has a scope 'fs'$"):
        await agent.scopes.register(Scope("fs", tools=[list_dir]))

    assert len(seen) == 1
    assert list(agent.scopes["fs"].tools) == ["read_file"]
