"""agenthooks-otel: OpenTelemetry spans for agenthooks runs, after the GenAI semantic
conventions: ``invoke_agent {agent}``, ``chat {model}`` and ``execute_tool {tool}``.

    bus.use(OtelPlugin(tracer_provider=provider))

Installed, it is also the ``otel`` entry point of the ``agenthooks.plugins`` group:
``OtelPlugin.from_env()``, on the global tracer provider.
"""

from .middleware import SpanContextMiddleware
from .plugin import FIRST, OtelPlugin
from .settings import OtelSettings

__version__ = "0.1.0"

__all__ = ["FIRST", "OtelPlugin", "OtelSettings", "SpanContextMiddleware", "__version__"]
