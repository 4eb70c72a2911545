"""Short-circuits, rewrites, recoveries, matchers, aliases and guards in real runs."""

from __future__ import annotations

import re
from typing import Any

import pytest

from agenthooks import (
    Agent,
    ChatMessage,
    Deny,
    MaxTurnsExceeded,
    ProviderResponse,
    Scope,
    ScriptedProvider,
    ToolCall,
    tool,
)
from agenthooks.errors import UnknownToolError

RAN: list[tuple[str, Any]] = []


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    RAN.append(("add", (a, b)))
    return a + b


@tool
def profile(user: str) -> dict[str, str]:
    """A user's profile."""
    RAN.append(("profile", user))
    return {"name": user, "ssn": "078-05-1120"}


@tool
def explode(why: str) -> str:
    """Always fails."""
    RAN.append(("explode", why))
    raise ValueError(f"boom: {why}")


@tool
def fs_read(path: str) -> str:
    """Read a file."""
    RAN.append(("fs_read", path))
    return f"<{path}>"


@tool
def fs_write(path: str, text: str) -> str:
    """Write a file."""
    RAN.append(("fs_write", path))
    return "written"


@tool
def web_get(url: str) -> str:
    """Fetch a URL."""
    RAN.append(("web_get", url))
    return "<html/>"


def ask(*calls: tuple[str, str, dict[str, Any]], content: str | None = None) -> ProviderResponse:
    """A response asking for tools: (id, name, arguments) each."""
    return ProviderResponse(
        content=content,
        finish_reason="tool_calls",
        tool_calls=[ToolCall(id=i, name=n, arguments=a) for i, n, a in calls],
    )


def make_agent(*script: Any, **options: Any) -> tuple[Agent, ScriptedProvider]:
    RAN.clear()
    provider = ScriptedProvider(list(script))
    tools = [add, profile, explode, fs_read, fs_write, web_get]
    return Agent("worker", "Work.", provider=provider, tools=tools, **options), provider


def tool_msg(id: str, name: str, content: str, is_error: bool = False) -> ChatMessage:
    return ChatMessage(role="tool", content=content, tool_call_id=id, name=name, is_error=is_error)


def tool_messages(messages: list[ChatMessage]) -> list[ChatMessage]:
    return [m for m in messages if m.role == "tool"]


# pre_request / on_response ----------------------------------------------------------------


async def test_pre_request_cache_hit_skips_the_provider(recorder: Any) -> None:
    agent, provider = make_agent()  # an empty script: any call would raise
    recorder.attach(agent)
    agent.on("preRequest", lambda ctx: {"response": ProviderResponse(content="cached")})
    skipped: list[str] = []
    agent.on("pre_request", lambda ctx: skipped.append("ran"))

    response = await agent.chat("hi")

    assert (response.content, response.finish_reason, response.iterations) == ("cached", "stop", 1)
    assert provider.requests == []
    assert skipped == []  # the short-circuit skips the rest of the ordinary chain
    assert recorder.of("on_response")[0].response == ProviderResponse(content="cached")
    assert recorder.names.count("on_loop_start") == 1


async def test_a_cache_hit_still_counts_as_a_turn() -> None:
    agent, provider = make_agent(max_turns=1)
    agent.on("pre_request", lambda ctx: {"response": ask(("c1", "add", {"a": 1, "b": 1}))})

    with pytest.raises(MaxTurnsExceeded):
        await agent.chat("hi")

    assert provider.requests == []
    assert RAN == [("add", (1, 1))]


