"""Hooks reach sub-agents: log every tool call with the branch of the agent that made it.

Seed 003: ``PreToolUse`` logging the tool name and ``Branch`` (the agent path,
"orchestrator/researcher"); hook propagation: a sub-agent without hooks of its own inherits
its parent's, one with its own keeps them (here the parent's guard still applies to it, so a
policy is never bypassed).

Output:
    Tool call: researcher (branch: orchestrator)
    guard on orchestrator: researcher allowed
    Tool call: scraper (branch: orchestrator/researcher)
    guard on orchestrator/researcher: scraper allowed
    [scraper's own hook] fetch on orchestrator/researcher/scraper
    guard on orchestrator/researcher/scraper: fetch allowed
    answer: Three sources agree.
"""

import asyncio

from agenthooks import Agent, HookBus, ProviderResponse, ScriptedProvider, ToolCall, tool
from agenthooks.events import PreToolCallContext


@tool
def fetch(url: str) -> str:
    """Fetch a page."""
    return "<html>...</html>"


def delegate(name: str, task: str) -> ProviderResponse:
    return ProviderResponse(tool_calls=[ToolCall(id="", name=name, arguments={"task": task})])


def log_tool_call(ctx: PreToolCallContext) -> None:
    print(f"Tool call: {ctx.call.name} (branch: {ctx.branch})")


def policy(ctx: PreToolCallContext) -> None:
    print(f"guard on {ctx.branch}: {ctx.call.name} allowed")


async def main() -> None:
    scraper = Agent(
        "scraper",
        bus=HookBus(),
        tools=[fetch],
        provider=ScriptedProvider(
            [
                ProviderResponse(
                    tool_calls=[
                        ToolCall(id="", name="fetch", arguments={"url": "https://example.com"})
                    ]
                ),
                "Scraped.",
            ]
        ),
    )
    scraper.on(
        "pre_tool_call", lambda ctx: print(f"[scraper's own hook] {ctx.call.name} on {ctx.branch}")
    )
    researcher = Agent(
        "researcher",
        sub_agents=[scraper],
        provider=ScriptedProvider([delegate("scraper", "scrape example.com"), "Researched."]),
    )
    orchestrator = Agent(
        "orchestrator",
        sub_agents=[researcher],
        provider=ScriptedProvider(
            [delegate("researcher", "research the topic"), "Three sources agree."]
        ),
    )

    orchestrator.on("PreToolUse", log_tool_call)  # reaches researcher, which has no hooks
    orchestrator.on("PreToolUse", policy, guard=True)  # guards reach every sub-agent
    response = await orchestrator.chat("What do the sources say?")
    print("answer:", response.content)


if __name__ == "__main__":
    asyncio.run(main())
