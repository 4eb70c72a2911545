"""``Traced``: a tracer provider of its own (never the global one) exporting to an
``InMemorySpanExporter`` through a ``SimpleSpanProcessor``, and an ``OtelPlugin`` on it."""

from __future__ import annotations

from agenthooks_otel import OtelPlugin
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter


class Traced:
    """A tracer provider of its own, its finished spans, and an ``OtelPlugin`` on it."""

    def __init__(self, *, capture_content: bool = False) -> None:
        self.exporter = InMemorySpanExporter()
        self.provider = TracerProvider()
        self.provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.plugin = OtelPlugin(tracer_provider=self.provider, capture_content=capture_content)

    @property
    def spans(self) -> list[ReadableSpan]:
        """The finished spans, in the order they ended."""
        return list(self.exporter.get_finished_spans())

    @property
    def names(self) -> list[str]:
        """The finished spans' names, in the order they ended."""
        return [span.name for span in self.spans]

    def one(self, name: str) -> ReadableSpan:
        """The single finished span called ``name``."""
        found = [span for span in self.spans if span.name == name]
        assert len(found) == 1, f"{len(found)} spans named {name!r} in {self.names}"
        return found[0]

    def tool(self, call_id: str) -> ReadableSpan:
        """The ``execute_tool`` span of the tool call ``call_id``."""
        found = [
            s for s in self.spans if (s.attributes or {}).get("gen_ai.tool.call.id") == call_id
        ]
        assert len(found) == 1, f"{len(found)} spans of tool call {call_id!r}"
        return found[0]

    def parent_of(self, span: ReadableSpan) -> ReadableSpan | None:
        """The finished span that is ``span``'s parent (None for a root span)."""
        if span.parent is None:
            return None
        found = [s for s in self.spans if s.context.span_id == span.parent.span_id]
        assert len(found) == 1, f"the parent of {span.name!r} is not among the finished spans"
        return found[0]

    def children(self, parent: ReadableSpan) -> list[str]:
        """The names of ``parent``'s children, in the order they ended."""
        span_id = parent.context.span_id
        return [s.name for s in self.spans if s.parent is not None and s.parent.span_id == span_id]
