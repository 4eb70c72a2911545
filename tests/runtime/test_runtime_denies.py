"""Every Deny of a real run: where it fires, what the caller gets, what history keeps, and
which events still close the run."""

from __future__ import annotations

from typing import Any

from agenthooks import (
    Agent,
    AgentResponse,
    ChatMessage,
    Deny,
    ProviderResponse,
    ScriptedProvider,
    ToolCall,
    tool,
)

RAN: list[str] = []


@tool
def secret(name: str) -> str:
    """Read a secret."""
    RAN.append(name)
    return f"the secret of {name}"


CALL = ToolCall(id="c1", name="secret", arguments={"name": "vault"})
ASK = ProviderResponse(content="Let me look.", tool_calls=[CALL], finish_reason="tool_calls")
USER = ChatMessage(role="user", content="tell me")
ASSISTANT = ChatMessage(role="assistant", content="Let me look.", tool_calls=[CALL])


def make_agent(*script: ProviderResponse | str) -> tuple[Agent, ScriptedProvider]:
    RAN.clear()
    provider = ScriptedProvider(list(script))
    return Agent("guarded", "Be careful.", provider=provider, tools=[secret]), provider


def denied(reason: str, messages: list[ChatMessage], iterations: int) -> AgentResponse:
    return AgentResponse(
        content=reason,
        finish_reason="denied",
        messages=messages,
        iterations=iterations,
        agent="guarded",
    )


START = ["on_chat_start", "on_user_message", "on_message", "pre_agent"]
TURN = ["on_loop_start", "transform_context", "pre_request", "on_response"]
END = ["on_chat_done", "on_chat_end"]


# before the agent works -------------------------------------------------------------------


async def test_on_chat_start_deny_ends_the_run_before_anything_else(recorder: Any) -> None:
    agent, provider = make_agent("never")
    recorder.attach(agent)
    agent.on("onChatStart", lambda ctx: Deny("closed for maintenance"))

    response = await agent.chat("tell me")

    assert response == denied("closed for maintenance", [], 0)
    assert recorder.names == ["on_chat_start", *END]
    assert agent.history == []
    assert provider.requests == []
    assert recorder.of("on_chat_done")[0].response == response


async def test_a_deny_without_reason_reads_denied_outside_tools() -> None:
    agent, _ = make_agent("never")
    agent.on("on_chat_start", lambda ctx: Deny())
    response = await agent.chat("tell me")
    assert (response.content, response.finish_reason) == ("denied", "denied")


async def test_on_user_message_deny_keeps_the_message_out_of_history(recorder: Any) -> None:
    agent, provider = make_agent("never")
    recorder.attach(agent)
    agent.on("OnUserMessage", lambda ctx: Deny(f"refused: {ctx.message}"))

    response = await agent.chat("tell me")

    assert response == denied("refused: tell me", [], 0)
    assert recorder.names == ["on_chat_start", "on_user_message", *END]
    assert agent.history == []
    assert provider.requests == []


async def test_on_user_message_rewrite_is_what_history_and_the_model_get(recorder: Any) -> None:
    agent, provider = make_agent("ok")
    recorder.attach(agent)
    agent.on("on_user_message", lambda ctx: {"message": ctx.message.upper() + "!"})
    agent.on("on_user_message", lambda ctx: {"message": f"[{ctx.message}]"})

    response = await agent.chat("tell me")

    rewritten = ChatMessage(role="user", content="[TELL ME!]")
    assert provider.requests[0].messages == [rewritten]
    assert agent.history == [rewritten, ChatMessage(role="assistant", content="ok")]
    assert recorder.of("on_message")[0].message == rewritten
    assert recorder.of("pre_agent")[0].input == "[TELL ME!]"
    assert recorder.of("post_agent")[0].input == "[TELL ME!]"
    assert response.messages == agent.history


async def test_pre_agent_deny_keeps_the_user_message(recorder: Any) -> None:
    agent, provider = make_agent("never")
    recorder.attach(agent)
    agent.on("BeforeAgent", lambda ctx: Deny("agent offline"))

    response = await agent.chat("tell me")

    assert response == denied("agent offline", [USER], 0)
    assert recorder.names == START + END  # no turn, no post_agent
    assert [ctx.message for ctx in recorder.of("on_message")] == [USER]
    assert agent.history == [USER]
    assert provider.requests == []


