"""A policy written once against the SDK's interceptor interface governs an agenthooks Agent
with parallel tool calls and a sub-agent: its deny reaches the model, its transform the tool."""

from __future__ import annotations

from typing import Any

import pytest
from agent_hooks import (
    AgentContext,
    Decision,
    InterceptionRecord,
    Interceptor,
    Transform,
    Verdict,
)
from agenthooks_agent_hooks_spec import AgentHooksSpec

from agenthooks import (
    Agent,
    ChatMessage,
    HookBus,
    ProviderResponse,
    ScriptedProvider,
    ToolCall,
    tool,
)


class PaymentsPolicy:
    """An AGENT-HOOKS-0.1 interceptor (it knows nothing of agenthooks): transfers above 100 are
    denied, plain-http fetches are upgraded to https."""

    def __init__(self) -> None:
        self.tool_calls: list[tuple[str, str, str]] = []  # (name, branch, session) seen

    async def intercept(self, context: AgentContext) -> Verdict:
        if context["interception_point"] != "pre_tool_call":
            return Verdict.allow()
        call = context["tool_call"]
        origin = context["extensions"]["agenthooks"]
        self.tool_calls.append((call["name"], origin["branch"], context["session"]["id"]))
        if call["name"] == "transfer" and call["args"]["amount"] > 100:
            return Verdict.deny(reason="policy:limit", message="transfers above 100 need review")
        url = call["args"].get("url", "")
        if url.startswith("http://"):
            return Verdict(
                decision=Decision.TRANSFORM,
                transform=Transform("$target.url", "https://" + url[len("http://") :]),
            )
        return Verdict.allow()


@pytest.mark.parametrize("own_bus", [False, True], ids=["shared-bus", "own-bus"])
async def test_deny_reaches_the_model_and_transform_reaches_the_tool(own_bus: bool) -> None:
    ran: list[tuple[str, dict[str, Any]]] = []

    @tool
    async def transfer(amount: int, to: str) -> str:
        ran.append(("transfer", {"amount": amount, "to": to}))
        return "sent"

    @tool
    async def balance() -> int:
        ran.append(("balance", {}))
        return 250

    @tool
    async def fetch(url: str) -> str:
        ran.append(("fetch", {"url": url}))
        return "rates: 1.1"

    researcher_provider = ScriptedProvider(
        [
            ProviderResponse(
                tool_calls=[
                    ToolCall(id="r1", name="fetch", arguments={"url": "http://rates.example"})
                ]
            ),
            "EUR/USD is 1.1",
        ]
    )
    researcher = Agent(
        "researcher",
        "Find facts.",
        provider=researcher_provider,
        tools=[fetch],
        bus=HookBus() if own_bus else None,
    )
    provider = ScriptedProvider(
        [
            ProviderResponse(
                tool_calls=[
                    ToolCall(id="t1", name="transfer", arguments={"amount": 500, "to": "bob"}),
                    ToolCall(id="t2", name="balance", arguments={}),
                    ToolCall(id="t3", name="researcher", arguments={"task": "EUR/USD rate?"}),
                ],
                finish_reason="tool_calls",
            ),
            "Transfer needs review; balance 250; rate 1.1.",
        ]
    )
    orchestrator = Agent(
        "orchestrator",
        provider=provider,
        tools=[transfer, balance],
        sub_agents=[researcher],
        parallel_tool_calls=True,
    )
    policy = PaymentsPolicy()
    assert isinstance(policy, Interceptor)  # the SDK's policy-author interface, nothing else
    records: list[InterceptionRecord] = []
    with orchestrator.bus.use(AgentHooksSpec([policy], record_sink=records.append)):
        response = await orchestrator.chat("pay bob 500 and check the rate")

    assert response.content == "Transfer needs review; balance 250; rate 1.1."
    # the transform reached the sub-agent's tool; the denied transfer never ran
    assert ran == [("balance", {}), ("fetch", {"url": "https://rates.example"})]
    # the deny reached the model, as the error of the transfer call
    tool_messages = provider.requests[1].messages[-3:]
    assert tool_messages == [
        ChatMessage(
            role="tool",
            content="policy:limit: transfers above 100 need review",
            tool_call_id="t1",
            name="transfer",
            is_error=True,
        ),
        ChatMessage(role="tool", content="250", tool_call_id="t2", name="balance"),
        ChatMessage(role="tool", content="EUR/USD is 1.1", tool_call_id="t3", name="researcher"),
    ]
    # the sub-agent's calls are calls of the same session, from the sub-agent's branch
    session = records[0].session_id
    assert policy.tool_calls == [
        ("transfer", "orchestrator", session),
        ("balance", "orchestrator", session),
        ("researcher", "orchestrator", session),
        ("fetch", "orchestrator/researcher", session),
    ]
    assert [(r.to_wire()["interception_point"], r.verdict.decision.value) for r in records] == [
        ("agent_startup", "allow"),
        ("input", "allow"),
        ("pre_model_call", "allow"),
        ("post_model_call", "allow"),
        ("pre_tool_call", "deny"),
        ("pre_tool_call", "allow"),
        ("pre_tool_call", "allow"),
        # the researcher runs while balance runs: its model and tool calls, no input/output
        ("pre_model_call", "allow"),
        ("post_model_call", "allow"),
        ("pre_tool_call", "transform"),
        ("post_tool_call", "allow"),
        ("pre_model_call", "allow"),
        ("post_model_call", "allow"),
        # then the batch's after-events in source order; the denied transfer has none
        ("post_tool_call", "allow"),
        ("post_tool_call", "allow"),
        ("pre_model_call", "allow"),
        ("post_model_call", "allow"),
        ("output", "allow"),
        ("agent_shutdown", "allow"),
    ]
    assert {r.session_id for r in records} == {session}
    assert [r.sequence for r in records] == list(range(len(records)))
