"""Handoffs: ``transfer_to_<name>`` tools pass the conversation on for the rest of the run,
unless ``pre_handoff`` or the target's ``pre_agent`` refuses; one run, one turn counter."""

from __future__ import annotations

from typing import Any

import pytest

from agenthooks import (
    Agent,
    ChatMessage,
    Deny,
    MaxTurnsExceeded,
    ProviderResponse,
    ScriptedProvider,
    ToolCall,
    tool,
)
from agenthooks.events import CATALOG
from agenthooks.events.contexts import EventContext


def recorder(agent: Agent) -> list[tuple[str, EventContext]]:
    """Every event of the agent's bus but ``on_event``, in order."""
    seen: list[tuple[str, EventContext]] = []
    for name in CATALOG:
        if name != "on_event":
            agent.on(name, lambda ctx, name=name: seen.append((name, ctx)))
    return seen


def transfer(call_id: str, target: str, text: str | None = None) -> ProviderResponse:
    return ProviderResponse(
        content=text,
        finish_reason="tool_calls",
        tool_calls=[ToolCall(id=call_id, name=f"transfer_to_{target}", arguments={})],
    )


def user(text: str) -> ChatMessage:
    return ChatMessage(role="user", content=text)


def said(text: str) -> ChatMessage:
    return ChatMessage(role="assistant", content=text)


def asked(
    call_id: str, name: str, arguments: dict[str, Any] | None = None, text: str | None = None
) -> ChatMessage:
    return ChatMessage(
        role="assistant",
        content=text,
        tool_calls=[ToolCall(id=call_id, name=name, arguments=arguments or {})],
    )


def answered(call_id: str, name: str, content: str, *, is_error: bool = False) -> ChatMessage:
    return ChatMessage(
        role="tool", content=content, tool_call_id=call_id, name=name, is_error=is_error
    )


@tool
def refund(order: str) -> str:
    """Refund an order."""
    return f"refunded {order}"


def desk(
    triage_script: list[Any], billing_script: list[Any]
) -> tuple[Agent, Agent, ScriptedProvider, ScriptedProvider]:
    billing_model = ScriptedProvider(billing_script, name="billing-model")
    billing = Agent(
        "billing",
        "You handle billing.",
        provider=billing_model,
        description="Refunds and invoices.",
        tools=[refund],
    )
    triage_model = ScriptedProvider(triage_script, name="triage-model")
    triage = Agent("triage", "You route questions.", provider=triage_model, handoffs=[billing])
    return triage, billing, triage_model, billing_model


async def test_handoff_is_offered_as_transfer_to_name_without_arguments() -> None:
    triage, _, triage_model, _ = desk(["Hello!"], [])

    await triage.chat("hi")

    assert triage_model.requests[0].tools == [
        {
            "type": "function",
            "function": {
                "name": "transfer_to_billing",
                "description": "Hand the conversation over to billing: Refunds and invoices.",
                "parameters": {"additionalProperties": False, "properties": {}, "type": "object"},
            },
        }
    ]