async def test_pre_request_request_rewrite_reaches_the_provider() -> None:
    agent, provider = make_agent("ok")

    def rewrite(ctx: Any) -> dict[str, Any]:
        note = ChatMessage(role="user", content="(answer in French)")
        return {
            "request": ctx.request.model_copy(
                update={
                    "temperature": 0.2,
                    "model": "tiny",
                    "messages": [*ctx.request.messages, note],
                }
            )
        }

    agent.on("pre_request", rewrite)
    await agent.chat("hi")

    sent = provider.requests[0]
    assert (sent.temperature, sent.model, sent.system) == (0.2, "tiny", "Work.")
    assert sent.messages == [
        ChatMessage(role="user", content="hi"),
        ChatMessage(role="user", content="(answer in French)"),
    ]
    # only the request changed, never the stored history
    assert agent.history == [
        ChatMessage(role="user", content="hi"),
        ChatMessage(role="assistant", content="ok"),
    ]


async def test_on_response_seed_000_trim_then_uppercase(recorder: Any) -> None:
    agent, _ = make_agent("  hello world \n")
    recorder.attach(agent)

    def trim(ctx: Any) -> dict[str, Any]:
        return {"response": {**ctx.response.model_dump(), "content": ctx.response.content.strip()}}

    async def upper(ctx: Any) -> dict[str, Any]:
        # runs after the trim hook, sees the trimmed content
        return {
            "response": ctx.response.model_copy(update={"content": ctx.response.content.upper()})
        }

    agent.on("onResponse", trim)
    agent.on("onResponse", upper)
    response = await agent.chat("hi")

    assert response.content == "HELLO WORLD"
    assert agent.history[-1] == ChatMessage(role="assistant", content="HELLO WORLD")
    assert recorder.of("post_agent")[0].response.content == "HELLO WORLD"


async def test_on_response_can_drop_a_tool_call_before_it_runs() -> None:
    agent, provider = make_agent(
        ask(("c1", "add", {"a": 1, "b": 2}), ("c2", "fs_write", {"path": "/etc/x", "text": "!"})),
        "done",
    )

    def no_writes(ctx: Any) -> dict[str, Any]:
        keep = [c for c in ctx.response.tool_calls if c.name != "fs_write"]
        return {"response": ctx.response.model_copy(update={"tool_calls": keep})}

    agent.on("on_response", no_writes)
    await agent.chat("hi")

    assert RAN == [("add", (1, 2))]
    assert provider.requests[1].messages[1].tool_calls == [
        ToolCall(id="c1", name="add", arguments={"a": 1, "b": 2})
    ]
    assert tool_messages(agent.history) == [tool_msg("c1", "add", "3")]


# on_model_error ---------------------------------------------------------------------------


async def test_on_model_error_recovers_from_a_provider_exception(recorder: Any) -> None:
    failure = ConnectionResetError("upstream down")
    agent, provider = make_agent(failure)
    recorder.attach(agent)
    agent.on(
        "OnModelError",
        lambda ctx: {"response": ProviderResponse(content=f"fallback after {ctx.error}")},
    )
    later: list[str] = []
    agent.on("on_model_error", lambda ctx: later.append("ran"))

    response = await agent.chat("hi")

    assert response.content == "fallback after upstream down"
    assert response.finish_reason == "stop"
    assert later == []  # the first recovery wins
    assert recorder.of("on_model_error")[0].error is failure
    assert recorder.names[4:9] == [
        "on_loop_start",
        "transform_context",
        "pre_request",
        "on_model_error",
        "on_response",
    ]
    assert recorder.of("on_response")[0].response.content == "fallback after upstream down"
    assert len(provider.requests) == 1


async def test_on_model_error_replacement_reaches_the_caller(recorder: Any) -> None:
    class FriendlyError(Exception):
        pass

    failure = ConnectionResetError("upstream down")
    agent, _ = make_agent(failure)
    recorder.attach(agent)
    agent.on("on_model_error", lambda ctx: {"error": FriendlyError("try later")})
    seen: list[Any] = []
    agent.on("on_model_error", lambda ctx: seen.append(ctx.error))  # replacements keep draining

    with pytest.raises(FriendlyError, match="^try later$") as caught:
        await agent.chat("hi")

    assert caught.value.__cause__ is failure
    assert seen == [caught.value]
    assert recorder.of("on_chat_error")[0].error is caught.value
    assert recorder.names[-4:] == ["pre_request", "on_model_error", "on_chat_error", "on_chat_end"]
    assert "on_response" not in recorder.names
    assert recorder.of("on_chat_end")[0].error is caught.value


