"""Guards judge what will run, wherever the run goes: ``pre_tool_call`` carries the validated
arguments the tool receives, and the guards of a handoff target's own bus (and of every agent
before it on the path) judge the rest of the run."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, Field

from agenthooks import (
    Agent,
    Deny,
    FinalResponse,
    HookBus,
    ProviderResponse,
    ScriptedProvider,
    TextDelta,
    ToolCall,
    tool,
)

RAN: list[dict[str, Any]] = []


@tool
def wipe(force: bool = False, depth: int = 1) -> str:
    """Wipe a disk."""
    RAN.append({"force": force, "depth": depth})
    return "wiped"


def calls(*items: tuple[str, dict[str, Any]]) -> ProviderResponse:
    return ProviderResponse(
        tool_calls=[ToolCall(id=f"c{i}", name=n, arguments=a) for i, (n, a) in enumerate(items)]
    )


def deny_force(ctx: Any) -> Deny | None:
    return Deny("no forced wipes") if ctx.call.arguments.get("force") is True else None


async def test_pre_tool_call_sees_the_validated_arguments_the_tool_gets() -> None:
    RAN.clear()
    seen: list[dict[str, Any]] = []
    model = ScriptedProvider(
        [calls(("wipe", {"force": "yes", "depth": "3"}), ("wipe", {"force": 0})), "done"]
    )
    agent = Agent("a", provider=model, tools=[wipe])
    agent.on("pre_tool_call", lambda ctx: seen.append(dict(ctx.call.arguments)))
    agent.on("on_tool_call_result", lambda ctx: seen.append(dict(ctx.call.arguments)))
    await agent.chat("go")
    # the defaults the tool gets are there too; the types are the tool's
    assert seen == [
        {"force": True, "depth": 3},
        {"force": True, "depth": 3},
        {"force": False, "depth": 1},
        {"force": False, "depth": 1},
    ]
    assert [type(v) for v in seen[0].values()] == [bool, int]
    assert RAN == [{"force": True, "depth": 3}, {"force": False, "depth": 1}]
    # history keeps what the model said
    assert agent.history[1].tool_calls[0].arguments == {"force": "yes", "depth": "3"}


async def test_a_guard_on_the_validated_value_is_not_bypassed_by_coercion() -> None:
    for spelled in ("true", "yes", "1", "on", "TRUE", "Yes", 1, 1.0, True):
        RAN.clear()
        model = ScriptedProvider([calls(("wipe", {"force": spelled})), "done"])
        agent = Agent("a", provider=model, tools=[wipe])
        agent.on("pre_tool_call", deny_force, guard=True)
        await agent.chat("go")
        assert RAN == [], spelled
        assert model.requests[1].messages[-1].content == "no forced wipes"


def handoff_pair(target_bus: HookBus | None = None) -> tuple[Agent, Agent, ScriptedProvider]:
    target_model = ScriptedProvider([calls(("wipe", {"force": "on"})), "wiped or not"])
    target = Agent("ops", provider=target_model, tools=[wipe], bus=target_bus)
    source_model = ScriptedProvider([calls(("transfer_to_ops", {}))])
    source = Agent("front", provider=source_model, handoffs=[target])
    return source, target, target_model


async def test_a_handoff_targets_own_guard_judges_its_tools() -> None:
    RAN.clear()
    source, target, target_model = handoff_pair()
    target.on("pre_tool_call", deny_force, guard=True)
    response = await source.chat("please wipe")
    assert RAN == []
    assert target_model.requests[1].messages[-1].content == "no forced wipes"
    assert response.agent == "ops"


async def test_the_targets_ordinary_handlers_stay_on_its_own_bus() -> None:
    seen: list[str] = []
    source, target, _ = handoff_pair()
    target.on("on_loop_start", lambda ctx: seen.append("target-ordinary"))
    target.on("pre_tool_call", deny_force, guard=True)
    source.on("on_loop_start", lambda ctx: seen.append("source"))
    await source.chat("go")
    assert seen == ["source", "source", "source"]  # events fire on the run's bus


async def test_the_sources_guards_keep_judging_after_the_handoff() -> None:
    RAN.clear()
    source, target, _ = handoff_pair()
    target.on("on_loop_start", lambda ctx: None)  # the target has a bus of its own
    source.on("pre_tool_call", deny_force, guard=True)
    await source.chat("go")
    assert RAN == []


async def test_a_parents_guards_and_a_handoff_targets_guards_both_reach_a_sub_agents_run() -> None:
    """root delegates to helper (own bus), helper hands off to ops (own bus): ops runs under
    the root's guards and its own."""
    RAN.clear()
    judged: list[str] = []
    ops_model = ScriptedProvider(
        [calls(("wipe", {"force": "1"})), calls(("wipe", {"depth": "2"})), "ops done"]
    )
    ops = Agent("ops", provider=ops_model, tools=[wipe])
    ops.on("pre_tool_call", lambda ctx: judged.append("ops") or None, guard=True)
    helper = Agent(
        "helper", provider=ScriptedProvider([calls(("transfer_to_ops", {}))]), handoffs=[ops]
    )
    helper.on("on_loop_start", lambda ctx: None)
    root = Agent(
        "root",
        provider=ScriptedProvider([calls(("helper", {"task": "wipe it"})), "root done"]),
        sub_agents=[helper],
    )
    root.on("pre_tool_call", deny_force, guard=True)
    await root.chat("go")
    assert RAN == [{"force": False, "depth": 2}]
    assert judged == ["ops"]  # the forced call was denied by the root before ops judged it
    assert ops_model.requests[1].messages[-1].content == "no forced wipes"


