"""Sessions: a conversation that owns its history and fires the session events; many
Sessions share one Agent concurrently, while an Agent's own chats are serialized."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agenthooks import (
    Agent,
    ChatMessage,
    Deny,
    ProviderRequest,
    ProviderResponse,
    RunAborted,
    ScriptedProvider,
    Session,
    TextDelta,
    ToolCall,
    ToolContext,
    tool,
)
from agenthooks.events import CATALOG
from agenthooks.events.contexts import EventContext

SESSION_EVENTS = ("on_session_start", "on_session_end", "on_session_close")


def recorder(agent: Agent, events: tuple[str, ...] | None = None) -> list[tuple[str, EventContext]]:
    seen: list[tuple[str, EventContext]] = []
    for name in events or tuple(e for e in CATALOG if e != "on_event"):
        agent.on(name, lambda ctx, name=name: seen.append((name, ctx)))
    return seen


def names(seen: list[tuple[str, EventContext]]) -> list[str]:
    return [n for n, _ in seen]


def user(text: str) -> ChatMessage:
    return ChatMessage(role="user", content=text)


def said(text: str) -> ChatMessage:
    return ChatMessage(role="assistant", content=text)


def echo(request: ProviderRequest) -> str:
    """Answers with the last user message, so each conversation's content is traceable."""
    return f"echo: {request.messages[-1].content}"


RUN = [
    "on_chat_start",
    "on_user_message",
    "on_message",
    "pre_agent",
    "on_loop_start",
    "transform_context",
    "pre_request",
    "on_response",
    "on_loop_end",
    "post_agent",
    "on_message",
    "on_chat_done",
    "on_chat_end",
]


# -------------------------------------------------------------------------- lifecycle


async def test_session_owns_its_history_and_fires_session_start_on_the_first_chat_only() -> None:
    provider = ScriptedProvider(echo)
    agent = Agent("assistant", "Be kind.", provider=provider)
    seen = recorder(agent)
    session = Session(agent)

    first = await session.chat("one")
    second = await session.chat("two")

    assert names(seen) == ["on_session_start", *RUN, "on_session_end", *RUN, "on_session_end"]
    assert session.history == [user("one"), said("echo: one"), user("two"), said("echo: two")]
    assert agent.history == []  # the agent's own conversation is untouched
    assert provider.requests[1].messages == [user("one"), said("echo: one"), user("two")]
    assert (first.content, second.content) == ("echo: one", "echo: two")
    assert {ctx.session_id for _, ctx in seen} == {session.id}
    assert len({ctx.run_id for _, ctx in seen}) == 2
    session.history.append(user("tampered"))
    assert len(session.history) == 4  # a copy


async def test_session_can_start_from_a_given_history_and_id() -> None:
    provider = ScriptedProvider(["go on"])
    agent = Agent("assistant", provider=provider)
    earlier = [user("before"), said("noted")]
    session = Session(agent, session_id="conv-42", history=earlier)
    seen = recorder(agent, ("on_session_start",))

    await session.chat("next")

    assert provider.requests[0].messages == [*earlier, user("next")]
    assert [c.session_id for _, c in seen] == ["conv-42"]
    assert earlier == [user("before"), said("noted")]  # the list given is copied


async def test_session_start_deny_ends_this_and_every_later_chat_denied() -> None:
    provider = ScriptedProvider(echo)
    agent = Agent("assistant", provider=provider)
    seen = recorder(agent)
    agent.on("on_session_start", lambda c: Deny("account suspended"))
    session = Session(agent)

    first = await session.chat("hello")
    second = await session.chat("hello again")

    assert names(seen) == [
        "on_session_start",
        "on_chat_done",
        "on_chat_end",
        "on_session_end",
        "on_chat_done",
        "on_chat_end",
        "on_session_end",
    ]
    for response in (first, second):
        assert (response.content, response.finish_reason, response.messages) == (
            "account suspended",
            "denied",
            [],
        )
    done = [c for n, c in seen if n == "on_chat_done"]
    assert [c.response.content for c in done] == ["account suspended"] * 2  # type: ignore[attr-defined]
    assert provider.requests == []
    assert session.history == []
    assert session.denied == "account suspended"

    other = Session(agent)  # the deny belongs to that session, not to the agent
    agent.off("on_session_start", agent.bus.handlers("on_session_start")[-1])
    assert (await other.chat("hi")).content == "echo: hi"