async def test_an_unhandled_provider_exception_reaches_the_caller_unchanged(recorder: Any) -> None:
    failure = ConnectionResetError("upstream down")
    agent, _ = make_agent(failure)
    recorder.attach(agent)

    with pytest.raises(ConnectionResetError) as caught:
        await agent.chat("hi")

    assert caught.value is failure
    assert recorder.of("on_model_error")[0].error is failure
    assert recorder.names[-3:] == ["on_model_error", "on_chat_error", "on_chat_end"]
    assert agent.history == [ChatMessage(role="user", content="hi")]


# pre_tool_call ----------------------------------------------------------------------------


async def test_pre_tool_call_result_short_circuit_skips_the_tool(recorder: Any) -> None:
    agent, provider = make_agent(ask(("c1", "profile", {"user": "ann"})), "ok")
    recorder.attach(agent)
    agent.on("pre_tool_call", lambda ctx: {"result": {"name": "ann", "cached": True}})

    await agent.chat("hi")

    assert RAN == []
    assert provider.requests[1].messages[2] == tool_msg(
        "c1", "profile", '{"name": "ann", "cached": true}'
    )
    assert recorder.of("on_tool_call_result")[0].result == {"name": "ann", "cached": True}
    assert recorder.of("on_tool_call_error") == []


async def test_pre_tool_call_error_short_circuit_is_an_error_the_model_reads(recorder: Any) -> None:
    agent, provider = make_agent(ask(("c1", "profile", {"user": "ann"})), "ok")
    recorder.attach(agent)
    agent.on("pre_tool_call", lambda ctx: {"error": PermissionError("profiles are locked")})

    await agent.chat("hi")

    assert RAN == []
    assert provider.requests[1].messages[2] == tool_msg(
        "c1", "profile", "profiles are locked", is_error=True
    )
    (error,) = recorder.of("on_tool_call_error")
    assert (error.source, str(error.error), error.tool_call_id) == (
        "denied",
        "profiles are locked",
        "c1",
    )
    assert recorder.of("on_tool_call_result") == []


async def test_pre_tool_call_call_rewrite_is_validated_again() -> None:
    agent, provider = make_agent(ask(("c1", "add", {"a": 1, "b": 2})), "ok")
    agent.on(
        "pre_tool_call",
        lambda ctx: {
            "call": ctx.call.model_copy(update={"arguments": {**ctx.call.arguments, "a": "40"}})
        },
    )
    seen: list[Any] = []
    agent.on("pre_tool_call", lambda ctx: seen.append(ctx.call.arguments))  # composes

    await agent.chat("hi")

    assert seen == [{"a": "40", "b": 2}]
    assert RAN == [("add", (40, 2))]  # coerced by the second validation
    assert provider.requests[1].messages[2] == tool_msg("c1", "add", "42")
    # the model's own call stays as it asked for it
    assert provider.requests[1].messages[1].tool_calls[0].arguments == {"a": 1, "b": 2}


async def test_an_invalid_call_rewrite_is_a_validation_error(recorder: Any) -> None:
    agent, provider = make_agent(ask(("c1", "add", {"a": 1, "b": 2})), "ok")
    recorder.attach(agent)
    agent.on(
        "pre_tool_call",
        lambda ctx: {"call": {"id": "c1", "name": "add", "arguments": {"a": "x", "b": 2}}},
    )

    await agent.chat("hi")

    text = (
        "invalid arguments for tool 'add': a: Input should be a valid integer, "
        "unable to parse string as an integer"
    )
    assert RAN == []
    assert provider.requests[1].messages[2] == tool_msg("c1", "add", text, is_error=True)
    assert [(e.source, str(e.error)) for e in recorder.of("on_tool_call_error")] == [
        ("validation", text)
    ]


