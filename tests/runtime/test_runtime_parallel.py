"""Parallel tool calls: every ``pre_tool_call`` first in source order, the handlers
concurrently, then each after-event and tool message in source order; hooks never overlap."""

from __future__ import annotations

import asyncio
from typing import Any

from agenthooks import (
    Agent,
    ChatMessage,
    Deny,
    ProviderResponse,
    ScriptedProvider,
    ToolCall,
    tool,
)

HANDSHAKE = 5.0  # seconds: only guards against a hang; no assertion depends on time


def batch(*names: str) -> ProviderResponse:
    return ProviderResponse(
        finish_reason="tool_calls",
        tool_calls=[ToolCall(id=f"id_{n}", name=n, arguments={"label": n}) for n in names],
    )


def answered(name: str, content: str, *, is_error: bool = False) -> ChatMessage:
    return ChatMessage(
        role="tool", content=content, tool_call_id=f"id_{name}", name=name, is_error=is_error
    )


class Workshop:
    """Async tools a, b, c that record start/end into one log. Each waits until every tool
    ``expected`` to run has started (so they must overlap); then they end in reverse order
    (c, then b, then a), each waiting for the next one's end."""

    def __init__(self, expected: str = "abc") -> None:
        self.expected = set(expected)
        self.log: list[str] = []
        self.started = {n: asyncio.Event() for n in "abc"}
        self.ended = {n: asyncio.Event() for n in "abc"}
        self.ran: list[str] = []

    def tools(self) -> list[Any]:
        return [self._make(n) for n in "abc"]

    def _make(self, name: str) -> Any:
        async def work(label: str) -> str:
            self.ran.append(name)
            self.log.append(f"start {name}")
            self.started[name].set()
            others = [self.started[k].wait() for k in sorted(self.expected) if k != name]
            await asyncio.wait_for(asyncio.gather(*others), HANDSHAKE)
            later = sorted(k for k in self.expected if k > name)
            if later:
                await asyncio.wait_for(self.ended[later[0]].wait(), HANDSHAKE)
            self.log.append(f"end {name}")
            self.ended[name].set()
            return f"{label} done"

        work.__name__ = name
        work.__doc__ = f"Tool {name}."
        return tool(work)


class HookWatch:
    """Hooks that await, checking that no other hook of the batch is running meanwhile."""

    def __init__(self, log: list[str]) -> None:
        self.log = log
        self.inside: str | None = None
        self.overlaps: list[tuple[str, str]] = []

    def hook(self, label: str) -> Any:
        async def handler(ctx: Any) -> None:
            if self.inside is not None:
                self.overlaps.append((self.inside, label))
            self.inside = f"{label} {ctx.call.name}"
            for _ in range(3):
                await asyncio.sleep(0)
            self.log.append(f"{label} {ctx.call.name}")
            self.inside = None

        return handler


def workshop_agent(shop: Workshop, script: list[Any]) -> tuple[Agent, ScriptedProvider]:
    provider = ScriptedProvider(script)
    return Agent("shop", provider=provider, tools=shop.tools(), parallel_tool_calls=True), provider


async def test_handlers_overlap_while_hooks_run_one_at_a_time_in_source_order() -> None:
    shop = Workshop()
    agent, provider = workshop_agent(shop, [batch("a", "b", "c"), "all done"])
    watch = HookWatch(shop.log)
    agent.on("pre_tool_call", watch.hook("pre"))
    agent.on("on_tool_call_result", watch.hook("post"))
    agent.on(
        "on_message",
        lambda c: (
            shop.log.append(f"message {c.message.name}") if c.message.role == "tool" else None
        ),
    )

    response = await asyncio.wait_for(agent.chat("work"), HANDSHAKE * 2)

    assert shop.log == [
        "pre a",
        "pre b",
        "pre c",
        "start a",
        "start b",
        "start c",
        "end c",
        "end b",
        "end a",
        "post a",
        "message a",
        "post b",
        "message b",
        "post c",
        "message c",
    ]
    assert watch.overlaps == []
    assert provider.requests[1].messages[-3:] == [
        answered("a", "a done"),
        answered("b", "b done"),
        answered("c", "c done"),
    ]
    assert response.content == "all done"


