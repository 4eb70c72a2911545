"""Every LangChain internal the bridge relies on (the README's "Framework internals"), looked
up on the installed LangChain the way the bridge uses it: a release that moves, renames or
reshapes one fails the test named after it, and the README lists exactly the internals tested
here."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from uuid import uuid4

import pytest
from agenthooks_langchain import watch
from langchain.agents import create_agent
from langchain_core.callbacks import AsyncCallbackManager
from langchain_core.tracers.context import register_configure_hook
from langchain_scripted import script

README = Path(__file__).resolve().parents[1] / "README.md"


def ls_integration() -> None:
    agent = create_agent(script("done"), [])
    assert agent.config is not None
    assert agent.config["metadata"]["ls_integration"] == watch._AGENT_GRAPH


def configure_hook() -> None:
    assert callable(register_configure_hook)
    watch.install()
    # LangChain adds each registered handler to a manager it configures, in any context
    manager = AsyncCallbackManager.configure()
    assert watch.NODE_PARENTS in manager.handlers
    assert watch.RUN_ENDS in manager.handlers
    assert watch.NODE_PARENTS in manager.inheritable_handlers


def parent_run_id() -> None:
    node, graph = uuid4(), uuid4()
    manager = AsyncCallbackManager(handlers=[], parent_run_id=node)
    assert manager.parent_run_id == node
    # the bridge finds the graph run of the node whose manager a hook's config carries
    watch.NODE_PARENTS.parents[node] = graph
    try:
        assert watch.NODE_PARENTS.graph_run({"callbacks": manager}) == graph
    finally:
        del watch.NODE_PARENTS.parents[node]


INTERNALS: dict[str, Callable[[], None]] = {
    "ls_integration": ls_integration,
    "register_configure_hook": configure_hook,
    "parent_run_id": parent_run_id,
}


@pytest.mark.parametrize("internal", list(INTERNALS))
def test_the_internal_is_where_the_bridge_uses_it(internal: str) -> None:
    INTERNALS[internal]()


def test_the_readme_lists_exactly_the_internals_tested_here() -> None:
    section = README.read_text(encoding="utf-8").split("\n## Framework internals\n", 1)[1]
    section = section.split("\n## ", 1)[0]
    listed = re.findall(r"^\| `([^`]+)` \|", section, flags=re.MULTILINE)
    assert listed == list(INTERNALS)
