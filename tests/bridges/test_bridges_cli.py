"""``agenthooks bridges`` over the five installed bridge distributions (found through their
entry points, as a user's install finds them): each declaration as ``--json`` prints it, built
on the baseline every bridge honours, with its gaps worded one way; and the text form lists
all five with the capability table."""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agenthooks.bridges import BASELINE_FIRES, BASELINE_HONOURS
from agenthooks.bridges.capabilities import returns
from agenthooks.events.catalog import CATALOG

pytestmark = pytest.mark.subprocess

SCRIPT = Path(sys.executable).parent / "agenthooks"

# what each bridge adds to the baseline: fires (in catalog order), honours, and its gaps' keys
EXPECTED: dict[str, dict[str, Any]] = {
    "adk": {
        "framework": "Google ADK",
        "distribution": "agenthooks-adk",
        "setup": "Runner(app=App(name=..., root_agent=agent, plugins=[AgentHooksPlugin(bus)]), ...)",
        "fires": [
            "on_stream_start",
            "on_stream_chunk",
            "on_stream_end",
            "on_stream_error",
            "on_subagent_start",
            "on_subagent_stop",
            "pre_handoff",
            "on_handoff",
            "on_run_resumed",
        ],
        "honours": {
            "on_tool_call_result": ["terminate"],
            "on_tool_call_error": ["terminate"],
            "pre_handoff": ["deny"],
        },
        "gaps": ["on_chat_abort", "on_chat_error", "on_model_error.error", "pre_handoff.ask"],
    },
    "langchain": {
        "framework": "LangChain",
        "distribution": "agenthooks-langchain",
        "setup": "create_agent(model, tools, middleware=[AgentHooksMiddleware(bus)])",
        "fires": [
            "pre_agent",
            "transform_context",
            "prepare_next_turn",
            "should_stop",
            "on_run_resumed",
            "on_subagent_start",
            "on_subagent_stop",
        ],
        "honours": {
            "pre_agent": ["deny", "response"],
            "transform_context": ["messages"],
            "on_model_error": ["error"],
            "should_stop": ["true"],
        },
        "gaps": [
            "on_chat_abort",
            "on_stream_chunk",
            "on_tool_call_error.terminate",
            "on_tool_call_result.terminate",
            "pre_handoff",
            "pre_request.request",
            "pre_tool_call.ask",
            "prepare_next_turn",
        ],
    },
    "openai_agents": {
        "framework": "OpenAI Agents SDK",
        "distribution": "agenthooks-openai-agents",
        "setup": "await AgentHooksRunner(bus).run(agent, input)",
        "fires": [
            "pre_agent",
            "transform_context",
            "on_stream_start",
            "on_stream_chunk",
            "on_stream_end",
            "on_stream_error",
            "prepare_next_turn",
            "should_stop",
            "on_subagent_start",
            "on_subagent_stop",
            "pre_handoff",
            "on_handoff",
            "on_run_resumed",
        ],
        "honours": {
            "pre_agent": ["deny", "response"],
            "transform_context": ["messages"],
            "on_model_error": ["error"],
            "should_stop": ["true"],
            "on_tool_call_result": ["terminate"],
            "on_tool_call_error": ["terminate"],
            "prepare_next_turn": ["model", "thinking"],
        },
        "gaps": [
            "on_chat_start.deny",
            "on_user_message.deny",
            "pre_agent.deny",
            "pre_handoff.ask",
            "pre_handoff.deny",
            "prepare_next_turn.messages",
            "prepare_next_turn.provider",
        ],
    },
    "pydantic_ai": {
        "framework": "Pydantic AI",
        "distribution": "agenthooks-pydantic-ai",
        "setup": "Agent(model, tools=..., capabilities=[AgentHooksCapability(bus)])",
        "fires": [
            "pre_agent",
            "transform_context",
            "prepare_next_turn",
            "should_stop",
            "on_run_resumed",
            "on_subagent_start",
            "on_subagent_stop",
        ],
        "honours": {
            "pre_agent": ["deny", "response"],
            "transform_context": ["messages"],
            "on_model_error": ["error"],
            "should_stop": ["true"],
        },
        "gaps": [
            "on_chat_start.deny",
            "on_stream_chunk",
            "on_tool_call_error.terminate",
            "on_tool_call_result.terminate",
            "post_agent.response",
            "pre_agent.response",
            "pre_handoff",
            "pre_request.request",
            "prepare_next_turn",
            "should_stop.true",
        ],
    },
    "strands": {
        "framework": "Strands",
        "distribution": "agenthooks-strands",
        "setup": "Agent(model=..., tools=..., plugins=[AgentHooksPlugin(bus)])",
        "fires": [
            "pre_agent",
            "transform_context",
            "on_stream_start",
            "on_stream_chunk",
            "on_stream_end",
            "on_stream_error",
            "prepare_next_turn",
            "should_stop",
            "on_subagent_start",
            "on_subagent_stop",
            "on_run_resumed",
        ],
        "honours": {
            "pre_agent": ["deny", "response"],
            "transform_context": ["messages"],
            "on_model_error": ["error"],
            "should_stop": ["true"],
            "on_tool_call_result": ["terminate"],
            "on_tool_call_error": ["terminate"],
        },
        "gaps": [
            "on_stream_chunk",
            "post_agent.deny",
            "pre_agent",
            "pre_handoff",
            "prepare_next_turn",
        ],
    },
}