async def test_pre_agent_response_short_circuit_is_committed_after_post_agent(
    recorder: Any,
) -> None:
    agent, provider = make_agent("never")
    recorder.attach(agent)
    agent.on("pre_agent", lambda ctx: {"response": AgentResponse(content="from cache")})

    response = await agent.chat("tell me")

    cached = ChatMessage(role="assistant", content="from cache")
    assert recorder.names == [*START, "post_agent", "on_message", *END]
    assert recorder.of("post_agent")[0].response.content == "from cache"
    assert [ctx.message for ctx in recorder.of("on_message")] == [USER, cached]
    assert agent.history == [USER, cached]
    assert response == AgentResponse(
        content="from cache",
        finish_reason="stop",
        messages=[USER, cached],
        iterations=0,
        agent="guarded",
    )
    assert provider.requests == []


async def test_post_agent_deny_of_a_pre_agent_short_circuit_leaves_no_answer(recorder: Any) -> None:
    agent, _ = make_agent()
    recorder.attach(agent)
    agent.on("pre_agent", lambda ctx: {"response": AgentResponse(content="from cache")})
    agent.on("post_agent", lambda ctx: Deny("stale"))

    response = await agent.chat("tell me")

    assert response == denied("stale", [USER], 0)
    assert recorder.names == [*START, "post_agent", *END]
    assert agent.history == [USER]


# after the agent worked -------------------------------------------------------------------


async def test_post_agent_deny_withholds_the_final_answer(recorder: Any) -> None:
    agent, _ = make_agent(ASK, "The secret is 42.")
    recorder.attach(agent)
    agent.on(
        "AfterAgent",
        lambda ctx: Deny("leak blocked") if "secret" in (ctx.response.content or "") else None,
    )

    response = await agent.chat("tell me")

    tool_msg = ChatMessage(
        role="tool", content="the secret of vault", tool_call_id="c1", name="secret"
    )
    assert response == denied("leak blocked", [USER, ASSISTANT, tool_msg], 2)
    assert agent.history == [USER, ASSISTANT, tool_msg]
    assert [ctx.message for ctx in recorder.of("on_message")] == [USER, ASSISTANT, tool_msg]
    assert recorder.names[-3:] == ["post_agent", *END]
    assert recorder.names[-5:-3] == ["on_response", "on_loop_end"]


async def test_post_agent_transform_is_what_history_and_on_message_get(recorder: Any) -> None:
    agent, _ = make_agent("The answer is 42.")
    recorder.attach(agent)

    def polite(ctx: Any) -> dict[str, Any]:
        return {
            "response": ctx.response.model_copy(
                update={"content": ctx.response.content + " Have a nice day."}
            )
        }

    agent.on("post_agent", polite)
    response = await agent.chat("tell me")

    final = ChatMessage(role="assistant", content="The answer is 42. Have a nice day.")
    assert response.content == "The answer is 42. Have a nice day."
    assert response.finish_reason == "stop"
    assert agent.history == [USER, final]
    assert recorder.of("on_message")[-1].message == final
    assert recorder.of("on_chat_done")[0].response == response


async def test_pre_request_deny_ends_the_run_without_a_call(recorder: Any) -> None:
    agent, provider = make_agent(ASK, "never")
    recorder.attach(agent)
    agent.on("pre_request", lambda ctx: Deny("no second call") if ctx.iteration == 1 else None)

    response = await agent.chat("tell me")

    tool_msg = ChatMessage(
        role="tool", content="the secret of vault", tool_call_id="c1", name="secret"
    )
    assert response == denied("no second call", [USER, ASSISTANT, tool_msg], 2)
    assert len(provider.requests) == 1
    assert recorder.names[-6:] == [
        "on_loop_start",
        "transform_context",
        "pre_request",
        "on_loop_end",
        *END,
    ]
    assert "post_agent" not in recorder.names  # a run-ending deny goes straight to on_chat_done
    assert agent.history == [USER, ASSISTANT, tool_msg]


async def test_on_response_deny_discards_the_response_and_runs_no_tool(recorder: Any) -> None:
    agent, _ = make_agent(ASK)
    recorder.attach(agent)
    agent.on("PostModelCall", lambda ctx: Deny("unsafe plan") if ctx.response.tool_calls else None)

    response = await agent.chat("tell me")

    assert response == denied("unsafe plan", [USER], 1)
    assert RAN == []
    assert agent.history == [USER]
    assert recorder.names == [*START, *TURN, "on_loop_end", *END]
    assert [ctx.message for ctx in recorder.of("on_message")] == [USER]


