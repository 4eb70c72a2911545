"""A tool's arguments are validated with the model the SDK built it with, strict or not: a
tool declared ``strict_mode=False`` (a free-form ``dict`` argument, which a strict schema
refuses) runs through the hooks like any other, and a validation error is the model's."""

from __future__ import annotations

from typing import Any

from agenthooks_openai_agents import AgentHooksRunner
from agents import Agent, function_tool
from agents.testing import ScriptedModel, assistant_message, function_call
from openai_agents_helpers import USER

from agenthooks import HookBus


def save(data: dict[str, Any], count: int) -> str:
    """Save a record."""
    return f"saved {sorted(data)} x{count}"


async def test_a_tool_built_without_a_strict_schema_runs_through_the_hooks() -> None:
    bus = HookBus()
    seen: list[dict[str, Any]] = []
    bus.on("pre_tool_call", lambda ctx: seen.append(ctx.call.arguments))
    model = ScriptedModel()
    model.extend(
        [
            [function_call("save", {"data": {"b": 1, "a": 2}, "count": "3"}, call_id="call_1")],
            [assistant_message("done")],
        ]
    )
    agent = Agent(name="assistant", model=model, tools=[function_tool(save, strict_mode=False)])
    result = await AgentHooksRunner(bus).run(agent, USER)
    # coerced by the tool's own argument model ("3" for an int is 3), as the body gets them
    assert seen == [{"data": {"b": 1, "a": 2}, "count": 3}]
    outputs = [item.output for item in result.new_items if item.type == "tool_call_output_item"]
    assert outputs == ["saved ['a', 'b'] x3"]
    assert result.final_output == "done"
