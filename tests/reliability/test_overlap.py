"""Handlers of one run never overlap (item 3 as a class), also when tools run in parallel.

The generator builds every batch of 2 (and 3; up to 4 under ``make soak``) parallel calls
drawn from tools that fire events from inside the call: a memory write, a memory read, a read
of a missing key (``on_memory_error``), a sub-agent on the run's bus and a sub-agent with a bus
of its own (its ``on_subagent_start`` / ``on_subagent_stop`` belong to the calling run). The
probe holds every handler in flight across a few awaits; a handler of the same run that starts
meanwhile is an overlap. Every other invariant is checked too, in ``chat()`` and
``chat_stream()``.
"""

from __future__ import annotations

import itertools
from typing import Any

from rel_drive import drive, invariant_problems, scale
from rel_probe import Probe
from rel_scenario import turn_of
from rel_tally import Tally

from agenthooks import (
    Agent,
    HookBus,
    Memory,
    ProviderRequest,
    ProviderResponse,
    ScriptedProvider,
    Session,
    ToolCall,
    ToolContext,
    tool,
)

KINDS = ("write", "read", "miss", "sub", "own_bus_sub")


@tool
async def write(key: str, ctx: ToolContext) -> str:
    """Write a key."""
    assert ctx.memory is not None
    await ctx.memory.set(key, "v")
    return "written"


@tool
async def read(key: str, ctx: ToolContext) -> str:
    """Read a key (a default when absent)."""
    assert ctx.memory is not None
    return str(await ctx.memory.get(key, "none"))


@tool
async def miss(key: str, ctx: ToolContext) -> str:
    """Read a key that is absent: on_memory_error, then a tool error."""
    assert ctx.memory is not None
    return str(await ctx.memory.get(f"absent-{key}"))


def _agent(batch: tuple[str, ...], probe: Probe) -> Agent:
    def lead(request: ProviderRequest) -> ProviderResponse:
        if turn_of(request) > 0:
            return ProviderResponse(content="all done")
        return ProviderResponse(
            finish_reason="tool_calls",
            tool_calls=[
                ToolCall(
                    id=f"p{i}",
                    name=kind,
                    arguments={"task": f"t{i}"} if "sub" in kind else {"key": f"k{i}"},
                )
                for i, kind in enumerate(batch)
            ],
        )

    def sub(request: ProviderRequest) -> str:
        return "sub done"

    shared = Agent("sub", provider=ScriptedProvider(sub))
    own_bus = HookBus()
    probe.attach(own_bus)
    own = Agent("own_bus_sub", provider=ScriptedProvider(sub), bus=own_bus)
    bus = HookBus()
    probe.attach(bus)
    return Agent(
        "lead",
        provider=ScriptedProvider(lead),
        tools=[write, read, miss],
        sub_agents=[shared, own],
        parallel_tool_calls=True,
        memory=Memory(),
        bus=bus,
    )


async def test_handlers_of_one_run_never_overlap_whatever_its_parallel_tools_fire() -> None:
    tally = Tally("no overlapping handlers in a run")
    sizes = scale((2, 3), (2, 3, 4))
    batches: list[Any] = [b for n in sizes for b in itertools.product(KINDS, repeat=n)]
    for batch in batches:
        for stream in (False, True):
            probe = Probe()
            session = Session(_agent(batch, probe))
            outcome = await drive(session, "go", probe, stream=stream)
            problems = await invariant_problems(probe, outcome, session.history)
            if outcome.kind != "response" or outcome.response.content != "all done":
                problems.append(("the run answers", outcome.describe()))
            mode = "chat_stream()" if stream else "chat()"
            tally.case(
                f"{mode} parallel {' ‖ '.join(batch)}", problems, " ".join(sorted(set(batch)))
            )
    tally.assert_held()
