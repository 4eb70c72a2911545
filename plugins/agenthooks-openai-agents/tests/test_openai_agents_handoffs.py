"""A handoff the SDK runs fires ``pre_handoff`` and ``on_handoff`` (the kit's scripts hold no
second agent, so the bridge's own test pins them)."""

from __future__ import annotations

from agenthooks_openai_agents import AgentHooksRunner
from agents import Agent
from agents.testing import ScriptedModel, assistant_message, function_call

from agenthooks import HookBus


async def test_a_handoff_fires_pre_handoff_then_on_handoff() -> None:
    bus = HookBus()
    seen: list[tuple[str, str, str]] = []
    bus.on("pre_handoff", lambda ctx: seen.append(("pre", ctx.from_agent, ctx.to_agent)))
    bus.on("on_handoff", lambda ctx: seen.append(("on", ctx.from_agent, ctx.to_agent)))
    billing = Agent(name="billing", model=ScriptedModel([[assistant_message("paid")]]))
    triage = Agent(
        name="triage",
        model=ScriptedModel([[function_call("transfer_to_billing", {}, call_id="h1")]]),
        handoffs=[billing],
    )

    result = await AgentHooksRunner(bus).run(triage, "pay")

    assert result.final_output == "paid"
    assert seen == [("pre", "triage", "billing"), ("on", "triage", "billing")]