# on_tool_call_result / on_tool_call_error -------------------------------------------------


async def test_on_tool_call_result_redaction_is_what_the_model_sees(recorder: Any) -> None:
    agent, provider = make_agent(ask(("c1", "profile", {"user": "ann"})), "ok")
    recorder.attach(agent)
    agent.on("AfterToolCall", lambda ctx: {"result": {**ctx.result, "ssn": "***"}}, match="profile")

    await agent.chat("hi")

    assert provider.requests[1].messages[2] == tool_msg(
        "c1", "profile", '{"name": "ann", "ssn": "***"}'
    )
    assert "078-05-1120" not in str(agent.history)
    assert recorder.of("on_tool_call_result")[0].result == {"name": "ann", "ssn": "***"}


async def test_on_tool_call_error_recovery_then_on_tool_call_result(recorder: Any) -> None:
    agent, provider = make_agent(ask(("c1", "explode", {"why": "x"})), "ok")
    recorder.attach(agent)
    agent.on("ToolError", lambda ctx: {"result": f"recovered from {ctx.error}"})
    later: list[str] = []
    agent.on("on_tool_call_error", lambda ctx: later.append("ran"))

    await agent.chat("hi")

    assert later == []  # the first recovery wins
    assert provider.requests[1].messages[2] == tool_msg("c1", "explode", "recovered from boom: x")
    (error,) = recorder.of("on_tool_call_error")
    assert (error.source, type(error.error), str(error.error)) == ("handler", ValueError, "boom: x")
    assert recorder.of("on_tool_call_result")[0].result == "recovered from boom: x"
    assert recorder.names[9:13] == [
        "pre_tool_call",
        "on_tool_call_error",
        "on_tool_call_result",
        "on_message",
    ]


async def test_on_tool_call_error_replacement_text_keeps_draining(recorder: Any) -> None:
    agent, provider = make_agent(ask(("c1", "explode", {"why": "x"})), "ok")
    recorder.attach(agent)
    agent.on("on_tool_call_error", lambda ctx: {"error": "the tool is flaky, try later"})
    seen: list[Any] = []
    agent.on("on_tool_call_error", lambda ctx: seen.append(ctx.error))

    await agent.chat("hi")

    assert seen == ["the tool is flaky, try later"]
    assert provider.requests[1].messages[2] == tool_msg(
        "c1", "explode", "the tool is flaky, try later", is_error=True
    )
    assert recorder.of("on_tool_call_result") == []


async def test_a_recovery_of_a_denied_call_is_ignored(recorder: Any) -> None:
    agent, provider = make_agent(ask(("c1", "add", {"a": 1, "b": 2})), "ok")
    recorder.attach(agent)
    agent.on("pre_tool_call", lambda ctx: Deny("math is forbidden"))
    agent.on("on_tool_call_error", lambda ctx: {"result": 3})
    after: list[Any] = []
    agent.on("on_tool_call_error", lambda ctx: after.append((ctx.source, ctx.result)))

    await agent.chat("hi")

    assert RAN == []
    assert after == [("denied", None)]  # ignored: counts as None and the chain goes on
    assert provider.requests[1].messages[2] == tool_msg(
        "c1", "add", "math is forbidden", is_error=True
    )
    assert recorder.of("on_tool_call_result") == []


async def test_terminate_stops_after_the_batch(recorder: Any) -> None:
    agent, provider = make_agent(
        ask(
            ("c1", "add", {"a": 1, "b": 2}),
            ("c2", "explode", {"why": "y"}),
            content="Working on it.",
        ),
        "never",
    )
    recorder.attach(agent)
    agent.on("on_tool_call_result", lambda ctx: {"terminate": True, "result": ctx.result * 10})
    agent.on("on_tool_call_error", lambda ctx: {"terminate": True})

    response = await agent.chat("hi")

    assert (response.content, response.finish_reason, response.iterations) == (
        "Working on it.",
        "terminated",
        1,
    )
    assert len(provider.requests) == 1
    assert RAN == [("add", (1, 2)), ("explode", "y")]  # the whole batch ran
    assert tool_messages(agent.history) == [
        tool_msg("c1", "add", "30"),
        tool_msg("c2", "explode", "ValueError: boom: y", is_error=True),
    ]
    assert recorder.names[-5:] == [
        "on_message",
        "on_loop_end",
        "post_agent",
        "on_chat_done",
        "on_chat_end",
    ]
    assert "prepare_next_turn" not in recorder.names
    assert "should_stop" not in recorder.names
    assert response.messages == agent.history  # the tool-call message stays committed


