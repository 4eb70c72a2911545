"""The existing plugins work on a bridged LangChain agent unchanged: the guard from a TOML
policy, the limits, the OpenTelemetry spans, the Redis publisher's records."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
import redis.asyncio as aioredis
from agenthooks_guard import Guard
from agenthooks_limits import Limits
from agenthooks_otel import OtelPlugin
from agenthooks_redis import RedisEventPublisher
from langchain_core.messages import AIMessage, ToolMessage
from langchain_scripted import Recorder, agent, ask, calls, conversation_model, ran, script
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from agenthooks import HookBus, StopRun

POLICY = """
default = "allow"

[[rules]]
name = "no-deletes"
tool = "delete_file"
action = "deny"
reason = "Deleting files is not allowed."

[[rules]]
name = "flags-stay-off"
tool = "set_flag"
action = "deny"
args.on = true
reason = "Flags stay off."
"""

REDIS_URL = "redis://127.0.0.1:6379/0"


async def test_the_guard_from_a_toml_policy_denies_the_call() -> None:
    bus = HookBus()
    bus.use(Guard.from_toml(POLICY))
    model = conversation_model()
    out = await agent(model, bus).ainvoke(ask())
    assert ran == [("read_file", {"path": "/tmp/b.txt"})]
    denied = next(
        m for m in out["messages"] if isinstance(m, ToolMessage) and m.tool_call_id == "call_1"
    )
    assert (denied.content, denied.status) == ("Deleting files is not allowed.", "error")
    assert out["messages"][-1].content == "done"


async def test_the_guard_judges_coerced_arguments() -> None:
    bus = HookBus()
    bus.use(Guard.from_toml(POLICY))
    model = script(calls(("c1", "set_flag", {"name": "beta", "on": "true"})), "ok")
    out = await agent(model, bus).ainvoke(ask())
    assert ran == []
    assert [m.content for m in out["messages"] if isinstance(m, ToolMessage)] == ["Flags stay off."]


async def test_limits_deny_a_call_over_its_cap_and_stop_a_run_over_its_turns() -> None:
    bus = HookBus()
    bus.use(Limits(max_calls_per_tool={"read_file": 1}))
    model = script(
        calls(("c1", "read_file", {"path": "/a"}), ("c2", "read_file", {"path": "/b"})), "ok"
    )
    out = await agent(model, bus).ainvoke(ask())
    assert len(ran) == 1
    statuses = sorted(m.status for m in out["messages"] if isinstance(m, ToolMessage))
    assert statuses == ["error", "success"]

    stopping = HookBus()
    stopping.use(Limits(max_turns=1))
    recorder = Recorder(stopping)
    with pytest.raises(StopRun):
        await agent(conversation_model(), stopping).ainvoke(ask())
    assert recorder.events[-2:] == ["on_chat_error", "on_chat_end"]
    assert len(recorder.of("pre_request")) == 1  # the second turn was stopped before it
    assert [r.output for r in recorder.of("on_stop")] == ["turn limit: 1 of 1 turns used"]


async def test_limits_count_the_usage_langchain_reports() -> None:
    bus = HookBus()
    bus.use(Limits(max_tokens=150))
    used = AIMessage(
        content="",
        tool_calls=[{"id": "c1", "name": "read_file", "args": {"path": "/a"}, "type": "tool_call"}],
        usage_metadata={"input_tokens": 120, "output_tokens": 40, "total_tokens": 160},
    )
    usages: list[Any] = []
    bus.on("on_chat_error", lambda ctx: usages.append(ctx.usage))
    with pytest.raises(StopRun):
        await agent(script(used, "never"), bus).ainvoke(ask())
    assert (usages[0].input_tokens, usages[0].output_tokens, usages[0].total_tokens) == (
        120,
        40,
        160,
    )


async def test_the_otel_plugin_traces_the_run() -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    bus = HookBus()
    bus.use(OtelPlugin(tracer_provider=provider))
    await agent(conversation_model(), bus, name="filer").ainvoke(ask())
    spans = exporter.get_finished_spans()
    names = sorted(span.name for span in spans)
    assert names == [
        "chat ScriptedModel",
        "chat ScriptedModel",
        "execute_tool delete_file",
        "execute_tool read_file",
        "invoke_agent filer",
    ]
    (root,) = [s for s in spans if s.parent is None]
    assert all(s.parent.span_id == root.context.span_id for s in spans if s is not root)


@pytest.mark.server
async def test_the_redis_publisher_records_the_run() -> None:
    stream = f"langchain-bridge:{uuid.uuid4()}"
    bus = HookBus()
    publisher = RedisEventPublisher(REDIS_URL, stream=stream)
    bus.use(publisher)
    run_id = uuid.uuid4()
    await agent(conversation_model(), bus).ainvoke(ask(), {"run_id": run_id})
    await publisher.aclose()
    client = aioredis.from_url(REDIS_URL)
    try:
        entries = await client.xrange(stream)
        await client.delete(stream)
    finally:
        await client.aclose()
    fields = [{k.decode(): v.decode() for k, v in e[1].items()} for e in entries]
    assert {f["run_id"] for f in fields} == {str(run_id)}
    assert [int(f["seq"]) for f in fields] == list(range(1, len(fields) + 1))
    assert fields[0]["type"] == "on_chat_start"
    assert fields[-1]["type"] == "on_chat_end"
    tools = [json.loads(f["record"]) for f in fields if f["type"] == "pre_tool_call"]
    assert sorted((r["tool_call_id"], r["tool_name"]) for r in tools) == [
        ("call_1", "delete_file"),
        ("call_2", "read_file"),
    ]


async def test_the_cache_middleware_wraps_langchains_model_call() -> None:
    from agenthooks_cache import CachePlugin

    bus = HookBus()
    bus.use(CachePlugin())
    first = conversation_model()
    await agent(first, bus).ainvoke(ask())
    again = conversation_model()
    out = await agent(again, bus).ainvoke(ask())
    assert len(first.sent) == 2
    assert again.sent == []  # both requests were answered from the cache
    assert out["messages"][-1].content == "done"
    assert len(ran) == 4  # the tools still ran, twice each


async def test_the_retry_middleware_retries_inside_the_hook_layer() -> None:
    from agenthooks_retry import RetryMiddleware

    bus = HookBus()
    bus.use(RetryMiddleware(attempts=2, initial=0, jitter=0))
    errors: list[BaseException] = []
    bus.on("on_model_error", lambda ctx: errors.append(ctx.error))
    model = script(ConnectionError("blip"), "ok")
    out = await agent(model, bus).ainvoke(ask())
    assert out["messages"][-1].content == "ok"
    assert len(model.sent) == 2
    assert errors == []  # on_model_error sees only what the retries gave up on