async def test_a_short_circuited_call_waits_for_its_turn() -> None:
    shop = Workshop("ac")
    agent, provider = workshop_agent(shop, [batch("a", "b", "c"), "ok"])
    watch = HookWatch(shop.log)
    agent.on("pre_tool_call", watch.hook("pre"))
    agent.on("pre_tool_call", lambda c: {"result": "b from cache"}, match="b")
    agent.on("on_tool_call_result", watch.hook("post"))
    agent.on(
        "on_message",
        lambda c: (
            shop.log.append(f"message {c.message.name}") if c.message.role == "tool" else None
        ),
    )

    await asyncio.wait_for(agent.chat("work"), HANDSHAKE * 2)

    assert shop.ran == ["a", "c"]
    assert shop.log == [
        "pre a",
        "pre b",
        "pre c",
        "start a",
        "start c",
        "end c",
        "end a",
        "post a",
        "message a",
        "post b",
        "message b",
        "post c",
        "message c",
    ]
    assert provider.requests[1].messages[-3:] == [
        answered("a", "a done"),
        answered("b", "b from cache"),
        answered("c", "c done"),
    ]
    assert watch.overlaps == []


async def test_a_denied_call_in_a_batch_keeps_its_place_and_its_error() -> None:
    shop = Workshop("bc")
    agent, provider = workshop_agent(shop, [batch("a", "b", "c"), "ok"])
    agent.on("pre_tool_call", lambda c: Deny("a is off limits") if c.call.name == "a" else None)
    errors: list[tuple[str, str]] = []
    agent.on("on_tool_call_error", lambda c: errors.append((c.call.name, c.source)))

    await asyncio.wait_for(agent.chat("work"), HANDSHAKE * 2)

    assert shop.ran == ["b", "c"]
    assert errors == [("a", "denied")]
    assert provider.requests[1].messages[-3:] == [
        answered("a", "a is off limits", is_error=True),
        answered("b", "b done"),
        answered("c", "c done"),
    ]


async def test_a_failing_call_in_a_batch_does_not_stop_the_others() -> None:
    @tool
    async def boom(label: str) -> str:
        """Fails."""
        await asyncio.sleep(0)
        raise ValueError(f"{label} exploded")

    @tool
    async def fine(label: str) -> str:
        """Works."""
        await asyncio.sleep(0)
        return f"{label} fine"

    provider = ScriptedProvider(
        [
            ProviderResponse(
                tool_calls=[
                    ToolCall(id="id_boom", name="boom", arguments={"label": "x"}),
                    ToolCall(id="id_fine", name="fine", arguments={"label": "y"}),
                ]
            ),
            "ok",
        ]
    )
    agent = Agent("shop", provider=provider, tools=[boom, fine], parallel_tool_calls=True)

    await agent.chat("go")

    assert provider.requests[1].messages[-2:] == [
        answered("boom", "ValueError: x exploded", is_error=True),
        answered("fine", "y fine"),
    ]


async def test_without_hooks_the_batch_still_runs_concurrently_in_call_order() -> None:
    shop = Workshop()
    agent, _ = workshop_agent(shop, [batch("a", "b", "c"), "done"])

    await asyncio.wait_for(agent.chat("work"), HANDSHAKE * 2)

    assert shop.log == ["start a", "start b", "start c", "end c", "end b", "end a"]
    assert [m.name for m in agent.history if m.role == "tool"] == ["a", "b", "c"]


async def test_sequential_by_default_each_call_finishes_before_the_next_starts() -> None:
    log: list[str] = []

    def step(name: str) -> Any:
        async def work(label: str) -> str:
            log.append(f"start {name}")
            await asyncio.sleep(0)
            log.append(f"end {name}")
            return label

        work.__name__ = name
        work.__doc__ = name
        return tool(work)

    provider = ScriptedProvider([batch("a", "b"), "done"])
    agent = Agent("seq", provider=provider, tools=[step("a"), step("b")])
    agent.on("pre_tool_call", lambda c: log.append(f"pre {c.call.name}"))
    agent.on("on_tool_call_result", lambda c: log.append(f"post {c.call.name}"))

    await agent.chat("go")

    assert log == ["pre a", "start a", "end a", "post a", "pre b", "start b", "end b", "post b"]