async def test_terminate_needs_every_call_of_the_batch() -> None:
    agent, provider = make_agent(
        ask(("c1", "add", {"a": 1, "b": 2}), ("c2", "fs_read", {"path": "a"})), "finished"
    )
    agent.on("on_tool_call_result", lambda ctx: {"terminate": True}, match="add")

    response = await agent.chat("hi")

    assert (response.content, response.finish_reason) == ("finished", "stop")
    assert len(provider.requests) == 2


# tool errors before the handler --------------------------------------------------------


async def test_unknown_disabled_and_invalid_calls_each_get_one_error_message(recorder: Any) -> None:
    @tool
    def rm(path: str) -> str:
        """Remove a file."""
        RAN.append(("rm", path))
        return "gone"

    agent, provider = make_agent(
        ask(
            ("c1", "nope", {}),
            ("c2", "rm", {"path": "/"}),
            ("c3", "add", {"a": 1}),
            ("c4", "add", {"a": 2, "b": 2}),
        ),
        "ok",
    )
    agent.scopes.add(Scope("danger", [rm], enabled=False))
    recorder.attach(agent)

    await agent.chat("hi")

    assert RAN == [("add", (2, 2))]
    assert "rm" not in [t["function"]["name"] for t in provider.requests[0].tools]
    offered = "add, profile, explode, fs_read, fs_write, web_get"
    assert provider.requests[1].messages[2:] == [
        tool_msg("c1", "nope", f'unknown tool "nope"; the tools are: {offered}', is_error=True),
        tool_msg("c2", "rm", 'tool "rm" is disabled (scope "danger")', is_error=True),
        tool_msg("c3", "add", "invalid arguments for tool 'add': b: Field required", is_error=True),
        tool_msg("c4", "add", "4"),
    ]
    errors = recorder.of("on_tool_call_error")
    assert [(e.tool_call_id, e.source) for e in errors] == [
        ("c1", "unknown_tool"),
        ("c2", "disabled"),
        ("c3", "validation"),
    ]
    assert isinstance(errors[0].error, UnknownToolError) and errors[0].tool is None
    assert errors[1].tool is rm and errors[1].scope.name == "danger"
    # pre_tool_call runs only for the call whose arguments validated
    assert [c.tool_call_id for c in recorder.of("pre_tool_call")] == ["c4"]
    # every call got exactly one tool message, in call order
    assert [m.tool_call_id for m in tool_messages(agent.history)] == ["c1", "c2", "c3", "c4"]


# matchers and aliases ---------------------------------------------------------------------


async def test_matchers_select_tool_events_by_name() -> None:
    agent, provider = make_agent(
        ask(
            ("c1", "fs_read", {"path": "a"}),
            ("c2", "web_get", {"url": "u"}),
            ("c3", "fs_write", {"path": "b", "text": "t"}),
            ("c4", "explode", {"why": "w"}),
        ),
        "ok",
    )
    by_regex: list[str] = []
    by_name: list[str] = []
    by_list: list[str] = []
    agent.on("PreToolUse", lambda ctx: by_regex.append(ctx.call.name), match=re.compile("^fs_"))
    agent.on("onToolEnd", lambda ctx: by_name.append(ctx.call.name), match="web_get")
    agent.on(
        "OnToolError",
        lambda ctx: by_list.append(ctx.call.name),
        match=["fs_write", re.compile("plo")],
    )
    agent.on("beforeToolCall", lambda ctx: Deny("read-only"), match=re.compile("write$"))

    await agent.chat("hi")

    assert by_regex == ["fs_read", "fs_write"]
    assert by_name == ["web_get"]
    assert by_list == ["fs_write", "explode"]
    assert [n for n, _ in RAN] == ["fs_read", "web_get", "explode"]
    assert provider.requests[1].messages[4] == tool_msg(
        "c3", "fs_write", "read-only", is_error=True
    )