# tools -----------------------------------------------------------------------------------


async def test_pre_tool_call_deny_is_the_tool_message_the_model_reads(recorder: Any) -> None:
    agent, provider = make_agent(
        ProviderResponse(
            tool_calls=[CALL, ToolCall(id="c2", name="secret", arguments={"name": "diary"})]
        ),
        "I may not read those.",
    )
    recorder.attach(agent)
    agent.on(
        "PreToolUse",
        lambda ctx: (
            Deny() if ctx.call.arguments["name"] == "vault" else Deny("diaries are private")
        ),
    )

    response = await agent.chat("tell me")

    assert RAN == []
    assert response.finish_reason == "stop"
    assert provider.requests[1].messages[2:] == [
        ChatMessage(
            role="tool",
            content='Tool call "secret" was denied',
            tool_call_id="c1",
            is_error=True,
            name="secret",
        ),
        ChatMessage(
            role="tool",
            content="diaries are private",
            tool_call_id="c2",
            is_error=True,
            name="secret",
        ),
    ]
    errors = recorder.of("on_tool_call_error")
    assert [(e.tool_call_id, e.source, e.error) for e in errors] == [
        ("c1", "denied", 'Tool call "secret" was denied'),
        ("c2", "denied", "diaries are private"),
    ]
    assert recorder.of("on_tool_call_result") == []
    assert recorder.names[4:15] == [
        *TURN,
        "on_message",
        "pre_tool_call",
        "on_tool_call_error",
        "on_message",
        "pre_tool_call",
        "on_tool_call_error",
        "on_message",
    ]


async def test_on_tool_call_result_deny_never_uses_the_result(recorder: Any) -> None:
    agent, provider = make_agent(ASK, "ok")
    recorder.attach(agent)
    agent.on("PostToolUse", lambda ctx: Deny("result withheld"))

    await agent.chat("tell me")

    assert RAN == ["vault"]  # the tool ran; its result is never used
    assert provider.requests[1].messages[2] == ChatMessage(
        role="tool", content="result withheld", tool_call_id="c1", is_error=True, name="secret"
    )
    assert recorder.of("on_tool_call_error") == []
    assert recorder.names[8:12] == [
        "on_message",
        "pre_tool_call",
        "on_tool_call_result",
        "on_message",
    ]
    assert "the secret of vault" not in str([m.content for m in agent.history])


async def test_on_tool_call_result_deny_without_reason_names_the_tool() -> None:
    agent, provider = make_agent(ASK, "ok")
    agent.on("on_tool_call_result", lambda ctx: Deny())
    await agent.chat("tell me")
    assert provider.requests[1].messages[2].content == 'Tool call "secret" was denied'


async def test_post_agent_deny_after_a_stopped_run_changes_only_the_response(recorder: Any) -> None:
    agent, _ = make_agent(ASK, "never")
    recorder.attach(agent)
    agent.on("should_stop", lambda ctx: True)
    agent.on("post_agent", lambda ctx: Deny("not this time"))

    response = await agent.chat("tell me")

    tool_msg = ChatMessage(
        role="tool", content="the secret of vault", tool_call_id="c1", name="secret"
    )
    # the tool-call message was committed with its results: the deny cannot take it back
    assert response == denied("not this time", [USER, ASSISTANT, tool_msg], 1)
    assert agent.history == [USER, ASSISTANT, tool_msg]
    assert recorder.names[-5:] == ["prepare_next_turn", "should_stop", "post_agent", *END]


async def test_on_event_records_a_deny() -> None:
    agent, _ = make_agent(ASK, "ok")
    records: list[Any] = []
    agent.on("on_event", records.append)
    agent.on("pre_tool_call", lambda ctx: Deny("vault is sealed"))

    await agent.chat("tell me")

    (pre,) = [r for r in records if r.type == "pre_tool_call"]
    (err,) = [r for r in records if r.type == "on_tool_call_error"]
    assert (pre.is_error, pre.denied, pre.tool_call_id, pre.tool_name) == (
        True,
        "vault is sealed",
        "c1",
        "secret",
    )
    assert (err.is_error, err.error, err.tool_call_id) == (True, "vault is sealed", "c1")
    assert [r.type for r in records if r.is_error] == ["pre_tool_call", "on_tool_call_error"]
