"""A rule whose ``tool`` names no tool the agents offer matches nothing: the guard says so
once, after the first run shows it the tools, naming the rule and the closest tool."""

from __future__ import annotations

import asyncio
import re
from typing import Any

from agenthooks_guard import Guard, Policy, Rule, parse_policy
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
    """Look up (the sub-agent's tool)."""
    return key


def tree(delegates: bool = True) -> Agent:
    """``lead`` (delete_file, search, the sub-agent ``finder`` with lookup, a handoff to
    ``closer``); its first run delegates to ``finder`` when ``delegates``."""
    finder = Agent("finder", provider=ScriptedProvider(lambda r: "found"), tools=[lookup])
    closer = Agent("closer", provider=ScriptedProvider(lambda r: "closed"))
    first: list[Any] = (
        [ProviderResponse(tool_calls=[ToolCall(id="c1", name="finder", arguments={"task": "x"})])]
        if delegates
        else []
    )
    return Agent(
        "lead",
        provider=ScriptedProvider([*first, "done", "done", "done"]),
        tools=[delete_file, search],
        sub_agents=[finder],
        handoffs=[closer],
    )


def reported(agent: Agent, runs: int = 2) -> list[dict[str, Any]]:
    """The guard's rule-name warnings over ``runs`` runs of ``agent``."""

    async def go() -> None:
        for n in range(runs):
            await Session(agent).chat(f"run {n}")

    with capture_logs() as logs:
        asyncio.run(go())
    return [e for e in logs if e["event"] == "guard_rule_names_no_tool"]


OFFERED = "lead: delete_file, search, finder, transfer_to_closer; finder: lookup"


def test_a_misspelt_tool_is_reported_once_naming_the_rule_and_the_closest_tool() -> None:
    policy = parse_policy(
        """
        [[rules]]
        tool = "search"
        action = "allow"

        [[rules]]
        name = "no-delete"
        tool = ["delete_fle", "search"]
        action = "deny"
        """,
        source="policy.toml",
    )
    agent = tree()
    agent.use(Guard(policy))
    assert reported(agent) == [
        {
            "event": "guard_rule_names_no_tool",
            "log_level": "warning",
            "rule": "policy.toml: rules[1] ('no-delete')",
            "tool": "delete_fle",
            "closest": "delete_file",
            "tools": OFFERED,
            "hint": "rule policy.toml: rules[1] ('no-delete'): tool 'delete_fle' names no tool "
            "the agents offer, so it matches nothing; did you mean 'delete_file'?",
        }
    ]
    # reported: the watcher is gone, so later runs pay nothing for it
    assert agent.bus.handlers("on_chat_start") == []
    assert agent.bus.handlers("on_chat_end") == []


def test_names_of_every_agent_the_first_run_reached_count() -> None:
    rules = [
        Rule("lookup", "deny"),  # the sub-agent's tool: it ran in the first run
        Rule("finder", "allow"),  # the sub-agent itself, as the tool the lead calls
        Rule("transfer_to_closer", "deny"),  # the handoff, as a tool
        Rule(re.compile("^shell_"), "ask"),  # regexes are not checked
        Rule({"regex": "^sudo"}, "deny"),
        Rule(None, "allow"),  # every tool
    ]
    agent = tree()
    agent.use(Guard(Policy(rules), approver=lambda call, ctx: True))
    assert reported(agent) == []


def test_a_name_near_nothing_has_no_closest_and_a_rule_in_code_is_named_by_index() -> None:
    agent = tree(delegates=False)
    agent.use(Guard(Policy([Rule("search", "allow"), Rule("format_disk", "deny")])))
    assert [(e["rule"], e["tool"], e["closest"], e["hint"]) for e in reported(agent)] == [
        (
            "rules[1]",
            "format_disk",
            None,
            "rule rules[1]: tool 'format_disk' names no tool the agents offer, so it matches "
            "nothing",
        )
    ]


def test_a_policy_without_named_tools_watches_nothing() -> None:
    agent = tree(delegates=False)
    agent.use(Guard(Policy([Rule(re.compile("delete"), "deny")])))
    assert agent.bus.handlers("on_chat_start") == []
    assert reported(agent, runs=1) == []