ALIASES = {
    "beforeRun": "on_chat_start",
    "OnUserMessage": "on_user_message",
    "onMessage": "on_message",
    "onAgentStart": "pre_agent",
    "LoopStart": "on_loop_start",
    "TransformContext": "transform_context",
    "LlmCall": "pre_request",
    "ThinkEnd": "on_response",
    "BeforeToolCall": "pre_tool_call",
    "afterToolCall": "on_tool_call_result",
    "LoopEnd": "on_loop_end",
    "PrepareNextTurn": "prepare_next_turn",
    "ShouldStopAfterTurn": "should_stop",
    "onAgentEnd": "post_agent",
    "afterRun": "on_chat_done",
    "AfterRun": "on_chat_end",
}


async def test_seed_aliases_register_on_their_canonical_events(recorder: Any) -> None:
    agent, _ = make_agent(ask(("c1", "add", {"a": 1, "b": 2})), "3")
    recorder.attach(agent)
    fired: list[str] = []
    for alias in ALIASES:
        agent.on(alias, lambda ctx, alias=alias: fired.append(alias))

    await agent.chat("hi")

    assert [ALIASES[a] for a in fired] == recorder.names
    # the one trap: afterRun (004, success) is on_chat_done, AfterRun (003, always) on_chat_end
    assert fired[-2:] == ["afterRun", "AfterRun"]


# guards -----------------------------------------------------------------------------------


async def test_a_guard_runs_after_an_ordinary_cache_short_circuit() -> None:
    agent, provider = make_agent()
    cached = ProviderResponse(content="cached answer")
    agent.on("pre_request", lambda ctx: {"response": cached})
    seen: list[Any] = []

    def policy(ctx: Any) -> Deny | None:
        seen.append((ctx.short_circuit, ctx.response))
        return Deny("cache answers need review") if "cached" in ctx.response.content else None

    agent.on("pre_request", policy, guard=True)
    response = await agent.chat("hi")

    assert seen == [("response", cached)]
    assert (response.content, response.finish_reason) == ("cache answers need review", "denied")
    assert provider.requests == []
    assert agent.history == [ChatMessage(role="user", content="hi")]


async def test_a_guard_after_a_tool_recovery_sees_the_result(recorder: Any) -> None:
    agent, provider = make_agent(ask(("c1", "explode", {"why": "x"})), "ok")
    agent.on("on_tool_call_error", lambda ctx: {"result": "fine"})
    seen: list[Any] = []
    agent.on("on_tool_call_error", lambda ctx: seen.append((ctx.recovered, ctx.result)), guard=True)

    await agent.chat("hi")

    assert seen == [(True, "fine")]
    assert provider.requests[1].messages[2] == tool_msg("c1", "explode", "fine")


async def test_a_guard_after_a_model_recovery_sees_the_response() -> None:
    agent, _ = make_agent(RuntimeError("down"))
    fallback = ProviderResponse(content="fallback")
    agent.on("on_model_error", lambda ctx: {"response": fallback})
    seen: list[Any] = []
    agent.on("on_model_error", lambda ctx: seen.append(ctx.response), guard=True)

    response = await agent.chat("hi")

    assert seen == [fallback]
    assert response.content == "fallback"


# prepare_next_turn and transform_context --------------------------------------------------


