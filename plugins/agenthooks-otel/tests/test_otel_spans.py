"""The spans of ordinary runs: names, kinds, attributes, parent links, content capture,
sessions, streaming, handoffs, and loading the plugin from its entry point."""

from __future__ import annotations

from typing import Any

from agenthooks_otel import OtelPlugin
from opentelemetry.trace import SpanKind, StatusCode
from otel_traced import Traced

from agenthooks import (
    Agent,
    FinalResponse,
    HookBus,
    ProviderResponse,
    ScriptedProvider,
    Session,
    ToolCall,
    Usage,
    tool,
)


@tool
def weather(city: str) -> str:
    """The weather in a city."""
    return f"Sunny in {city}"


def weather_agent(**options: Any) -> Agent:
    script = ScriptedProvider(
        [
            ProviderResponse(
                tool_calls=[ToolCall(id="call_w", name="weather", arguments={"city": "Paris"})],
                finish_reason="tool_calls",
                usage=Usage(input_tokens=12, output_tokens=7, total_tokens=19),
            ),
            ProviderResponse(
                content="It is sunny in Paris.",
                usage=Usage(input_tokens=30, output_tokens=4, total_tokens=34),
            ),
        ]
    )
    return Agent(
        "assistant",
        "Answer briefly.",
        provider=script,
        model="gpt-test",
        tools=[weather],
        **options,
    )


def run_ids(agent: Agent) -> list[str]:
    ids: list[str] = []
    agent.on("on_chat_start", lambda ctx: ids.append(ctx.run_id))
    return ids


async def test_a_run_with_a_tool_call_makes_agent_chat_and_tool_spans(traced: Traced) -> None:
    agent = weather_agent()
    ids = run_ids(agent)
    agent.use(traced.plugin)

    response = await agent.chat("Weather in Paris?")

    assert response.content == "It is sunny in Paris."
    assert traced.names == [
        "chat gpt-test",
        "execute_tool weather",
        "chat gpt-test",
        "invoke_agent assistant",
    ]
    first_chat, tool_span, second_chat, agent_span = traced.spans
    (run_id,) = ids
    assert agent_span.kind is SpanKind.INTERNAL
    assert tool_span.kind is SpanKind.INTERNAL
    assert first_chat.kind is SpanKind.CLIENT and second_chat.kind is SpanKind.CLIENT
    assert dict(agent_span.attributes or {}) == {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": "assistant",
        "agenthooks.run_id": run_id,
        "agenthooks.branch": "assistant",
        "gen_ai.usage.input_tokens": 42,
        "gen_ai.usage.output_tokens": 11,
        "gen_ai.response.finish_reasons": ("stop",),
        "agenthooks.response.agent": "assistant",
    }
    assert dict(first_chat.attributes or {}) == {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "scripted",
        "gen_ai.request.model": "gpt-test",
        "gen_ai.request.stream": False,
        "agenthooks.run_id": run_id,
        "gen_ai.response.finish_reasons": ("tool_calls",),
        "gen_ai.usage.input_tokens": 12,
        "gen_ai.usage.output_tokens": 7,
    }
    assert dict(second_chat.attributes or {}) == {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "scripted",
        "gen_ai.request.model": "gpt-test",
        "gen_ai.request.stream": False,
        "agenthooks.run_id": run_id,
        "gen_ai.response.finish_reasons": ("stop",),
        "gen_ai.usage.input_tokens": 30,
        "gen_ai.usage.output_tokens": 4,
    }
    assert dict(tool_span.attributes or {}) == {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "weather",
        "gen_ai.tool.call.id": "call_w",
        "gen_ai.tool.type": "function",
        "gen_ai.tool.description": "The weather in a city.",
        "agenthooks.run_id": run_id,
    }
    assert agent_span.parent is None
    for child in (first_chat, tool_span, second_chat):
        assert child.parent is not None
        assert child.parent.span_id == agent_span.context.span_id
        assert child.context.trace_id == agent_span.context.trace_id
    assert [s.status.status_code for s in traced.spans] == [StatusCode.UNSET] * 4
    assert traced.plugin.open_spans == 0


async def test_capture_content_records_messages_instructions_arguments_and_results(
    traced_content: Traced,
) -> None:
    agent = weather_agent()
    agent.use(traced_content.plugin)

    await agent.chat("Weather in Paris?")

    first_chat, tool_span, second_chat, agent_span = traced_content.spans
    attrs = dict(agent_span.attributes or {})
    assert attrs["gen_ai.input.messages"] == (
        '[{"role":"user","parts":[{"type":"text","content":"Weather in Paris?"}]}]'
    )
    assert attrs["gen_ai.output.messages"] == (
        '[{"role":"assistant","parts":[{"type":"text","content":"It is sunny in Paris."}],'
        '"finish_reason":"stop"}]'
    )
    attrs = dict(first_chat.attributes or {})
    assert attrs["gen_ai.system_instructions"] == '[{"type":"text","content":"Answer briefly."}]'
    assert attrs["gen_ai.input.messages"] == (
        '[{"role":"user","parts":[{"type":"text","content":"Weather in Paris?"}]}]'
    )
    assert attrs["gen_ai.output.messages"] == (
        '[{"role":"assistant","parts":[{"type":"tool_call","id":"call_w","name":"weather",'
        '"arguments":{"city":"Paris"}}],"finish_reason":"tool_calls"}]'
    )
    assert dict(second_chat.attributes or {})["gen_ai.input.messages"] == (
        '[{"role":"user","parts":[{"type":"text","content":"Weather in Paris?"}]},'
        '{"role":"assistant","parts":[{"type":"tool_call","id":"call_w","name":"weather",'
        '"arguments":{"city":"Paris"}}]},'
        '{"role":"tool","parts":[{"type":"tool_call_response","id":"call_w",'
        '"response":"Sunny in Paris"}]}]'
    )
    attrs = dict(tool_span.attributes or {})
    assert attrs["gen_ai.tool.call.arguments"] == '{"city":"Paris"}'
    assert attrs["gen_ai.tool.call.result"] == "Sunny in Paris"


