"""The recorded scenario the record, trace and CLI tests share: an agent run with a denied,
a failing and a delegated call and a recovered model error, its recording, and a clock made
deterministic. Imported by name (pytest puts this folder on sys.path; the cli and trace
folders' conftest add it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agenthooks import Agent, Deny, ProviderResponse, ScriptedProvider, ToolCall, Usage, tool
from agenthooks.record import Recorder


def usage(n_in: int, n_out: int) -> Usage:
    return Usage(input_tokens=n_in, output_tokens=n_out, total_tokens=n_in + n_out)


def calls(*items: tuple[str, dict[str, Any]], tokens: tuple[int, int] = (0, 0)) -> ProviderResponse:
    return ProviderResponse(
        tool_calls=[ToolCall(id="", name=name, arguments=args) for name, args in items],
        usage=usage(*tokens),
    )


@tool
def search(query: str) -> str:
    """Search the knowledge base."""
    return f"3 hits for {query}"


@tool
def delete_file(path: str) -> str:
    """Delete a file."""
    return f"deleted {path}"


@tool
def flaky_api() -> str:
    """An API that is down."""
    raise ConnectionError("upstream returned 503")


@tool
def lookup(topic: str) -> str:
    """Look a topic up."""
    return f"notes on {topic}"


def scenario() -> Agent:
    """``support`` asks for three tools at once (one denied, one failing), then delegates to
    the ``researcher`` sub-agent, then answers; a model error in between is recovered."""
    researcher = Agent(
        "researcher",
        "Research topics.",
        provider=ScriptedProvider(
            [
                calls(("lookup", {"topic": "hooks"}), tokens=(12, 4)),
                ProviderResponse(
                    content="Hooks fire at every lifecycle point.", usage=usage(20, 8)
                ),
            ]
        ),
        tools=[lookup],
    )
    support = Agent(
        "support",
        "Help users.",
        model="demo-model",
        provider=ScriptedProvider(
            [
                calls(
                    ("search", {"query": "hooks"}),
                    ("delete_file", {"path": "/etc"}),
                    ("flaky_api", {}),
                    tokens=(30, 12),
                ),
                ConnectionError("model overloaded"),
                calls(("researcher", {"task": "explain hooks"}), tokens=(50, 9)),
                ProviderResponse(
                    content="Hooks let you observe and change every step.", usage=usage(70, 11)
                ),
            ]
        ),
        tools=[search, delete_file, flaky_api],
        sub_agents=[researcher],
        parallel_tool_calls=True,
    )
    support.on("pre_tool_call", lambda ctx: Deny("file deletion is disabled"), match="delete_file")
    support.on(
        "on_model_error",
        lambda ctx: {
            "response": ProviderResponse(
                content=None,
                tool_calls=[ToolCall(id="retry_1", name="search", arguments={"query": "retry"})],
            )
        },
    )
    return support


async def record_scenario() -> list[dict[str, Any]]:
    """The scenario's recording, in memory."""
    agent = scenario()
    recorder = Recorder()
    recorder.attach(agent)
    await agent.chat("How do hooks work?")
    return recorder.records


def deterministic(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``records`` with times that depend only on the order: record n at n milliseconds. A
    tool's ``duration`` (how long it ran, which the trace draws) is kept on the same clock:
    the time since its ``pre_tool_call`` record; 0 (a call that never ran) stays 0."""
    started: dict[Any, float] = {}
    out = []
    for record in records:
        r = {
            **record,
            "mono": record["seq"] / 1000,
            "timestamp": 1_700_000_000 + record["seq"] / 1000,
        }
        if r["type"] == "pre_tool_call":
            started[r["tool_call_id"]] = r["mono"]
        elif r["type"] in ("on_tool_call_result", "on_tool_call_error") and r.get("duration"):
            r["duration"] = r["mono"] - started.get(r["tool_call_id"], r["mono"])
        out.append(r)
    return out


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


SCENARIO_TREE = """\
agent support  78 ms  tokens 182 in / 44 out  → stop
├─ turn 0  14 ms
│  ├─ model call demo-model  1.0 ms  tokens 30 in / 12 out  → tools: search, delete_file, flaky_api
│  ├─ tool search({"query": "hooks"})  3.0 ms  → 3 hits for hooks
│  ├─ tool delete_file({"path": "/etc"})  0.0 ms  DENIED: file deletion is disabled
│  └─ tool flaky_api()  5.0 ms  ERROR: ConnectionError: upstream returned 503
├─ turn 1  9.0 ms
│  ├─ model call demo-model  2.0 ms  RECOVERED: ConnectionError: model overloaded
│  └─ tool search({"query": "retry"})  1.0 ms  → 3 hits for retry
├─ turn 2  34 ms
│  ├─ model call demo-model  1.0 ms  tokens 50 in / 9 out  → tools: researcher
│  └─ tool researcher({"task": "explain hooks"})  27 ms  → Hooks fire at every lifecycle point.
│     └─ agent researcher  23 ms  tokens 32 in / 12 out  → stop
│        ├─ turn 0  8.0 ms
│        │  ├─ model call  1.0 ms  tokens 12 in / 4 out  → tools: lookup
│        │  └─ tool lookup({"topic": "hooks"})  1.0 ms  → notes on hooks
│        └─ turn 1  4.0 ms
│           └─ model call  1.0 ms  tokens 20 in / 8 out  → 'Hooks fire at every lifecycle point.'
└─ turn 3  4.0 ms
   └─ model call demo-model  1.0 ms  tokens 70 in / 11 out  → 'Hooks let you observe and change every step.'
"""
"""The scenario's trace tree (``agenthooks trace``) on the deterministic clock."""