async def test_session_end_fires_after_a_chat_that_raised() -> None:
    agent = Agent("assistant", provider=ScriptedProvider([RuntimeError("model down"), "ok"]))
    seen = recorder(agent, ("on_chat_error", "on_chat_end", "on_session_end"))
    session = Session(agent)

    with pytest.raises(RuntimeError, match="^model down$"):
        await session.chat("first")
    assert (await session.chat("second")).content == "ok"

    assert names(seen) == [
        "on_chat_error",
        "on_chat_end",
        "on_session_end",
        "on_chat_end",
        "on_session_end",
    ]
    assert session.history == [user("first"), user("second"), said("ok")]


async def test_close_fires_session_close_exactly_once() -> None:
    agent = Agent("assistant", provider=ScriptedProvider(["hi"]))
    seen = recorder(agent, SESSION_EVENTS)
    session = Session(agent, session_id="s-1")
    await session.chat("hello")

    await session.close()
    await session.close()

    assert [(n, c.session_id) for n, c in seen] == [
        ("on_session_start", "s-1"),
        ("on_session_end", "s-1"),
        ("on_session_close", "s-1"),
    ]
    close = seen[-1][1]
    assert (close.agent, close.branch, close.run_id) == ("assistant", "assistant", "")
    assert session.closed
    with pytest.raises(RuntimeError, match="^session s-1 is closed$"):
        await session.chat("after close")


async def test_async_with_closes_the_session_once() -> None:
    agent = Agent("assistant", provider=ScriptedProvider(["hi"]))
    seen = recorder(agent, SESSION_EVENTS)

    async with Session(agent, session_id="s-2") as session:
        await session.chat("hello")
        assert names(seen) == ["on_session_start", "on_session_end"]
    await session.close()

    assert names(seen) == ["on_session_start", "on_session_end", "on_session_close"]


async def test_async_with_closes_the_session_when_the_block_raises() -> None:
    agent = Agent("assistant", provider=ScriptedProvider([]))
    seen = recorder(agent, SESSION_EVENTS)

    with pytest.raises(LookupError, match="^inside the block$"):
        async with Session(agent, session_id="s-3"):
            raise LookupError("inside the block")

    assert [(n, c.session_id) for n, c in seen] == [("on_session_close", "s-3")]


async def test_a_session_never_chatted_in_fires_only_close() -> None:
    agent = Agent("assistant")
    seen = recorder(agent, SESSION_EVENTS)

    await Session(agent).close()

    assert names(seen) == ["on_session_close"]


# ------------------------------------------------------------------------- concurrency


async def test_many_sessions_on_one_agent_run_concurrently_with_separate_histories() -> None:
    arrived: list[str] = []
    all_arrived = asyncio.Event()

    async def reply(request: ProviderRequest) -> str:
        text = request.messages[-1].content or ""
        arrived.append(text)
        if len(arrived) == 3:
            all_arrived.set()
        # the first turn of every session waits for the other two: only concurrent runs pass
        await asyncio.wait_for(all_arrived.wait(), 5)
        return f"{text} -> {len(request.messages)} messages seen"

    agent = Agent("assistant", provider=ScriptedProvider(reply))
    sessions = [Session(agent, session_id=f"s{i}") for i in range(3)]

    async def converse(session: Session) -> None:
        await session.chat(f"{session.id} first")
        await session.chat(f"{session.id} second")

    await asyncio.gather(*(converse(s) for s in sessions))

    for s in sessions:
        assert s.history == [
            user(f"{s.id} first"),
            said(f"{s.id} first -> 1 messages seen"),
            user(f"{s.id} second"),
            said(f"{s.id} second -> 3 messages seen"),
        ]
    assert sorted(arrived[:3]) == ["s0 first", "s1 first", "s2 first"]
    assert agent.history == []


async def test_an_agents_own_chats_are_serialized() -> None:
    async def slow(request: ProviderRequest) -> str:
        for _ in range(5):
            await asyncio.sleep(0)  # room for another chat to interleave, were it allowed
        return f"re: {request.messages[-1].content}"

    provider = ScriptedProvider(slow)
    agent = Agent("assistant", provider=provider)
    seen = recorder(agent)

    first, second = await asyncio.gather(agent.chat("A"), agent.chat("B"))

    runs = [ctx.run_id for _, ctx in seen]
    half = len(RUN)
    assert names(seen) == RUN + RUN
    assert len(set(runs[:half])) == 1 and len(set(runs[half:])) == 1 and runs[0] != runs[-1]
    assert (first.content, second.content) == ("re: A", "re: B")
    assert provider.requests[1].messages == [user("A"), said("re: A"), user("B")]


# --------------------------------------------------------------------------- session_id


@tool
async def whoami(ctx: ToolContext) -> str:
    """Report the session."""
    return f"session={ctx.session_id}"


