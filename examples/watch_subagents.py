"""Watch an agent delegate to sub-agents (called as tools) and what they return.

Seed 004 (subagent-hooks.ts): ``onSubagentStart`` logging "<agent> is delegating to
<sub-agent>", ``onSubagentStop`` logging the first 100 characters of the result.

Output:
    editor is delegating to fact_checker (task: check the launch date)
    fact_checker returned: The launch was on 4 October 1957 (Sputnik 1).
    editor is delegating to stylist (task: tighten the intro)
    stylist returned: Tightened: 'Sputnik 1 launched on 4 October 1957, opening the space age and starting a race that wou ...
"""

import asyncio

from agenthooks import Agent, ProviderResponse, ScriptedProvider, ToolCall
from agenthooks.events import SubagentContext


def on_start(ctx: SubagentContext) -> None:
    print(f"{ctx.agent} is delegating to {ctx.subagent} (task: {ctx.task})")


def on_stop(ctx: SubagentContext) -> None:
    result = str(ctx.result)
    print(f"{ctx.subagent} returned: {result[:100]}" + (" ..." if len(result) > 100 else ""))


def delegate(name: str, task: str) -> ProviderResponse:
    return ProviderResponse(tool_calls=[ToolCall(id="", name=name, arguments={"task": task})])


async def main() -> None:
    fact_checker = Agent(
        "fact_checker", provider=ScriptedProvider(["The launch was on 4 October 1957 (Sputnik 1)."])
    )
    stylist = Agent(
        "stylist",
        provider=ScriptedProvider(
            [
                (
                    "Tightened: 'Sputnik 1 launched on 4 October 1957, opening the space age and "
                    "starting a race that would end on the Moon.'"
                )
            ]
        ),
    )
    editor = Agent(
        "editor",
        sub_agents=[fact_checker, stylist],
        provider=ScriptedProvider(
            [
                delegate("fact_checker", "check the launch date"),
                delegate("stylist", "tighten the intro"),
                "The article is ready.",
            ]
        ),
    )
    editor.on("onSubagentStart", on_start)
    editor.on("onSubagentStop", on_stop)
    await editor.chat("Edit the Sputnik article")


if __name__ == "__main__":
    asyncio.run(main())
