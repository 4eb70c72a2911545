"""Retry options: bad values, the installed entry point and its environment variables."""

from __future__ import annotations

import os
from typing import Any

import pytest
from agenthooks_retry import (
    EnvRetryPlugin,
    FallbackMiddleware,
    RetryConfigError,
    RetryMiddleware,
    RetryPlugin,
)

from agenthooks import (
    Agent,
    HookBus,
    ProviderConnectionError,
    RegistrationError,
    ScriptedProvider,
)
from agenthooks.plugins import PluginError, entry_points

ENV = "AGENTHOOKS_RETRY_"


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(ENV) or name == "AGENTHOOKS_DISABLE_PLUGINS":
            monkeypatch.delenv(name)


BAD = [
    ({"attempts": 0}, "attempts", "0 is not a whole number >= 1"),
    ({"attempts": -2}, "attempts", "-2 is not a whole number >= 1"),
    ({"attempts": 2.5}, "attempts", "2.5 is not a whole number >= 1"),
    ({"attempts": True}, "attempts", "True is not a whole number >= 1"),
    ({"max_time": 0}, "max_time", "0 is not a number of seconds > 0 (or None)"),
    ({"max_time": "10"}, "max_time", "'10' is not a number of seconds > 0 (or None)"),
    ({"initial": -0.1}, "initial", "-0.1 is not a number of seconds >= 0"),
    ({"max_backoff": -1}, "max_backoff", "-1 is not a number of seconds >= 0"),
    ({"jitter": None}, "jitter", "None is not a number of seconds >= 0"),
    ({"stacks": ("model",)}, "stacks", "('model',) is not a non-empty list of 'provider', 'tool'"),
    ({"stacks": ()}, "stacks", "() is not a non-empty list of 'provider', 'tool'"),
    ({"tools": "search"}, "tools", "'search' is not a non-empty list of tool names (or None: all)"),
    ({"tools": [1]}, "tools", "[1] is not a non-empty list of tool names (or None: all)"),
    ({"retry_on": "transient"}, "retry_on", "'transient' is not callable"),
    ({"on_retry": 3}, "on_retry", "3 is not callable"),
]


@pytest.mark.parametrize(("options", "key", "problem"), BAD)
@pytest.mark.parametrize("cls", [RetryMiddleware, RetryPlugin])
def test_bad_options_raise_a_typed_error_naming_the_key(
    cls: Any, options: dict[str, Any], key: str, problem: str
) -> None:
    with pytest.raises(RetryConfigError) as caught:
        cls(**options)
    error = caught.value
    assert isinstance(error, RegistrationError)
    assert (error.source, error.key, error.problem) == (cls.__name__, key, problem)
    assert str(error) == f"{cls.__name__}: {key}: {problem}"


def test_bad_fallbacks_name_the_entry() -> None:
    with pytest.raises(
        RetryConfigError,
        match=r"^FallbackMiddleware: providers: give at least "
        r"one provider to fall back to$",
    ):
        FallbackMiddleware([])
    with pytest.raises(RetryConfigError) as caught:
        FallbackMiddleware([ScriptedProvider(["a"]), "gpt-4o"])  # type: ignore[list-item]
    assert caught.value.key == "providers[1]"
    assert caught.value.problem == (
        "'gpt-4o' is not a provider (name, complete, stream) or (provider, model)"
    )
    with pytest.raises(RetryConfigError) as caught:
        FallbackMiddleware([(ScriptedProvider(["a"]), 4)])  # type: ignore[list-item]
    assert caught.value.key == "providers[0]"
    with pytest.raises(RetryConfigError, match="fallback_on: 1 is not callable"):
        FallbackMiddleware([ScriptedProvider(["a"])], fallback_on=1)  # type: ignore[arg-type]
    with pytest.raises(RetryConfigError, match=r"^RetryPlugin: attempts: 0 is not"):
        RetryPlugin(attempts=0, fallbacks=[ScriptedProvider(["a"])])