async def test_content_is_not_captured_by_default(traced: Traced) -> None:
    agent = weather_agent()
    agent.use(traced.plugin)

    await agent.chat("Weather in Paris?")

    keys = {key for span in traced.spans for key in (span.attributes or {})}
    assert keys.isdisjoint(
        {
            "gen_ai.input.messages",
            "gen_ai.output.messages",
            "gen_ai.system_instructions",
            "gen_ai.tool.call.arguments",
            "gen_ai.tool.call.result",
        }
    )


async def test_a_session_id_is_the_conversation_id_of_every_span(traced: Traced) -> None:
    agent = weather_agent()
    agent.use(traced.plugin)

    async with Session(agent, session_id="conv-7") as session:
        await session.chat("Weather in Paris?")

    assert traced.names == [
        "chat gpt-test",
        "execute_tool weather",
        "chat gpt-test",
        "invoke_agent assistant",
    ]
    agent_span = traced.one("invoke_agent assistant")
    assert (agent_span.attributes or {})["gen_ai.conversation.id"] == "conv-7"
    for chat in [s for s in traced.spans if s.name == "chat gpt-test"]:
        assert (chat.attributes or {})["gen_ai.conversation.id"] == "conv-7"


async def test_a_run_without_a_session_has_no_conversation_id(traced: Traced) -> None:
    agent = weather_agent()
    agent.use(traced.plugin)

    await agent.chat("Weather in Paris?")

    assert all("gen_ai.conversation.id" not in (s.attributes or {}) for s in traced.spans)


async def test_a_streamed_run_makes_the_same_spans_marked_as_streamed(traced: Traced) -> None:
    agent = weather_agent()
    agent.use(traced.plugin)

    items = [item async for item in agent.chat_stream("Weather in Paris?")]

    assert isinstance(items[-1], FinalResponse)
    assert traced.names == [
        "chat gpt-test",
        "execute_tool weather",
        "chat gpt-test",
        "invoke_agent assistant",
    ]
    chats = [s for s in traced.spans if s.name == "chat gpt-test"]
    assert [(s.attributes or {})["gen_ai.request.stream"] for s in chats] == [True, True]


async def test_a_model_changed_by_pre_request_names_the_chat_span(traced: Traced) -> None:
    agent = Agent("assistant", provider=ScriptedProvider(["ok"]), model="small")
    agent.use(traced.plugin)  # runs first: it sees the request before the change
    agent.on(
        "pre_request", lambda ctx: {"request": ctx.request.model_copy(update={"model": "large"})}
    )

    await agent.chat("hi")

    chat = traced.one("chat large")
    assert (chat.attributes or {})["gen_ai.request.model"] == "large"


async def test_a_handoff_is_an_event_of_the_one_invoke_agent_span(traced: Traced) -> None:
    billing = Agent("billing", provider=ScriptedProvider(["Refund issued."]), model="m")
    triage = Agent(
        "triage",
        provider=ScriptedProvider(
            [
                ProviderResponse(
                    tool_calls=[ToolCall(id="call_h", name="transfer_to_billing")],
                    finish_reason="tool_calls",
                )
            ]
        ),
        model="m",
        handoffs=[billing],
    )
    triage.use(traced.plugin)

    response = await triage.chat("I want a refund")

    assert response.content == "Refund issued."
    assert traced.names == [
        "chat m",
        "execute_tool transfer_to_billing",
        "chat m",
        "invoke_agent triage",
    ]
    agent_span = traced.one("invoke_agent triage")
    assert [(e.name, dict(e.attributes or {})) for e in agent_span.events] == [
        ("agenthooks.handoff", {"from_agent": "triage", "to_agent": "billing"})
    ]
    assert (agent_span.attributes or {})["agenthooks.response.agent"] == "billing"


async def test_the_entry_point_installs_the_plugin_and_its_disposer_removes_it() -> None:
    bus = HookBus()

    (info,) = bus.load_plugins(["otel"], strict=True)

    assert info.name == "otel"
    assert info.distribution == "agenthooks-otel"
    assert isinstance(info.plugin, OtelPlugin)
    assert "pre_tool_call" in bus.listened and "on_chat_end" in bus.listened
    assert len(bus.provider_stack) == 1 and len(bus.tool_stack) == 1
    assert info.dispose is not None
    info.dispose()
    assert bus.listened == frozenset()
    assert not bus.provider_stack and not bus.tool_stack
