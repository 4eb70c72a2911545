"""``on_chat_start`` and ``on_session_start`` carry the names of the tools the agent offers the
model as the run (or session) starts: what a policy engine needs to judge the agent at startup."""

from __future__ import annotations

from typing import Any

from agenthooks import Agent, Scope, ScriptedProvider, Session, tool
from agenthooks.events import CATALOG, ChatStartContext, SessionStartContext


@tool
def search(q: str) -> str:
    """Search."""
    return q


@tool
def delete(path: str) -> str:
    """Delete."""
    return path


def _agent() -> Agent:
    helper = Agent("helper", provider=ScriptedProvider(["ok"]))
    desk = Agent("desk", provider=ScriptedProvider(["ok"]))
    agent = Agent(
        "main",
        provider=ScriptedProvider(["one", "two"]),
        tools=[search],
        sub_agents=[helper],
        handoffs=[desk],
    )
    agent.scopes.add(Scope("admin", [delete], enabled=False))
    return agent


async def test_on_chat_start_carries_the_offered_tool_names() -> None:
    agent = _agent()
    seen: list[Any] = []
    agent.on("on_chat_start", seen.append)
    await agent.chat("hi")
    (ctx,) = seen
    assert isinstance(ctx, ChatStartContext)
    assert ctx.tools == [
        "search",
        "helper",
        "transfer_to_desk",
    ]  # the disabled scope is not offered


async def test_on_session_start_carries_the_offered_tool_names() -> None:
    assert CATALOG["on_session_start"].context is SessionStartContext
    agent = _agent()
    seen: list[Any] = []
    agent.on("on_session_start", seen.append)
    async with Session(agent) as session:
        await session.chat("1")
        await session.chat("2")
    (ctx,) = seen
    assert isinstance(ctx, SessionStartContext)
    assert ctx.session_id == session.id
    assert ctx.tools == ["search", "helper", "transfer_to_desk"]