async def test_session_id_is_in_every_context_of_a_session_run_and_none_otherwise() -> None:
    def script() -> list[Any]:
        return [
            ProviderResponse(
                tool_calls=[
                    ToolCall(id="w1", name="whoami"),
                    ToolCall(id="d1", name="helper", arguments={"task": "assist"}),
                ]
            ),
            "done",
        ]

    helper = Agent("helper", provider=ScriptedProvider(["helped", "helped"]))
    provider = ScriptedProvider([*script(), *script()])
    agent = Agent("assistant", provider=provider, tools=[whoami], sub_agents=[helper])
    seen = recorder(agent)

    async with Session(agent, session_id="sess-9") as session:
        await session.chat("in a session")
    in_session = list(seen)
    seen.clear()
    await agent.chat("outside")

    assert {c.session_id for _, c in in_session} == {"sess-9"}
    assert {c.branch for _, c in in_session} == {"assistant", "assistant/helper"}
    assert {c.session_id for _, c in seen} == {None}
    assert {c.branch for _, c in seen} == {"assistant", "assistant/helper"}
    assert "on_session_start" not in names(seen)  # only a Session fires session events
    # the sub-run inside the session fires no session events of its own
    assert [(n, c.branch) for n, c in in_session if n.startswith("on_session")] == [
        ("on_session_start", "assistant"),
        ("on_session_end", "assistant"),
        ("on_session_close", "assistant"),
    ]
    assert provider.requests[1].messages[2].content == "session=sess-9"
    assert provider.requests[3].messages[-2].content == "session=None"


# -------------------------------------------------------------------- aborts, streams


async def test_session_end_fires_after_an_aborted_chat_and_a_cancelled_one() -> None:
    signal = asyncio.Event()
    never = asyncio.Event()

    async def abort_then_wait(request: ProviderRequest) -> str:
        signal.set()  # the caller's abort arrives while the provider is busy
        await asyncio.wait_for(never.wait(), 5)
        return "unreachable"

    agent = Agent("assistant", provider=ScriptedProvider(abort_then_wait))
    seen = recorder(
        agent,
        ("on_session_start", "on_chat_start", "on_chat_abort", "on_chat_end", "on_session_end"),
    )
    session = Session(agent)

    with pytest.raises(RunAborted, match="^run aborted: aborted$"):
        await session.chat("first", signal=signal)

    entered = asyncio.Event()

    async def hold(request: ProviderRequest) -> str:
        entered.set()
        await asyncio.wait_for(never.wait(), 5)
        return "unreachable"

    agent.provider = ScriptedProvider(hold)
    task = asyncio.ensure_future(session.chat("second"))
    await asyncio.wait_for(entered.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    assert names(seen) == [
        "on_session_start",
        "on_chat_start",
        "on_chat_abort",
        "on_chat_end",
        "on_session_end",
        "on_chat_start",
        "on_chat_abort",
        "on_chat_end",
        "on_session_end",
    ]
    assert [c.reason for n, c in seen if n == "on_chat_abort"] == [  # type: ignore[attr-defined]
        "aborted",
        "cancelled",
    ]
    assert session.history == [user("first"), user("second")]


async def test_session_chat_stream_fires_the_same_session_events() -> None:
    agent = Agent("assistant", provider=ScriptedProvider(["one two", "three"]))
    seen = recorder(agent)
    session = Session(agent, session_id="st")

    texts = []
    for message in ("a", "b"):
        texts.append(
            [i.text async for i in session.chat_stream(message) if isinstance(i, TextDelta)]
        )

    assert texts == [["one ", "two"], ["three"]]
    without_stream_events = [n for n in names(seen) if not n.startswith("on_stream_")]
    assert without_stream_events == [
        "on_session_start",
        *RUN,
        "on_session_end",
        *RUN,
        "on_session_end",
    ]
    assert {c.session_id for _, c in seen} == {"st"}
    assert session.history == [user("a"), said("one two"), user("b"), said("three")]


async def test_one_sessions_chats_are_serialized() -> None:
    async def slow(request: ProviderRequest) -> str:
        for _ in range(5):
            await asyncio.sleep(0)
        return f"re: {request.messages[-1].content}"

    provider = ScriptedProvider(slow)
    agent = Agent("assistant", provider=provider)
    seen = recorder(agent, ("on_chat_start", "on_chat_end"))
    session = Session(agent)

    await asyncio.gather(session.chat("A"), session.chat("B"))

    assert names(seen) == ["on_chat_start", "on_chat_end", "on_chat_start", "on_chat_end"]
    assert provider.requests[1].messages == [user("A"), said("re: A"), user("B")]