async def test_handoff_passes_the_conversation_to_the_target_for_the_rest_of_the_run() -> None:
    triage, _, triage_model, billing_model = desk(
        [transfer("h1", "billing", "Passing you to billing.")],
        [
            ProviderResponse(
                tool_calls=[ToolCall(id="r1", name="refund", arguments={"order": "A7"})]
            ),
            "Your order A7 is refunded.",
        ],
    )
    seen = recorder(triage)

    response = await triage.chat("Refund order A7 please.")

    transcript = [
        user("Refund order A7 please."),
        asked("h1", "transfer_to_billing", text="Passing you to billing."),
        answered("h1", "transfer_to_billing", "Transferred to billing."),
    ]
    assert [(r.system, r.messages) for r in triage_model.requests] == [
        ("You route questions.", transcript[:1])
    ]
    assert [(r.system, r.messages) for r in billing_model.requests] == [
        ("You handle billing.", transcript),
        (
            "You handle billing.",
            [
                *transcript,
                asked("r1", "refund", {"order": "A7"}),
                answered("r1", "refund", "refunded A7"),
            ],
        ),
    ]
    assert [t["function"]["name"] for t in billing_model.requests[0].tools] == ["refund"]
    assert (response.content, response.agent, response.iterations, response.finish_reason) == (
        "Your order A7 is refunded.",
        "billing",
        3,
        "stop",
    )
    assert triage.history == [
        *billing_model.requests[1].messages,
        said("Your order A7 is refunded."),
    ]

    rows = [(name, ctx.agent, ctx.branch, ctx.iteration) for name, ctx in seen]
    assert rows == [
        ("on_chat_start", "triage", "triage", None),
        ("on_user_message", "triage", "triage", None),
        ("on_message", "triage", "triage", None),
        ("pre_agent", "triage", "triage", None),
        ("on_loop_start", "triage", "triage", 0),
        ("transform_context", "triage", "triage", 0),
        ("pre_request", "triage", "triage", 0),
        ("on_response", "triage", "triage", 0),
        ("on_message", "triage", "triage", 0),
        ("pre_tool_call", "triage", "triage", 0),
        ("pre_handoff", "triage", "triage", 0),
        ("pre_agent", "billing", "billing", 0),
        ("on_tool_call_result", "triage", "triage", 0),
        ("on_message", "triage", "triage", 0),
        ("on_handoff", "billing", "billing", 0),
        ("on_loop_end", "billing", "billing", 0),
        ("prepare_next_turn", "billing", "billing", 0),
        ("should_stop", "billing", "billing", 0),
        ("on_loop_start", "billing", "billing", 1),
        ("transform_context", "billing", "billing", 1),
        ("pre_request", "billing", "billing", 1),
        ("on_response", "billing", "billing", 1),
        ("on_message", "billing", "billing", 1),
        ("pre_tool_call", "billing", "billing", 1),
        ("on_tool_call_result", "billing", "billing", 1),
        ("on_message", "billing", "billing", 1),
        ("on_loop_end", "billing", "billing", 1),
        ("prepare_next_turn", "billing", "billing", 1),
        ("should_stop", "billing", "billing", 1),
        ("on_loop_start", "billing", "billing", 2),
        ("transform_context", "billing", "billing", 2),
        ("pre_request", "billing", "billing", 2),
        ("on_response", "billing", "billing", 2),
        ("on_loop_end", "billing", "billing", 2),
        ("post_agent", "billing", "billing", 2),
        ("on_message", "billing", "billing", 2),
        ("on_chat_done", "billing", "billing", 2),
        ("on_chat_end", "billing", "billing", 2),
    ]
    assert {ctx.run_id for _, ctx in seen} == {seen[0][1].run_id}
    assert all(ctx.parent_run_id is None for _, ctx in seen)
    handoffs = [
        (c.from_agent, c.to_agent)
        for n, c in seen  # type: ignore[attr-defined]
        if n in ("pre_handoff", "on_handoff")
    ]
    assert handoffs == [("triage", "billing"), ("triage", "billing")]
    post = [c for n, c in seen if n == "post_agent"]
    assert len(post) == 1 and post[0].response.agent == "billing"  # type: ignore[attr-defined]
    pre_agent = [c for n, c in seen if n == "pre_agent"]
    assert [c.input for c in pre_agent] == ["Refund order A7 please."] * 2  # type: ignore[attr-defined]


async def test_pre_handoff_deny_keeps_the_current_agent_and_tells_the_model() -> None:
    triage, _, triage_model, billing_model = desk(
        [transfer("h1", "billing"), "I will help you myself."], []
    )
    seen = recorder(triage)
    triage.on("pre_handoff", lambda c: Deny("billing is closed today"), match="billing")

    response = await triage.chat("Refund order A7.")

    assert billing_model.requests == []
    assert triage_model.requests[1].system == "You route questions."
    assert triage_model.requests[1].messages == [
        user("Refund order A7."),
        asked("h1", "transfer_to_billing"),
        answered("h1", "transfer_to_billing", "billing is closed today", is_error=True),
    ]
    assert (response.content, response.agent) == ("I will help you myself.", "triage")
    names = [n for n, _ in seen]
    assert "on_handoff" not in names
    assert names[names.index("pre_tool_call") : names.index("on_loop_end")] == [
        "pre_tool_call",
        "pre_handoff",
        "on_tool_call_error",
        "on_message",
    ]
    error = next(c for n, c in seen if n == "on_tool_call_error")
    assert (error.source, error.error) == ("denied", "billing is closed today")  # type: ignore[attr-defined]
    assert {c.agent for _, c in seen} == {"triage"}


async def test_pre_handoff_match_tests_the_target_name() -> None:
    triage, _, _, billing_model = desk([transfer("h1", "billing")], ["Billing here."])
    triage.on("pre_handoff", lambda c: Deny("no"), match="support")

    response = await triage.chat("Refund.")

    assert (response.content, response.agent) == ("Billing here.", "billing")
    assert len(billing_model.requests) == 1


