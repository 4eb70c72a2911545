"""A sub-agent's ``invoke_agent`` span is a child of the parent's ``execute_tool`` span of the
delegating call, also when delegations run in parallel and when the sub-agent has its own bus."""

from __future__ import annotations

import asyncio
import json

from otel_traced import Traced

from agenthooks import (
    Agent,
    HookBus,
    ProviderRequest,
    ProviderResponse,
    ScriptedProvider,
    ToolCall,
    tool,
)
from agenthooks.events import ChatStartContext


@tool
def lookup(term: str) -> str:
    """Look a term up."""
    return f"{term} = 42"


def researcher(bus: HookBus | None = None) -> Agent:
    return Agent(
        "researcher",
        provider=ScriptedProvider(
            [
                ProviderResponse(
                    tool_calls=[ToolCall(id="call_l", name="lookup", arguments={"term": "X"})],
                    finish_reason="tool_calls",
                ),
                "X is 42.",
            ]
        ),
        model="small",
        tools=[lookup],
        bus=bus,
    )


def orchestrator(sub: Agent) -> Agent:
    return Agent(
        "orchestrator",
        provider=ScriptedProvider(
            [
                ProviderResponse(
                    tool_calls=[
                        ToolCall(id="call_r", name="researcher", arguments={"task": "find X"})
                    ],
                    finish_reason="tool_calls",
                ),
                "Done: X is 42.",
            ]
        ),
        model="big",
        sub_agents=[sub],
    )


async def test_a_sub_agent_run_is_a_child_of_the_delegating_execute_tool_span(
    traced: Traced,
) -> None:
    parent = orchestrator(researcher())
    ids: dict[str, str] = {}

    def remember(ctx: ChatStartContext) -> None:
        ids[ctx.agent] = ctx.run_id

    parent.on("on_chat_start", remember)
    parent.use(traced.plugin)

    response = await parent.chat("What is X?")

    assert response.content == "Done: X is 42."
    assert traced.names == [
        "chat big",
        "chat small",
        "execute_tool lookup",
        "chat small",
        "invoke_agent researcher",
        "execute_tool researcher",
        "chat big",
        "invoke_agent orchestrator",
    ]
    top = traced.one("invoke_agent orchestrator")
    delegating = traced.tool("call_r")
    sub = traced.one("invoke_agent researcher")
    assert top.parent is None
    assert traced.children(top) == ["chat big", "execute_tool researcher", "chat big"]
    assert traced.children(delegating) == ["invoke_agent researcher"]
    assert traced.children(sub) == ["chat small", "execute_tool lookup", "chat small"]
    assert len({s.context.trace_id for s in traced.spans}) == 1
    attrs = dict(sub.attributes or {})
    assert attrs["agenthooks.parent_run_id"] == ids["orchestrator"]
    assert attrs["agenthooks.branch"] == "orchestrator/researcher"
    assert attrs["gen_ai.agent.name"] == "researcher"
    assert (delegating.attributes or {})["agenthooks.subagent"] == "researcher"
    assert traced.plugin.open_spans == 0


async def test_the_subagent_events_carry_the_delegating_tool_call_id() -> None:
    parent = orchestrator(researcher())
    seen: list[tuple[str, str, str | None]] = []
    parent.on("on_subagent_start", lambda c: seen.append(("start", c.subagent, c.tool_call_id)))
    parent.on("on_subagent_stop", lambda c: seen.append(("stop", c.subagent, c.tool_call_id)))

    await parent.chat("What is X?")

    assert seen == [("start", "researcher", "call_r"), ("stop", "researcher", "call_r")]


class Rendezvous:
    """Lets ``parties`` coroutines wait until all of them arrived (so they overlap)."""

    def __init__(self, parties: int) -> None:
        self.parties = parties
        self.arrived = 0
        self.all_here = asyncio.Event()

    async def wait(self) -> None:
        self.arrived += 1
        if self.arrived == self.parties:
            self.all_here.set()
        await self.all_here.wait()


async def test_parallel_delegations_each_parent_their_own_sub_agent_run(
    traced_content: Traced,
) -> None:
    meeting = Rendezvous(2)

    async def answer(request: ProviderRequest) -> str:
        await meeting.wait()  # both sub-agent runs are in flight at once
        return f"answered {request.messages[-1].content}"

    sub = Agent("researcher", provider=ScriptedProvider(answer), model="small")
    parent = Agent(
        "orchestrator",
        provider=ScriptedProvider(
            [
                ProviderResponse(
                    tool_calls=[
                        ToolCall(id="call_a", name="researcher", arguments={"task": "alpha"}),
                        ToolCall(id="call_b", name="researcher", arguments={"task": "beta"}),
                    ],
                    finish_reason="tool_calls",
                ),
                "Both done.",
            ]
        ),
        model="big",
        sub_agents=[sub],
        parallel_tool_calls=True,
    )
    parent.use(traced_content.plugin)
    beta_began = asyncio.Event()

    async def beta_first(ctx: ChatStartContext) -> None:
        # the sub-agent runs are runs of their own (their handlers may interleave): the
        # later delegation's run begins first
        if ctx.message == "beta":
            beta_began.set()
        elif ctx.message == "alpha":
            await beta_began.wait()

    parent.on("on_chat_start", beta_first)

    response = await parent.chat("Do both")

    assert response.content == "Both done."
    subs = [s for s in traced_content.spans if s.name == "invoke_agent researcher"]
    assert len(subs) == 2
    by_task = {}
    for span in subs:
        (message,) = json.loads(str((span.attributes or {})["gen_ai.input.messages"]))
        by_task[message["parts"][0]["content"]] = span
    for task, call_id in (("alpha", "call_a"), ("beta", "call_b")):
        parent_span = traced_content.parent_of(by_task[task])
        assert parent_span is not None
        assert parent_span.name == "execute_tool researcher"
        assert (parent_span.attributes or {})["gen_ai.tool.call.id"] == call_id
        assert (parent_span.attributes or {})["gen_ai.tool.call.result"] == f"answered {task}"
    assert traced_content.plugin.open_spans == 0


async def test_a_sub_agent_with_its_own_bus_is_parented_when_the_plugin_is_on_both(
    traced: Traced,
) -> None:
    sub = researcher(bus=HookBus())
    parent = orchestrator(sub)
    parent.use(traced.plugin)
    sub.use(traced.plugin)

    await parent.chat("What is X?")

    assert traced.children(traced.tool("call_r")) == ["invoke_agent researcher"]
    assert traced.children(traced.one("invoke_agent researcher")) == [
        "chat small",
        "execute_tool lookup",
        "chat small",
    ]
