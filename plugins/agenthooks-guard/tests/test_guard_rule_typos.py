"""A rule naming a tool with one slip (a letter dropped, two swapped, one doubled) is reported
once, naming the rule, the name as written and the closest tool the agents offer; a rule
naming a tool exactly is not reported. Every slip of every tool of an agent with tools, a
sub-agent and a handoff."""

from __future__ import annotations

import asyncio

import pytest
from agenthooks_guard import Guard, Policy, Rule
from structlog.testing import capture_logs

from agenthooks import Agent, ProviderResponse, ScriptedProvider, Session, ToolCall, tool


@tool
def delete_file(path: str) -> str:
    """Delete a file."""
    return f"deleted {path}"


@tool
def search(query: str) -> str:
    """Search."""
    return query


@tool
def lookup(key: str) -> str:
    """The sub-agent's tool."""
    return key


TOOLS = ["delete_file", "search", "finder", "lookup", "transfer_to_closer"]
"""What the agents offer: two tools, the sub-agent, its tool and the handoff."""


def typos(name: str) -> list[str]:
    """Names one slip from ``name``: a letter dropped, two swapped, one doubled."""
    out = [name[:i] + name[i + 1 :] for i in range(1, len(name))]
    out += [name[:i] + name[i + 1] + name[i] + name[i + 2 :] for i in range(1, len(name) - 1)]
    out += [name[:i] + name[i] + name[i:] for i in range(1, len(name))]
    return [t for t in dict.fromkeys(out) if t != name]


CASES = [(name, name) for name in TOOLS] + [(typo, name) for name in TOOLS for typo in typos(name)]


def lead(written: str) -> Agent:
    finder = Agent("finder", provider=ScriptedProvider(lambda r: "found"), tools=[lookup])
    closer = Agent("closer", provider=ScriptedProvider(lambda r: "closed"))
    agent = Agent(
        "lead",
        provider=ScriptedProvider(
            [
                ProviderResponse(
                    tool_calls=[ToolCall(id="c1", name="finder", arguments={"task": "t"})]
                ),
                "done",
                "done",
            ]
        ),
        tools=[delete_file, search],
        sub_agents=[finder],
        handoffs=[closer],
    )
    agent.use(Guard(Policy([Rule(written, "deny", name="the rule")])))
    return agent


@pytest.mark.parametrize(("written", "meant"), CASES, ids=[w for w, _ in CASES])
def test_a_rule_naming_no_tool_is_reported_once_with_the_closest(written: str, meant: str) -> None:
    agent = lead(written)

    async def two_chats() -> None:
        await Session(agent).chat("one")
        await Session(agent).chat("two")

    with capture_logs() as logs:
        asyncio.run(two_chats())

    reports = [e for e in logs if e["event"] == "guard_rule_names_no_tool"]
    if written == meant:
        assert reports == []
    else:
        assert len(reports) == 1
        assert (reports[0]["rule"], reports[0]["tool"], reports[0]["closest"]) == (
            "rules[0] ('the rule')",
            written,
            meant,
        )
