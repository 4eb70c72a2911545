"""agenthooks' own plugins, unchanged, on an ADK agent: the guard from a TOML policy, the
limits, the OpenTelemetry spans and the Redis publisher."""

from __future__ import annotations

import uuid
from typing import Any

import adk_scripted as s
import pytest
from agenthooks_guard import Guard
from agenthooks_limits import Limits
from agenthooks_otel import OtelPlugin
from agenthooks_redis import RedisEventConsumer, RedisEventPublisher
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from agenthooks import HookBus

MESSAGE = "Delete /tmp/a.txt and read /tmp/b.txt"
REDIS = "redis://127.0.0.1:6379/0"

POLICY = """
default = "allow"
ask = "pause"

[[rules]]
name = "no-deletes"
tool = "delete_file"
action = "deny"
reason = "Deleting files is not allowed."

[[rules]]
tool = "read_file"
action = "ask"
args.path.startswith = "/etc"

[redact]
patterns = ["email"]
"""


@pytest.fixture(autouse=True)
def _clean() -> None:
    s.RAN.clear()


def lookup(name: str) -> str:
    """Find someone's contact."""
    return f"{name}: ada@example.com"


async def test_the_guard_denies_and_redacts_from_a_toml_policy() -> None:
    bus = HookBus()
    bus.use(Guard.from_toml(POLICY))
    model = s.ScriptedLlm(
        script=[
            s.model_turn(
                s.call("delete_file", "call_1", path="/tmp/a.txt"),
                s.call("lookup", "call_2", name="Ada"),
            ),
            s.model_turn("done"),
        ]
    )
    await s.run(s.runner(bus, model, [s.delete_file, lookup]), MESSAGE)
    assert s.RAN == []
    assert s.tool_messages(model.requests[1]) == [
        ("call_1", {"error": "Deleting files is not allowed."}),
        ("call_2", {"result": "Ada: [REDACTED:email]"}),
    ]


async def test_the_guards_ask_pauses_the_adk_run() -> None:
    bus = HookBus()
    bus.use(Guard.from_toml(POLICY))
    paused: list[Any] = []
    bus.on("on_chat_paused", lambda ctx: paused.append(ctx.response.pending))
    model = s.ScriptedLlm(script=[s.model_turn(s.call("read_file", "c", path="/etc/passwd"))])
    events = await s.run(s.runner(bus, model), "read it")
    assert s.RAN == []
    assert [p.call_id for p in paused[0]] == ["c"]
    assert any(
        fc.name == "adk_request_confirmation" for e in events for fc in e.get_function_calls()
    )


async def test_the_limits_plugin_caps_the_calls_of_a_tool() -> None:
    bus = HookBus()
    bus.use(Limits(max_calls_per_tool={"read_file": 1}))
    model = s.ScriptedLlm(
        script=[
            s.model_turn(s.call("read_file", "c1", path="/tmp/1")),
            s.model_turn(s.call("read_file", "c2", path="/tmp/2")),
            s.model_turn("done"),
        ]
    )
    await s.run(s.runner(bus, model), "read twice")
    assert s.RAN == [("read_file", {"path": "/tmp/1", "verbose": False})]
    ((call_id, response),) = s.tool_messages(model.requests[2])[-1:]
    assert call_id == "c2" and "read_file" in response["error"]


async def test_the_otel_plugin_records_the_runs_spans() -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    bus = HookBus()
    bus.use(OtelPlugin(tracer_provider=provider))
    await s.run(s.runner(bus, s.ScriptedLlm(script=s.conversation())), MESSAGE)
    spans = exporter.get_finished_spans()
    names = sorted(span.name for span in spans)
    assert names == [
        "chat scripted",
        "chat scripted",
        "execute_tool delete_file",
        "execute_tool read_file",
        "invoke_agent assistant",
    ]
    (root,) = [span for span in spans if span.parent is None]
    assert root.name == "invoke_agent assistant"
    assert all(
        span.parent is not None and span.parent.span_id == root.context.span_id
        for span in spans
        if span is not root
    )


@pytest.mark.server
async def test_the_redis_publisher_records_every_event_with_adks_ids() -> None:
    stream = f"adk-bridge:{uuid.uuid4().hex}"
    bus = HookBus()
    publisher = RedisEventPublisher(REDIS, stream=stream)
    bus.use(publisher)
    events = await s.run(s.runner(bus, s.ScriptedLlm(script=s.conversation())), MESSAGE)
    await publisher.aclose()
    consumer = RedisEventConsumer(REDIS, stream=stream, group="test", consumer="one")
    records: list[Any] = []

    @consumer.on("on_event")
    def every(record: Any) -> None:
        records.append(record)
        if record.type == "on_chat_end":
            consumer.stop()

    await consumer.run()
    assert publisher.stats.sent == len(records) == 22
    assert {record.run_id for record in records} == {events[0].invocation_id}
    tools = [(r.tool_call_id, r.tool_name) for r in records if r.type == "pre_tool_call"]
    assert sorted(tools) == [("call_1", "delete_file"), ("call_2", "read_file")]
    assert [record.seq for record in records] == list(range(1, 23))


async def test_the_cache_plugin_answers_a_repeated_run_without_adks_model_or_tool() -> None:
    from agenthooks_cache import CachePlugin

    bus = HookBus()
    cache = CachePlugin(tools=["read_file"], ttl=3600, max_entries=50)
    bus.use(cache)
    model = s.ScriptedLlm(
        script=[s.model_turn(s.call("read_file", "c1", path="/tmp/b.txt")), s.model_turn("done")]
    )
    runner = s.runner(bus, model)
    first = await s.run(runner, "read b", session="one")
    second = await s.run(runner, "read b", session="two")
    assert s.final_text(first) == s.final_text(second) == "done"
    assert len(model.requests) == 2  # the second run's model calls came from the cache
    assert s.RAN == [("read_file", {"path": "/tmp/b.txt", "verbose": False})]
