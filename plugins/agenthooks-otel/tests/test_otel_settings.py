"""The plugin's options through the shared settings helper: in code, from the environment
(what the ``otel`` entry point builds), and a bad or mistyped one named."""

from __future__ import annotations

import os

import pytest
from agenthooks_otel import OtelPlugin

from agenthooks import HookBus
from agenthooks.plugins import entry_points
from agenthooks.testing import assert_option_error


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith("AGENTHOOKS_OTEL_") or name == "AGENTHOOKS_DISABLE_PLUGINS":
            monkeypatch.delenv(name)


def test_the_entry_point_builds_the_plugin_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    [ep] = [ep for ep in entry_points() if ep.name == "otel"]
    assert (ep.value, ep.load()) == ("agenthooks_otel:OtelPlugin", OtelPlugin)
    monkeypatch.setenv("AGENTHOOKS_OTEL_CAPTURE_CONTENT", "1")
    [info] = HookBus().load_plugins(["otel"], strict=True)
    assert isinstance(info.plugin, OtelPlugin) and info.plugin.capture_content is True
    monkeypatch.delenv("AGENTHOOKS_OTEL_CAPTURE_CONTENT")
    assert OtelPlugin.from_env().capture_content is False


def test_bad_options_name_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    assert_option_error(
        lambda: OtelPlugin(tracer_provider="global"),  # type: ignore[arg-type]
        key="tracer_provider",
        source="OtelPlugin",
        says="expected an OpenTelemetry TracerProvider",
    )
    monkeypatch.setenv("AGENTHOOKS_OTEL_CAPTURE_CONTENT", "maybe")
    assert_option_error(
        OtelPlugin.from_env,
        key="AGENTHOOKS_OTEL_CAPTURE_CONTENT",
        says="'maybe': Input should be a valid boolean",
    )
    monkeypatch.delenv("AGENTHOOKS_OTEL_CAPTURE_CONTENT")
    monkeypatch.setenv("AGENTHOOKS_OTEL_CAPTURE", "1")
    assert_option_error(
        OtelPlugin.from_env,
        key="AGENTHOOKS_OTEL_CAPTURE",
        closest="AGENTHOOKS_OTEL_CAPTURE_CONTENT",
        source="environment",
    )