def test_the_entry_point_is_installed() -> None:
    [ep] = [ep for ep in entry_points() if ep.name == "retry"]
    assert ep.value == "agenthooks_retry:EnvRetryPlugin"
    assert ep.dist is not None and ep.dist.name == "agenthooks-retry"
    assert ep.load() is EnvRetryPlugin


async def test_loaded_by_name_it_is_configured_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(ENV + "ATTEMPTS", "4")
    monkeypatch.setenv(ENV + "INITIAL", "0")
    monkeypatch.setenv(ENV + "MAX_BACKOFF", "0")
    monkeypatch.setenv(ENV + "JITTER", "0")
    monkeypatch.setenv(ENV + "MAX_TIME", "30")
    monkeypatch.setenv(ENV + "STACKS", "provider, tool")
    monkeypatch.setenv(ENV + "TOOLS", "search,fetch")
    bus = HookBus(plugins=["retry"], strict=True)
    info = bus.plugins["retry"]
    assert (info.distribution, info.version) == ("agenthooks-retry", "0.1.0")
    retry = info.plugin.retry
    assert (retry.attempts, retry.max_time, retry.stacks, retry.tools) == (
        4,
        30.0,
        ("provider", "tool"),
        frozenset({"search", "fetch"}),
    )
    assert bus.provider_stack.layers == bus.tool_stack.layers == (retry,)
    provider = ScriptedProvider([ProviderConnectionError(f"drop {i}") for i in range(3)] + ["ok"])
    assert (await Agent("a", provider=provider, bus=bus).chat("hi")).content == "ok"
    assert len(provider.requests) == 4


def test_defaults_without_variables() -> None:
    retry = EnvRetryPlugin().retry
    assert (
        retry.stacks,
        retry.attempts,
        retry.max_time,
        retry.initial,
        retry.max_backoff,
        retry.jitter,
        retry.tools,
    ) == (("provider",), 3, None, 0.5, 8.0, 0.5, None)
    monkeypatch = pytest.MonkeyPatch()
    with monkeypatch.context() as patched:
        patched.setenv(ENV + "MAX_TIME", "none")
        assert EnvRetryPlugin().retry.max_time is None


def test_auto_loading_installs_it(monkeypatch: pytest.MonkeyPatch) -> None:
    others = [ep.name for ep in entry_points() if ep.name != "retry"]
    monkeypatch.setenv("AGENTHOOKS_DISABLE_PLUGINS", ",".join(others))
    bus = HookBus(plugins="auto")
    assert list(bus.plugins) == ["retry"]
    assert [type(m).__name__ for m in bus.provider_stack.layers] == ["RetryMiddleware"]


@pytest.mark.parametrize(
    ("variable", "value", "problem"),
    [
        ("ATTEMPTS", "0", "0 is not a whole number >= 1"),
        ("ATTEMPTS", "three", "'three' is not a whole number"),
        ("MAX_TIME", "-5", "-5.0 is not a number of seconds > 0 (or None)"),
        ("INITIAL", "fast", "'fast' is not a number"),
        ("JITTER", "-1", "-1.0 is not a number of seconds >= 0"),
        (
            "STACKS",
            "provider,model",
            ("['provider', 'model'] is not a non-empty list of 'provider', 'tool'"),
        ),
    ],
)
def test_a_bad_variable_fails_the_plugin_naming_the_variable_and_distribution(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, problem: str
) -> None:
    monkeypatch.setenv(ENV + variable, value)
    expected = (
        f"plugin 'retry' (distribution agenthooks-retry) failed: "
        f"RetryConfigError: environment: {ENV}{variable}: {problem}"
    )
    bus = HookBus(plugins=["retry"])
    assert "retry" not in bus.plugins
    assert bus.provider_stack.layers == ()
    [error] = bus.plugin_errors
    assert str(error) == expected
    assert isinstance(error.error, RetryConfigError)
    assert error.error.key == ENV + variable
    with pytest.raises(PluginError) as caught:
        HookBus(plugins=["retry"], strict=True)
    assert str(caught.value) == expected