async def test_prepare_next_turn_sets_model_and_thinking_of_the_next_request(recorder: Any) -> None:
    agent, provider = make_agent(
        ask(("c1", "add", {"a": 1, "b": 2})),
        ask(("c2", "add", {"a": 3, "b": 4})),
        "done",
        model="small",
    )
    recorder.attach(agent)
    agent.once("prepare_next_turn", lambda ctx: {"model": "large", "thinking": "high"})

    await agent.chat("hi")

    assert [(r.model, r.reasoning_effort) for r in provider.requests] == [
        ("small", None),
        ("large", "high"),
        ("large", "high"),
    ]  # absent keys keep the value
    turns = recorder.of("prepare_next_turn")
    assert [(t.model, t.thinking) for t in turns] == [("large", "high"), ("large", "high")]


async def test_prepare_next_turn_can_swap_the_provider() -> None:
    agent, first = make_agent(ask(("c1", "add", {"a": 1, "b": 2})))
    second = ScriptedProvider(["from the second provider"])
    agent.on("prepare_next_turn", lambda ctx: {"provider": second})

    response = await agent.chat("hi")

    assert response.content == "from the second provider"
    assert (len(first.requests), len(second.requests)) == (1, 1)


async def test_prepare_next_turn_messages_replace_the_working_transcript(recorder: Any) -> None:
    agent, provider = make_agent(
        ask(("c1", "add", {"a": 1, "b": 2})), ask(("c2", "add", {"a": 3, "b": 4})), "done"
    )
    recorder.attach(agent)
    summary = ChatMessage(role="user", content="Summary so far: 1+2=3.")
    agent.once("PrepareNextTurn", lambda ctx: {"messages": [summary]})

    response = await agent.chat("hi")

    call2 = ChatMessage(
        role="assistant", tool_calls=[ToolCall(id="c2", name="add", arguments={"a": 3, "b": 4})]
    )
    assert provider.requests[1].messages == [summary]
    assert provider.requests[2].messages == [summary, call2, tool_msg("c2", "add", "7")]
    full = [
        ChatMessage(role="user", content="hi"),
        ChatMessage(
            role="assistant", tool_calls=[ToolCall(id="c1", name="add", arguments={"a": 1, "b": 2})]
        ),
        tool_msg("c1", "add", "3"),
        call2,
        tool_msg("c2", "add", "7"),
        ChatMessage(role="assistant", content="done"),
    ]
    assert agent.history == full  # stored history stays append-only
    assert response.messages == full
    assert recorder.of("prepare_next_turn")[1].messages == [
        summary,
        call2,
        tool_msg("c2", "add", "7"),
    ]


async def test_transform_context_never_mutates_stored_history(recorder: Any) -> None:
    agent, provider = make_agent(ask(("c1", "profile", {"user": "ann"})), "ok")
    recorder.attach(agent)
    given: list[list[ChatMessage]] = []

    def redact(ctx: Any) -> dict[str, Any]:
        given.append(list(ctx.messages))
        return {
            "messages": [
                m.model_copy(update={"content": m.content.replace("078-05-1120", "X")})
                if m.role == "tool" and m.content
                else m
                for m in ctx.messages
            ]
        }

    agent.on("transform_context", redact)
    await agent.chat("hi")

    leaked = tool_msg("c1", "profile", '{"name": "ann", "ssn": "078-05-1120"}')
    assert provider.requests[1].messages[2] == tool_msg(
        "c1", "profile", '{"name": "ann", "ssn": "X"}'
    )
    assert agent.history[2] == leaked
    # each request starts again from the stored transcript, not from the last transform
    assert given[1] == agent.history[:3]
    assert recorder.of("prepare_next_turn")[0].messages[2] == leaked


async def test_transform_context_gets_a_new_list() -> None:
    agent, provider = make_agent("ok")
    agent.on("transform_context", lambda ctx: ctx.messages.clear())

    await agent.chat("hi")

    assert provider.requests[0].messages == []
    assert agent.history == [
        ChatMessage(role="user", content="hi"),
        ChatMessage(role="assistant", content="ok"),
    ]
