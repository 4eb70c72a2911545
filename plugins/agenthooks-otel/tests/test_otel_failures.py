"""Telemetry never breaks a run: an exporter that raises, or a span processor that raises when
spans start or end, leaves the run's outcome exactly as without the plugin."""

from __future__ import annotations

from collections.abc import Sequence

from agenthooks_otel import OtelPlugin
from opentelemetry.context import Context
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult
from structlog.testing import capture_logs

from agenthooks import Agent, AgentResponse, ProviderResponse, ScriptedProvider, ToolCall, tool


@tool
def weather(city: str) -> str:
    """The weather in a city."""
    return f"Sunny in {city}"


def make_agent() -> Agent:
    return Agent(
        "assistant",
        provider=ScriptedProvider(
            [
                ProviderResponse(
                    tool_calls=[ToolCall(id="call_w", name="weather", arguments={"city": "Paris"})],
                    finish_reason="tool_calls",
                ),
                "It is sunny in Paris.",
            ]
        ),
        model="m",
        tools=[weather],
    )


async def baseline() -> AgentResponse:
    return await make_agent().chat("Weather in Paris?")


class RaisingExporter(SpanExporter):
    """An exporter whose backend is down: every export raises."""

    def __init__(self) -> None:
        self.attempts: list[str] = []

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        self.attempts.extend(span.name for span in spans)
        raise ConnectionError("collector unreachable")

    def shutdown(self) -> None:
        pass


class RaisingProcessor(SpanProcessor):
    """A span processor that raises when a span starts and when it ends."""

    def __init__(self) -> None:
        self.started = 0
        self.ended: list[str] = []

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        self.started += 1
        raise RuntimeError("processor broke on start")

    def on_end(self, span: ReadableSpan) -> None:
        self.ended.append(span.name)
        raise RuntimeError("processor broke on end")


class EndRaisingProcessor(SpanProcessor):
    """A span processor that raises only when a span ends."""

    def __init__(self) -> None:
        self.ended: list[str] = []

    def on_end(self, span: ReadableSpan) -> None:
        self.ended.append(span.name)
        raise RuntimeError("processor broke on end")


async def test_an_exporter_that_raises_leaves_the_run_unchanged() -> None:
    exporter = RaisingExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    agent = make_agent()
    plugin = OtelPlugin(tracer_provider=provider)
    agent.use(plugin)

    response = await agent.chat("Weather in Paris?")

    assert response == await baseline()
    assert exporter.attempts == [
        "chat m",
        "execute_tool weather",
        "chat m",
        "invoke_agent assistant",
    ]
    assert plugin.open_spans == 0


async def test_a_processor_that_raises_on_start_leaves_the_run_unchanged_and_logs() -> None:
    processor = RaisingProcessor()
    provider = TracerProvider()
    provider.add_span_processor(processor)
    agent = make_agent()
    plugin = OtelPlugin(tracer_provider=provider)
    agent.use(plugin)

    with capture_logs() as logs:
        response = await agent.chat("Weather in Paris?")

    assert response == await baseline()
    assert response.messages[2].content == "Sunny in Paris"  # the tool ran: no deny
    assert processor.started > 0
    failures = [entry for entry in logs if entry["event"] == "otel_failed"]
    assert failures
    assert all(entry["log_level"] == "warning" for entry in failures)
    assert failures[0]["error"] == "RuntimeError: processor broke on start"
    assert plugin.open_spans == 0


async def test_a_processor_that_raises_on_end_leaves_the_run_unchanged_and_no_span_open() -> None:
    processor = EndRaisingProcessor()
    provider = TracerProvider()
    provider.add_span_processor(processor)
    agent = make_agent()
    plugin = OtelPlugin(tracer_provider=provider)
    agent.use(plugin)

    with capture_logs() as logs:
        response = await agent.chat("Weather in Paris?")

    assert response == await baseline()
    assert processor.ended == ["chat m", "execute_tool weather", "chat m", "invoke_agent assistant"]
    assert [entry["operation"] for entry in logs if entry["event"] == "otel_failed"] == [
        "on_response",
        "on_message",
        "on_response",
        "on_chat_end",
    ]
    assert plugin.open_spans == 0