async def test_pre_agent_deny_on_the_target_acts_like_a_pre_handoff_deny() -> None:
    triage, _, triage_model, billing_model = desk(
        [transfer("h1", "billing"), "Staying with triage."], []
    )
    seen = recorder(triage)
    triage.on(
        "pre_agent", lambda c: Deny("billing is not available") if c.agent == "billing" else None
    )

    response = await triage.chat("Refund order A7.")

    assert billing_model.requests == []
    assert triage_model.requests[1].messages[-1] == answered(
        "h1", "transfer_to_billing", "billing is not available", is_error=True
    )
    assert (response.content, response.agent, response.finish_reason) == (
        "Staying with triage.",
        "triage",
        "stop",
    )
    names = [n for n, _ in seen]
    assert names[names.index("pre_tool_call") : names.index("on_loop_end")] == [
        "pre_tool_call",
        "pre_handoff",
        "pre_agent",
        "on_tool_call_error",
        "on_message",
    ]
    assert "on_handoff" not in names
    assert [c.agent for n, c in seen if n == "post_agent"] == ["triage"]


async def test_handoff_target_post_agent_answer_replaces_the_content() -> None:
    triage, billing, _, _ = desk([transfer("h1", "billing")], ["raw answer"])
    agents: list[str] = []

    def sign(ctx: Any) -> dict[str, Any]:
        agents.append(ctx.agent)
        return {"response": ctx.response.model_copy(update={"content": "signed answer"})}

    triage.on("post_agent", sign)
    billing.on("post_agent", lambda c: agents.append("billing's own bus"))

    response = await triage.chat("Refund.")

    assert agents == ["billing"]  # the run's bus; the target's own bus is not used
    assert (response.content, response.agent) == ("signed answer", "billing")
    assert triage.history[-1] == said("signed answer")


async def test_one_turn_counter_across_the_handoff_under_the_running_agents_limit() -> None:
    triage, billing, _, billing_model = desk(
        [transfer("h1", "billing")],
        [ProviderResponse(tool_calls=[ToolCall(id="r1", name="refund", arguments={"order": "A"})])],
    )
    billing.max_turns = 2  # billing itself makes one turn: the triage turn counts too
    stops: list[tuple[str, str]] = []
    triage.on("on_stop", lambda c: stops.append((c.agent, c.reason)))

    with pytest.raises(MaxTurnsExceeded) as caught:
        await triage.chat("Refund.")

    assert str(caught.value) == (
        "agent 'billing' reached max_turns=2 with the model still asking for tools"
    )
    assert [m.role for m in caught.value.messages] == [
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
    ]
    assert len(billing_model.requests) == 1
    assert stops == [("billing", "max_turns")]


@tool
def note(text: str) -> str:
    """Take a note."""
    return f"noted {text}"


@pytest.mark.parametrize("parallel", [False, True])
async def test_calls_beside_a_handoff_run_as_the_agent_that_made_them(parallel: bool) -> None:
    billing_model = ScriptedProvider(["Billing here."])
    billing = Agent("billing", "You handle billing.", provider=billing_model, tools=[refund])
    triage_model = ScriptedProvider(
        [
            ProviderResponse(
                tool_calls=[
                    ToolCall(id="h1", name="transfer_to_billing"),
                    ToolCall(id="n1", name="note", arguments={"text": "customer is upset"}),
                ]
            )
        ]
    )
    triage = Agent(
        "triage",
        provider=triage_model,
        tools=[note],
        handoffs=[billing],
        parallel_tool_calls=parallel,
    )
    seen: list[tuple[str, str, str]] = []
    for event in ("pre_tool_call", "on_tool_call_result", "on_tool_call_error"):
        triage.on(event, lambda c, e=event: seen.append((e, c.call.name, c.agent)))
    triage.on("on_handoff", lambda c: seen.append(("on_handoff", c.to_agent, c.agent)))
    triage.on("on_loop_end", lambda c: seen.append(("on_loop_end", "", c.agent)))

    response = await triage.chat("Refund, and note that I am upset.")

    pre = [("pre_tool_call", "transfer_to_billing", "triage"), ("pre_tool_call", "note", "triage")]
    post = [
        ("on_tool_call_result", "transfer_to_billing", "triage"),
        ("on_tool_call_result", "note", "triage"),
    ]
    interleaved = [pre[0], post[0], pre[1], post[1]]
    assert seen == [
        *(pre + post if parallel else interleaved),
        ("on_handoff", "billing", "billing"),
        ("on_loop_end", "", "billing"),
        ("on_loop_end", "", "billing"),
    ]
    assert billing_model.requests[0].messages[-2:] == [
        answered("h1", "transfer_to_billing", "Transferred to billing."),
        answered("n1", "note", "noted customer is upset"),
    ]
    assert (response.content, response.agent) == ("Billing here.", "billing")
