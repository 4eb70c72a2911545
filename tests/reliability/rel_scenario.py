"""The run the generators break: parallel tools that touch memory, a sub-agent, a handoff, then
two sequential tool calls, then an answer.

    lead   turn 0: note(k1) ‖ recall(k0) ‖ helper(task)      (parallel; memory events inside)
                   helper: add(2, 3) → "5"                    (a sub-agent run on the same bus)
           turn 1: transfer_to_closer                         (handoff)
    closer turn 2: stamp(a) → stamp(b)                        (sequential)
           turn 3: "closer answer"

Scripts are functions of the request (the turn is the number of assistant messages since the
last user message), so a denied step changes the path without running a script dry. The
agents are built once and shared by the runs (each run has its own Session, so its own history;
the memory store only ever gains the same keys); ``Probe.tick`` marks the steps of tools and
providers, and a middleware on both stacks marks a step around each call. ``on_model_error``
and ``on_tool_call_error`` handlers recover every error they see: no error occurs in the clean
run, so a hook error that reaches them shows as a wrong outcome.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from rel_probe import Probe, attach_current

from agenthooks import (
    Agent,
    Disposer,
    HookBus,
    Memory,
    Middleware,
    ProviderRequest,
    ProviderResponse,
    ScriptedProvider,
    Session,
    ToolCall,
    ToolContext,
    Usage,
    tool,
)

PROBE: ContextVar[Probe] = ContextVar("PROBE")
"""The probe of the run in progress (tasks inherit it), so the tools are built once."""

USAGE = Usage(input_tokens=7, output_tokens=3, total_tokens=10, cost=0.01)


def turn_of(request: ProviderRequest) -> int:
    """Assistant messages since the last user message: the turn this request is for."""
    n = 0
    for m in reversed(request.messages):
        if m.role == "user":
            break
        n += m.role == "assistant"
    return n


def calls(*items: tuple[str, str, dict[str, Any]]) -> ProviderResponse:
    """A tool-calls response with explicit ids."""
    return ProviderResponse(
        finish_reason="tool_calls",
        tool_calls=[ToolCall(id=i, name=n, arguments=a) for i, n, a in items],
        usage=USAGE,
    )


def answer(text: str) -> ProviderResponse:
    return ProviderResponse(content=text, usage=USAGE)


@dataclass
class World:
    """One run of the scenario: its session, the lead agent and the run's probe."""

    session: Session
    lead: Agent
    probe: Probe
    added: list[Disposer] = field(default_factory=list)

    @property
    def bus(self) -> HookBus:
        return self.lead.bus

    def on(self, event: str, handler: Any, **options: Any) -> None:
        """Register ``handler`` on the run's bus until ``close()``."""
        self.added.append(self.bus.on(event, handler, **options))

    def close(self) -> None:
        """Remove what this run registered (the agents serve the next run)."""
        for dispose in self.added:
            dispose()
        self.added.clear()


async def tick() -> None:
    await PROBE.get().tick()


@tool
async def note(key: str, value: str, ctx: ToolContext) -> str:
    """Write a note."""
    await tick()
    assert ctx.memory is not None
    await ctx.memory.set(key, value)
    await tick()
    return f"noted {key}"


@tool
async def recall(key: str, ctx: ToolContext) -> str:
    """Read a note."""
    await tick()
    assert ctx.memory is not None
    value = await ctx.memory.get(key, "nothing")
    await ctx.memory.set(f"{key}.seen", "yes")
    await tick()
    return f"{key} is {value}"


@tool
async def add(a: int, b: int) -> int:
    """Add two numbers."""
    await tick()
    return a + b


@tool
async def stamp(text: str) -> str:
    """Stamp a text."""
    await tick()
    return f"[{text}]"


async def lead_script(request: ProviderRequest) -> ProviderResponse:
    await tick()
    turn = turn_of(request)
    if turn == 0:
        return calls(
            ("L1", "note", {"key": "k1", "value": "v1"}),
            ("L2", "recall", {"key": "k0"}),
            ("L3", "helper", {"task": "add two and three"}),
        )
    if turn == 1:
        return calls(("L4", "transfer_to_closer", {}))
    return answer("lead answer")


async def helper_script(request: ProviderRequest) -> ProviderResponse:
    await tick()
    if turn_of(request) == 0:
        return calls(("H1", "add", {"a": 2, "b": 3}))
    return answer("five")


async def closer_script(request: ProviderRequest) -> ProviderResponse:
    await tick()
    if turn_of(request) == 2:
        return calls(("C1", "stamp", {"text": "a"}), ("C2", "stamp", {"text": "b"}))
    return answer("closer answer")


_AGENTS: Agent | None = None


class Stepping(Middleware):
    """A middleware that only marks a step before and after each provider and tool call."""

    async def wrap(self, ctx: Any, call_next: Any) -> Any:
        await tick()
        value = await call_next(ctx)
        await tick()
        return value


def _recover_model(ctx: Any) -> dict[str, Any]:
    return {"response": ProviderResponse(content="recovered from a model error")}


def _recover_tool(ctx: Any) -> dict[str, Any] | None:
    return None if ctx.source == "denied" else {"result": "recovered from a tool error"}


def _agents() -> Agent:
    """The scenario's agents, built once: the lead's bus carries the probe of the current run."""
    global _AGENTS
    if _AGENTS is None:
        helper = Agent(
            "helper",
            "Add numbers.",
            provider=ScriptedProvider(helper_script, name="helper", record=False),
            tools=[add],
        )
        closer = Agent(
            "closer",
            "Close the case.",
            provider=ScriptedProvider(closer_script, name="closer", record=False),
            tools=[stamp],
        )
        lead = Agent(
            "lead",
            "Lead the work.",
            provider=ScriptedProvider(lead_script, name="lead", record=False),
            tools=[note, recall],
            sub_agents=[helper],
            handoffs=[closer],
            parallel_tool_calls=True,
            memory=Memory(),
        )
        attach_current(lead.bus, PROBE.get)
        # recoverers of model and tool errors: a hook's error that reaches either by mistake
        # would be turned into a normal answer, so a misrouted error shows as a wrong outcome
        lead.bus.on("on_model_error", _recover_model)
        lead.bus.on("on_tool_call_error", _recover_tool)
        lead.bus.use(Stepping())  # a middleware layer on both stacks, inside the hook layer
        _AGENTS = lead
    return _AGENTS


def build() -> World:
    """A new run of the scenario: a fresh Session and probe (made current) on the shared
    agents. What a test registers on ``world.bus`` it removes again (``world.on``)."""
    probe = Probe()
    PROBE.set(probe)
    lead = _agents()
    return World(Session(lead), lead, probe)
