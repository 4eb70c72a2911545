"""The plugin's options, declared once: in code (``OtelPlugin(capture_content=True)``) and
from the ``AGENTHOOKS_OTEL_*`` variables (the ``otel`` entry point) alike."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import field_validator
from pydantic_settings import SettingsConfigDict

from agenthooks.plugins import PluginSettings


class OtelSettings(PluginSettings):
    """``capture_content`` (``AGENTHOOKS_OTEL_CAPTURE_CONTENT``): record messages and tool
    arguments and results on the spans; ``tracer_provider`` is given in code only (the
    environment's plugin uses the global one)."""

    plugin: ClassVar[str] = "otel"
    model_config = SettingsConfigDict(env_prefix="AGENTHOOKS_OTEL_")

    tracer_provider: Any = None
    capture_content: bool = False

    @field_validator("tracer_provider")
    @classmethod
    def _a_provider(cls, provider: Any) -> Any:
        if provider is None or callable(getattr(provider, "get_tracer", None)):
            return provider
        raise ValueError("expected an OpenTelemetry TracerProvider (with get_tracer)")


__all__ = ["OtelSettings"]
