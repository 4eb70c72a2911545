"""What ends the whole run from inside a tool: a hook's exception and StopRun are never turned
into a tool message, also inside a sub-agent or a parallel batch."""

from __future__ import annotations

import asyncio

import pytest

from agenthooks import (
    Agent,
    HookBus,
    MessageContext,
    ProviderResponse,
    ScriptedProvider,
    StopRun,
    ToolCall,
    tool,
)
from agenthooks.runtime.chat_run import CUT_SHORT


def call(name: str, cid: str, **arguments: object) -> ProviderResponse:
    return ProviderResponse(tool_calls=[ToolCall(id=cid, name=name, arguments=arguments)])


@tool
def note(text: str) -> str:
    """Write a note."""
    return f"noted {text}"


class PolicyBroken(Exception):
    pass


async def test_a_hook_exception_inside_a_sub_agent_reaches_the_caller_of_the_parent() -> None:
    bus = HookBus()
    worker = Agent(
        "worker", provider=ScriptedProvider([call("note", "w1", text="x")]), tools=[note]
    )
    boss_model = ScriptedProvider([call("worker", "b1", task="write x"), "never"])
    boss = Agent("boss", provider=boss_model, sub_agents=[worker], bus=bus)
    ends: list[tuple[str, str]] = []
    bus.on("on_chat_error", lambda ctx: ends.append((ctx.branch, type(ctx.error).__name__)))

    @bus.on("pre_tool_call", match="note")
    def broken(ctx: object) -> None:
        raise PolicyBroken("policy store unreachable")

    with pytest.raises(PolicyBroken, match="policy store unreachable"):
        await boss.chat("go")
    assert ends == [("boss/worker", "PolicyBroken"), ("boss", "PolicyBroken")]
    assert len(boss_model.requests) == 1  # the model never saw the hook's error
    assert [(m.role, m.is_error, m.content) for m in boss.history[-1:]] == [
        ("tool", True, CUT_SHORT)  # the hook's error stays out of the model's view
    ]


async def test_stop_run_inside_a_sub_agent_stops_the_whole_run() -> None:
    bus = HookBus(errors="isolate")
    worker = Agent(
        "worker", provider=ScriptedProvider([call("note", "w1", text="x")]), tools=[note]
    )
    boss = Agent(
        "boss",
        provider=ScriptedProvider([call("worker", "b1", task="t"), "never"]),
        sub_agents=[worker],
        bus=bus,
    )
    stops: list[tuple[str, str]] = []
    bus.on("on_stop", lambda ctx: stops.append((ctx.branch, ctx.reason)))

    def quota(ctx: object) -> None:
        raise StopRun("quota reached")

    bus.on("pre_tool_call", quota, match="note")
    with pytest.raises(StopRun, match="quota reached"):
        await boss.chat("go")
    assert stops == [("boss/worker", "quota reached"), ("boss", "quota reached")]


async def test_a_run_ending_error_in_a_parallel_batch_cancels_the_other_calls() -> None:
    started = asyncio.Event()
    cancelled: list[str] = []

    @tool
    async def slow(label: str) -> str:
        """Wait."""
        started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.append(label)
            raise
        return label

    @tool
    async def stopper() -> str:
        """Stop the run."""
        await started.wait()
        raise StopRun("enough")

    model = ScriptedProvider(
        [
            ProviderResponse(
                tool_calls=[
                    ToolCall(id="a", name="slow", arguments={"label": "a"}),
                    ToolCall(id="b", name="stopper", arguments={}),
                ]
            )
        ]
    )
    agent = Agent("par", provider=model, tools=[slow, stopper], parallel_tool_calls=True)
    with pytest.raises(StopRun, match="enough"):
        await agent.chat("go")
    assert cancelled == ["a"]
    assert [(m.tool_call_id, m.is_error, m.content) for m in agent.history[2:]] == [
        ("a", True, "enough"),
        ("b", True, "enough"),
    ]


async def test_a_second_handoff_in_one_turn_is_refused_with_a_reason() -> None:
    first = Agent("first", provider=ScriptedProvider(["first here"]))
    second = Agent("second", provider=ScriptedProvider(["second here"]))
    triage_model = ScriptedProvider(
        [
            ProviderResponse(
                tool_calls=[
                    ToolCall(id="h1", name="transfer_to_first", arguments={}),
                    ToolCall(id="h2", name="transfer_to_second", arguments={}),
                ]
            )
        ]
    )
    triage = Agent("triage", provider=triage_model, handoffs=[first, second])
    response = await triage.chat("help")
    assert (response.content, response.agent) == ("first here", "first")
    assert [(m.tool_call_id, m.is_error, m.content) for m in triage.history[2:4]] == [
        ("h1", False, "Transferred to first."),
        (
            "h2",
            True,
            "handoff to second ignored: this turn already hands the conversation to first",
        ),
    ]


@pytest.mark.parametrize("cancel", [False, True], ids=["failed run", "cancelled run"])
async def test_every_call_the_end_closes_is_announced_though_on_message_keeps_raising(
    cancel: bool,
) -> None:
    calls = ProviderResponse(
        tool_calls=[ToolCall(id=f"n{i}", name="note", arguments={"text": str(i)}) for i in range(3)]
    )
    agent = Agent("notes", provider=ScriptedProvider([calls, "never"]), tools=[note])
    announced: list[tuple[str, str | None]] = []

    @agent.on("on_message")
    def keeps_raising(ctx: MessageContext) -> None:
        announced.append((ctx.message.role, ctx.message.tool_call_id))
        if ctx.message.role == "assistant":  # the run ends here, its three calls still open
            if cancel:
                raise asyncio.CancelledError
            raise PolicyBroken("audit log unreachable")
        if ctx.message.role == "tool":  # and every closing message's handler raises too
            raise PolicyBroken("audit log unreachable")

    with pytest.raises(asyncio.CancelledError if cancel else PolicyBroken):
        await agent.chat("go")
    closed = [(m.role, m.tool_call_id) for m in agent.history[2:]]
    assert closed == [("tool", "n0"), ("tool", "n1"), ("tool", "n2")]
    assert announced == [("user", None), ("assistant", None), *closed]
