"""Every Pydantic AI attribute the bridge reads by shape (the README's "Framework internals"),
looked up on the installed Pydantic AI the way the bridge uses it: a release that moves,
renames or reshapes one fails the test named after it, and the README lists exactly the
attributes tested here."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai import Agent, RunContext
from pydantic_ai.models.test import TestModel
from pydantic_ai.toolsets import FunctionToolset

README = Path(__file__).resolve().parents[1] / "README.md"


def weather_agent() -> Agent[None, str]:
    agent: Agent[None, str] = Agent(TestModel())

    @agent.tool
    def lookup(ctx: RunContext[None], city: str) -> str:
        """The weather in a city."""
        manager = ctx.tool_manager
        assert manager is not None and manager.tools is not None
        SEEN.update({name: tool.tool_def.kind for name, tool in manager.tools.items()})
        return f"Sunny in {city}"

    return agent


SEEN: dict[str, str] = {}


async def tool_manager_tools() -> None:
    SEEN.clear()
    await weather_agent().run("Weather in Paris?")
    assert SEEN == {"lookup": "function"}


async def agent_toolsets() -> None:
    toolsets = list(weather_agent().toolsets)
    assert any(isinstance(t, FunctionToolset) and "lookup" in t.tools for t in toolsets)


async def function_toolset_tools() -> None:
    def lookup(city: str) -> str:
        """The weather in a city."""
        return city

    tools: Any = FunctionToolset([lookup]).tools
    assert list(tools) == ["lookup"]


INTERNALS: dict[str, Callable[[], Awaitable[None]]] = {
    "RunContext.tool_manager.tools": tool_manager_tools,
    "Agent.toolsets": agent_toolsets,
    "FunctionToolset.tools": function_toolset_tools,
}


@pytest.mark.parametrize("internal", list(INTERNALS))
async def test_the_attribute_is_where_the_bridge_reads_it(internal: str) -> None:
    await INTERNALS[internal]()


def test_the_readme_lists_exactly_the_attributes_tested_here() -> None:
    section = README.read_text(encoding="utf-8").split("\n## Framework internals\n", 1)[1]
    section = section.split("\n## ", 1)[0]
    listed = re.findall(r"^\| `([^`]+)` \|", section, flags=re.MULTILINE)
    assert listed == list(INTERNALS)
