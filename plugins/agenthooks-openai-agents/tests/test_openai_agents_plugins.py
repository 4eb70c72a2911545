"""The project's plugins, unchanged, on an Agents SDK run: the guard from a TOML policy, the
limits, the OpenTelemetry spans and the Redis publisher's records."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
import redis.asyncio as aioredis
from agenthooks_guard import Guard
from agenthooks_limits import Limits
from agenthooks_openai_agents import AgentHooksRunner
from agenthooks_otel import OtelPlugin
from agenthooks_redis import RedisEventPublisher
from agents import function_tool
from agents.testing import ModelStep, assistant_message, function_call
from agents.usage import Usage as SDKUsage
from openai_agents_helpers import USER, Recorder, read_file, scripted_agent, tool_outputs
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from agenthooks import HookBus, StopRun

POLICY = Path(__file__).resolve().parents[3] / "examples" / "bridges_policy.toml"
REDIS = "redis://127.0.0.1:6379/0"

deleted: list[str] = []


@function_tool
def delete_file(path: str) -> str:
    """Delete a file."""
    deleted.append(path)
    return f"deleted {path}"


async def test_the_guard_policy_denies_the_call_the_model_then_reads(bus: HookBus) -> None:
    deleted.clear()
    bus.use(Guard.from_file(POLICY))
    agent, model = scripted_agent(tools=[delete_file, read_file])

    result = await AgentHooksRunner(bus).run(agent, USER)

    assert deleted == []
    assert tool_outputs(model, 1) == {
        "call_1": "Deleting files is not allowed.",
        "call_2": "contents of /tmp/b.txt",
    }
    assert result.final_output == "done"


async def test_the_guard_redacts_tool_results_and_checks_arguments(bus: HookBus) -> None:
    bus.use(
        Guard.from_toml(
            """
            default = "allow"

            [[rules]]
            tool = "read_file"
            action = "deny"
            reason = "Not under /etc."
            args.path.startswith = "/etc"

            [redact]
            patterns = ["email"]
            """
        )
    )

    @function_tool
    def lookup(name: str) -> str:
        """Find a contact."""
        return f"{name}: ada@example.com"

    agent, model = scripted_agent(
        [
            [
                function_call("read_file", {"path": "/etc/passwd"}, call_id="c1"),
                function_call("lookup", {"name": "Ada"}, call_id="c2"),
            ],
            [assistant_message("ok")],
        ],
        tools=[read_file, lookup],
    )

    await AgentHooksRunner(bus).run(agent, "look")

    assert tool_outputs(model, 1) == {"c1": "Not under /etc.", "c2": "Ada: [REDACTED:email]"}


async def test_the_limits_deny_a_tool_over_its_cap(bus: HookBus) -> None:
    bus.use(Limits(max_calls_per_tool={"read_file": 1}))
    agent, model = scripted_agent(
        [
            [
                function_call("read_file", {"path": "/a"}, call_id="c1"),
            ],
            [function_call("read_file", {"path": "/b"}, call_id="c2")],
            [assistant_message("read one")],
        ]
    )

    await AgentHooksRunner(bus).run(agent, "read both")

    assert tool_outputs(model, 2) == {
        "c1": "contents of /a",
        "c2": 'Tool call "read_file" was denied (tool call limit for "read_file": 1 of 1 calls used)',
    }


async def test_the_limits_stop_a_run_over_its_token_budget(
    bus: HookBus, recorder: Recorder
) -> None:
    bus.use(Limits(max_tokens=100))
    spent = SDKUsage(requests=1, input_tokens=90, output_tokens=30, total_tokens=120)
    agent, model = scripted_agent(
        [
            ModelStep(
                output=[function_call("read_file", {"path": "/a"}, call_id="c1")], usage=spent
            ),
            [assistant_message("never asked")],
        ]
    )

    with pytest.raises(StopRun) as caught:
        await AgentHooksRunner(bus).run(agent, "read")

    assert "token limit" in caught.value.reason
    assert len(model.calls) == 1
    assert recorder.of("on_stop")[0].reason == caught.value.reason
    assert recorder.names[-3:] == ["on_stop", "on_chat_error", "on_chat_end"]


async def test_the_otel_plugin_traces_the_run_its_model_and_tool_calls(bus: HookBus) -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    bus.use(OtelPlugin(tracer_provider=provider))
    agent, _ = scripted_agent()

    await AgentHooksRunner(bus).run(agent, USER)

    spans = exporter.get_finished_spans()
    names = sorted(span.name for span in spans)
    assert names == sorted(
        [
            "invoke_agent assistant",
            "chat ScriptedModel",
            "chat ScriptedModel",
            "execute_tool delete_file",
            "execute_tool read_file",
        ]
    )
    root = next(s for s in spans if s.name == "invoke_agent assistant")
    assert root.parent is None
    assert all(
        s.parent is not None and s.parent.span_id == root.context.span_id
        for s in spans
        if s is not root
    )
    tools = {
        s.attributes["gen_ai.tool.call.id"] for s in spans if s.name.startswith("execute_tool")
    }
    assert tools == {"call_1", "call_2"}


@pytest.mark.server
async def test_the_redis_publisher_records_every_event_of_the_run(
    bus: HookBus, recorder: Recorder
) -> None:
    stream = f"test:openai-agents:{uuid.uuid4().hex}"
    publisher = RedisEventPublisher(REDIS, stream=stream)
    bus.use(publisher)
    agent, _ = scripted_agent()

    await AgentHooksRunner(bus).run(agent, USER)
    await publisher.aclose()

    client = aioredis.from_url(REDIS)
    try:
        entries = await client.xrange(stream)
        await client.delete(stream)
    finally:
        await client.aclose()
    records = [json.loads(fields[b"record"]) for _, fields in entries]
    assert [r["type"] for r in records] == recorder.names
    run_id = recorder.seen[0][1].run_id
    assert {r["run_id"] for r in records} == {run_id}
    assert [int(fields[b"seq"]) for _, fields in entries] == list(range(1, len(entries) + 1))
    tool_records = [r for r in records if r["type"] == "pre_tool_call"]
    assert sorted((r["tool_call_id"], r["tool_name"]) for r in tool_records) == [
        ("call_1", "delete_file"),
        ("call_2", "read_file"),
    ]
