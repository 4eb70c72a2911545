"""A paused run and its resumption: each part ends its own spans, under one run id, and the
resumed part's span joins the paused part's trace (also in a fresh process, from a store)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import structlog
from otel_traced import Traced

from agenthooks import (
    Agent,
    Approve,
    Ask,
    ProviderResponse,
    ScriptedProvider,
    Session,
    ToolCall,
    tool,
)
from agenthooks.stores import SQLiteStore


@tool
def pay(amount: int) -> str:
    """Pay."""
    return f"paid {amount}"


async def test_each_part_of_a_paused_run_ends_its_spans(traced: Traced) -> None:
    agent = Agent(
        "payer",
        provider=ScriptedProvider(
            [
                ProviderResponse(
                    tool_calls=[ToolCall(id="p1", name="pay", arguments={"amount": 9})]
                ),
                "ok",
            ]
        ),
        tools=[pay],
    )
    agent.on("pre_tool_call", lambda ctx: Ask("sure?"))
    agent.use(traced.plugin)
    with structlog.testing.capture_logs() as logs:
        paused = await agent.chat("pay")
        assert paused.finish_reason == "paused"
        assert traced.plugin.open_spans == 0
        first = traced.names
        done = await agent.resume({"p1": Approve()})
        assert done.content == "ok"
        assert traced.plugin.open_spans == 0
    assert [entry for entry in logs if entry["log_level"] in ("warning", "error")] == []
    # the asked call's span ends with the paused part; the resumed part runs it again
    assert first == ["chat", "execute_tool pay", "invoke_agent payer"]
    assert traced.names[3:] == ["execute_tool pay", "chat", "invoke_agent payer"]
    runs = {s.attributes["agenthooks.run_id"] for s in traced.spans if s.name.startswith("invoke")}
    assert len(runs) == 1  # one run id across the pause


def _script() -> ScriptedProvider:
    return ScriptedProvider(
        [ProviderResponse(tool_calls=[ToolCall(id="p1", name="pay", arguments={"amount": 9})])]
    )


def _invocations(traced: Traced) -> list[Any]:
    return [s for s in traced.spans if s.name == "invoke_agent payer"]


async def test_the_resumed_run_s_span_joins_the_paused_run_s_trace(traced: Traced) -> None:
    agent = Agent("payer", provider=_script(), tools=[pay])
    agent.on("pre_tool_call", lambda ctx: Ask("sure?"))
    agent.use(traced.plugin)
    await agent.chat("pay")
    agent.provider = ScriptedProvider(["ok"])
    await agent.resume({"p1": Approve()})
    paused, resumed = _invocations(traced)
    assert paused.context is not None and resumed.context is not None
    assert resumed.context.trace_id == paused.context.trace_id  # one trace for the run
    assert resumed.parent is not None and resumed.parent.span_id == paused.context.span_id
    assert resumed.attributes is not None and resumed.attributes["agenthooks.resumed"] is True
    assert "agenthooks.resumed" not in (paused.attributes or {})
    # the resumed part's tool and chat spans are in the same trace, under the resumed span
    rest = [s for s in traced.spans[3:] if s is not resumed]
    assert [s.name for s in rest] == ["execute_tool pay", "chat"]
    assert {s.context.trace_id for s in rest if s.context} == {paused.context.trace_id}
    assert {s.parent.span_id for s in rest if s.parent} == {resumed.context.span_id}


async def test_a_fresh_plugin_resuming_a_stored_run_joins_its_trace(tmp_path: Path) -> None:
    first, second = Traced(), Traced()
    store = SQLiteStore(str(tmp_path / "sessions.db"))
    try:
        agent = Agent("payer", provider=_script(), tools=[pay])
        agent.on("pre_tool_call", lambda ctx: Ask("sure?"))
        agent.use(first.plugin)
        assert (await Session(agent, store=store, session_id="s").chat("pay")).pending
        # another process: a new agent, bus and plugin (exporting elsewhere)
        again = Agent("payer", provider=ScriptedProvider(["ok"]), tools=[pay])
        again.on("pre_tool_call", lambda ctx: Ask("sure?"))
        again.use(second.plugin)
        done = await Session(again, store=store, session_id="s").resume({"p1": Approve()})
        assert done.content == "ok"
    finally:
        await store.aclose()
    [paused] = _invocations(first)
    [resumed] = _invocations(second)
    assert paused.context is not None and resumed.context is not None
    assert resumed.context.trace_id == paused.context.trace_id
    assert resumed.parent is not None and resumed.parent.span_id == paused.context.span_id
    assert resumed.parent.is_remote