async def test_a_targets_pre_agent_guard_is_the_handoffs_second_gate() -> None:
    target = Agent("ops", provider=ScriptedProvider(["never asked"]))
    target.on("pre_agent", lambda ctx: Deny("ops is closed"), guard=True)
    source_model = ScriptedProvider([calls(("transfer_to_ops", {})), "stayed"])
    source = Agent("front", provider=source_model, handoffs=[target])
    response = await source.chat("go")
    assert (response.agent, response.content) == ("front", "stayed")
    assert source_model.requests[1].messages[-1].content == "ops is closed"


async def test_a_stream_turns_gated_when_the_target_guards_post_agent() -> None:
    target_model = ScriptedProvider(["raw answer"])
    target = Agent("ops", provider=target_model)
    target.on(
        "post_agent",
        lambda ctx: {"response": ctx.response.model_copy(update={"content": "checked answer"})},
        guard=True,
    )
    source = Agent(
        "front",
        provider=ScriptedProvider(
            [
                ProviderResponse(
                    content="handing over",
                    tool_calls=[ToolCall(id="h", name="transfer_to_ops", arguments={})],
                )
            ]
        ),
        handoffs=[target],
    )
    items = [item async for item in source.chat_stream("go")]
    texts = [i.text for i in items if isinstance(i, TextDelta)]
    # the source's text went out as it came; the target's answer only once post_agent allowed it
    assert texts == ["handing ", "over", "checked answer"]
    assert isinstance(items[-1], FinalResponse)
    assert items[-1].response.content == "checked answer"


CAPPED: list[Any] = []


@tool
def capped_pay(
    amount: Annotated[float, Field(gt=0, le=100)],
    to: Annotated[str, AfterValidator(str.lower)],
) -> str:
    """Pay at most 100."""
    CAPPED.append((amount, to))
    return "paid"


async def test_annotated_constraints_of_a_tool_parameter_are_enforced_and_seen_by_hooks() -> None:
    seen: list[dict[str, Any]] = []
    model = ScriptedProvider(
        [
            calls(
                ("capped_pay", {"amount": 1000, "to": "EVE"}),
                ("capped_pay", {"amount": "50", "to": "Bob"}),
            ),
            "ok",
        ]
    )
    agent = Agent("a", provider=model, tools=[capped_pay])
    agent.on("pre_tool_call", lambda ctx: seen.append(dict(ctx.call.arguments)))
    await agent.chat("pay")
    assert CAPPED == [(50.0, "bob")]
    assert seen == [{"amount": 50.0, "to": "bob"}]  # the invalid call never reaches pre_tool_call
    assert model.requests[1].messages[-2].content == (
        "invalid arguments for tool 'capped_pay': amount: Input should be less than or equal to 100"
    )
