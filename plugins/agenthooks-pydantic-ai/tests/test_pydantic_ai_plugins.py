"""agenthooks' plugins, unchanged, on a Pydantic AI agent: the guard from a TOML policy, the
limits, the OpenTelemetry spans and the Redis publisher's records (a real Redis)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator

import pytest
import redis
from agenthooks_guard import Guard
from agenthooks_limits import Cap, Limits
from agenthooks_otel import OtelPlugin
from agenthooks_redis import RedisEventPublisher
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pydantic_ai import DeferredToolRequests
from pydantic_ai_script import PROMPT, Script, conversation_script, file_agent, tool_returns
from test_pydantic_ai_conversation import EXPECTED

from agenthooks import HookBus, StopRun
from agenthooks.testing import require

POLICY = """
default = "allow"

[[rules]]
name = "no-deletes"
tool = "delete_file"
action = "deny"
reason = "Deleting files is not allowed."

[redact]
patterns = ["email"]
"""

REDIS_URL = "redis://127.0.0.1:6379/0"


async def test_the_guard_policy_denies_the_call_and_redacts_results() -> None:
    bus = HookBus()
    bus.use(Guard.from_toml(POLICY))
    script = Script(
        [
            ("delete_file", {"path": "/tmp/a.txt"}, "call_1"),
            ("read_file", {"path": "/home/ada@example.com/b.txt"}, "call_2"),
        ],
        "done",
    )
    agent, ran = file_agent(script, bus)

    result = await agent.run(PROMPT)

    assert result.output == "done"
    assert ran == ["read_file /home/ada@example.com/b.txt"]
    assert tool_returns(script.requests[1]) == [
        ("call_1", "Deleting files is not allowed.", "denied"),
        ("call_2", "contents of /home/[REDACTED:email]/b.txt", "success"),
    ]


async def test_a_guard_ask_rule_pauses_through_deferred_tools() -> None:
    bus = HookBus()
    bus.use(
        Guard.from_toml(
            'ask = "pause"\n[[rules]]\ntool = "delete_file"\naction = "ask"\n'
            'reason = "a human approves deletes"\n'
        )
    )
    agent, ran = file_agent(conversation_script(), bus, output_type=[str, DeferredToolRequests])

    result = await agent.run(PROMPT)

    assert isinstance(result.output, DeferredToolRequests)
    assert [c.tool_call_id for c in result.output.approvals] == ["call_1"]
    assert ran == ["read_file /tmp/b.txt"]


async def test_the_limits_deny_a_call_over_the_cap() -> None:
    bus = HookBus()
    bus.use(Limits(max_tool_calls=Cap(1, "deny")))
    script = conversation_script()
    agent, ran = file_agent(script, bus)

    result = await agent.run(PROMPT)

    assert result.output == "done"
    assert len(ran) == 1
    denied = [r for r in tool_returns(script.requests[1]) if r[2] == "denied"]
    assert len(denied) == 1 and "tool call limit" in denied[0][1]


async def test_the_limits_stop_a_run_over_its_turns() -> None:
    bus = HookBus()
    bus.use(Limits(max_turns=1))
    errors: list[BaseException] = []
    bus.on("on_chat_error", lambda ctx: errors.append(ctx.error))
    script = conversation_script()
    agent, _ = file_agent(script, bus)

    with pytest.raises(StopRun) as raised:
        await agent.run(PROMPT)

    assert "turn" in raised.value.reason
    assert script.calls == 1
    assert errors == [raised.value]


async def test_the_otel_plugin_gets_one_span_per_run_model_call_and_tool_call() -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    bus = HookBus()
    bus.use(OtelPlugin(tracer_provider=provider))
    agent, _ = file_agent(conversation_script(), bus)

    result = await agent.run(PROMPT)

    spans = exporter.get_finished_spans()
    root = [s for s in spans if s.parent is None]
    assert [s.name for s in root] == ["invoke_agent files"]
    assert root[0].attributes["agenthooks.run_id"] == result.run_id
    children = sorted(s.name for s in spans if s.parent is not None)
    model = next(s for s in spans if s.name.startswith("chat")).name
    assert children == sorted([model, model, "execute_tool delete_file", "execute_tool read_file"])
    assert all(s.parent.span_id == root[0].context.span_id for s in spans if s.parent)
    tool = next(s for s in spans if s.name == "execute_tool delete_file")
    assert tool.attributes["gen_ai.tool.call.id"] == "call_1"


@pytest.fixture
def stream() -> Iterator[str]:
    client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2)
    try:
        client.ping()
    except redis.RedisError as exc:
        client.close()
        require(f"no Redis at 127.0.0.1:6379: {exc}")
    name = f"agenthooks-pydantic-ai-test:{uuid.uuid4().hex}"
    yield name
    client.delete(name)
    client.close()


@pytest.mark.server
async def test_the_redis_publisher_gets_every_record_in_order(stream: str) -> None:
    bus = HookBus()
    publisher = RedisEventPublisher(REDIS_URL, stream=stream)
    bus.use(publisher)
    agent, _ = file_agent(conversation_script(), bus)

    result = await agent.run(PROMPT)
    await publisher.aclose()

    client = redis.Redis.from_url(REDIS_URL, decode_responses=True)
    try:
        entries = client.xrange(stream)
    finally:
        client.close()
    assert [fields["type"] for _, fields in entries] == EXPECTED
    assert [int(fields["seq"]) for _, fields in entries] == list(range(1, len(EXPECTED) + 1))
    assert {fields["run_id"] for _, fields in entries} == {result.run_id}
    records = [json.loads(fields["record"]) for _, fields in entries]
    calls = sorted(
        (r["tool_call_id"], r["tool_name"]) for r in records if r["type"] == "pre_tool_call"
    )
    assert calls == [("call_1", "delete_file"), ("call_2", "read_file")]