@functools.cache  # one run per command line: each imports the five frameworks (seconds)
def cli(*args: str) -> str:
    done = subprocess.run(
        [str(SCRIPT), "bridges", *args], capture_output=True, text=True, timeout=120, check=True
    )
    return done.stdout


def with_baseline(extra: dict[str, Any]) -> dict[str, Any]:
    """What ``describe()`` prints for a bridge that adds ``extra`` to the baseline."""
    fires = BASELINE_FIRES | set(extra["fires"])
    honours = {event: set(keys) for event, keys in BASELINE_HONOURS.items()}
    for event, keys in extra["honours"].items():
        honours[event] = honours.get(event, set()) | set(keys)
    return {
        "framework": extra["framework"],
        "distribution": extra["distribution"],
        "setup": extra["setup"],
        "fires": [name for name in CATALOG if name in fires],
        "honours": {name: sorted(honours[name]) for name in CATALOG if name in honours},
        "gaps": extra["gaps"],
    }


def test_bridges_json_prints_each_declaration_on_the_baseline() -> None:
    got = json.loads(cli("--json"))
    assert list(got) == sorted(EXPECTED)
    for name, extra in EXPECTED.items():
        printed = dict(got[name], gaps=sorted(got[name]["gaps"]))
        assert printed == with_baseline(extra), name


def test_every_gap_is_worded_one_way() -> None:
    # the key names an event, or an event and one of its returns; the text is one clause with
    # no final period, starting lowercase or with a name
    for name, caps in json.loads(cli("--json")).items():
        for key, why in caps["gaps"].items():
            event, _, returned = key.partition(".")
            if returned:
                assert returned in returns(event), (name, key)
            else:
                assert event in CATALOG, (name, key)
            assert why and "\n" not in why and not why.endswith("."), (name, key)
            assert why[0].islower() or why.split()[0][0].isupper(), (name, key)


def test_bridges_lists_all_five_with_the_capability_table() -> None:
    text = cli()
    for name, extra in EXPECTED.items():
        assert (
            f"{name}: {extra['framework']} ({extra['distribution']})\n  {extra['setup']}\n" in text
        )
    header = "| event | " + " | ".join(EXPECTED[n]["framework"] for n in sorted(EXPECTED)) + " |"
    assert header in text
    # one row per event any bridge fires, five cells each
    fired = {e for extra in EXPECTED.values() for e in extra["fires"]} | BASELINE_FIRES
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    assert [row.split("`")[1] for row in rows] == [e for e in CATALOG if e in fired]
    assert all(row.count(" | ") == 5 for row in rows)
    assert (
        "| `pre_tool_call` | " + " | ".join(["Ask, `call`, Deny, `error`, `result`"] * 5) + " |"
        in rows
    )
    # a predicate's True is a return like any other: the table says who carries it out
    assert "| `should_stop` | - | True | True | True | True |" in rows
