"""Retry options: bad values, the installed entry point and its environment variables."""

from __future__ import annotations

import os
from typing import Any

import pytest
from agenthooks_retry import (
    FallbackMiddleware,
    RetryConfigError,
    RetryMiddleware,
    RetryOptions,
    RetryPlugin,
    RetrySettings,
)

from agenthooks import (
    Agent,
    HookBus,
    ProviderConnectionError,
    RegistrationError,
    ScriptedProvider,
)
from agenthooks.plugins import PluginError, entry_points
from agenthooks.testing import assert_option_error

ENV = "AGENTHOOKS_RETRY_"


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(ENV) or name == "AGENTHOOKS_DISABLE_PLUGINS":
            monkeypatch.delenv(name)


BAD = [
    ({"attempts": 0}, "attempts", "0: Input should be greater than or equal to 1"),
    ({"attempts": -2}, "attempts", "-2: Input should be greater than or equal to 1"),
    ({"attempts": 2.5}, "attempts", "2.5: Input should be a valid integer, got a number with"),
    ({"max_time": 0}, "max_time", "0: Input should be greater than 0"),
    ({"max_time": "soon"}, "max_time", "'soon': Input should be a valid number"),
    ({"initial": -0.1}, "initial", "-0.1: Input should be greater than or equal to 0"),
    ({"max_backoff": -1}, "max_backoff", "-1: Input should be greater than or equal to 0"),
    ({"jitter": None}, "jitter", "None: Input should be a valid number"),
    ({"stacks": ("model",)}, "stacks", "give a non-empty list of 'provider', 'tool'"),
    ({"stacks": ()}, "stacks", "(): Value error, give a non-empty list of 'provider', 'tool'"),
    ({"tools": []}, "tools", "[]: Value error, give a non-empty list of tool names"),
    ({"tools": [1]}, "tools", "1: Input should be a valid string"),
    ({"retry_on": "transient"}, "retry_on", "'transient': Input should be callable"),
    ({"on_retry": 3}, "on_retry", "3: Input should be callable"),
]


@pytest.mark.parametrize(("options", "key", "problem"), BAD)
@pytest.mark.parametrize("cls", [RetryMiddleware, RetryPlugin])
def test_bad_options_raise_a_typed_error_naming_the_key(
    cls: Any, options: dict[str, Any], key: str, problem: str
) -> None:
    error = assert_option_error(lambda: cls(**options), key=key, source=cls.__name__, says=problem)
    assert isinstance(error, RetryConfigError) and isinstance(error, RegistrationError)
    assert str(error).startswith(f"retry plugin: {cls.__name__}: {key}: ")


def test_bad_fallbacks_name_the_entry() -> None:
    with pytest.raises(
        RetryConfigError,
        match=r"^retry plugin: FallbackMiddleware: providers: give at least "
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
    with pytest.raises(RetryConfigError, match=r"^retry plugin: RetryPlugin: attempts: 0: Input"):
        RetryPlugin(attempts=0, fallbacks=[ScriptedProvider(["a"])])


def test_the_options_are_declared_once() -> None:
    # RetryOptions types the keyword arguments; RetrySettings holds each default and check
    assert list(RetryOptions.__annotations__) == list(RetrySettings.model_fields)
    middleware = RetryMiddleware()
    plugin = RetryPlugin().retry
    defaults = {name: field.default for name, field in RetrySettings.model_fields.items()}
    for retry in (middleware, plugin):
        assert (retry.attempts, retry.max_time, retry.initial) == (
            defaults["attempts"],
            defaults["max_time"],
            defaults["initial"],
        )
        assert (retry.max_backoff, retry.jitter, retry.stacks) == (
            defaults["max_backoff"],
            defaults["jitter"],
            defaults["stacks"],
        )


def test_the_plugin_passes_its_options_to_its_middleware() -> None:
    async def sleep(seconds: float) -> None:
        return None

    def on_retry(ctx: Any, retry: Any) -> None:
        return None

    plugin = RetryPlugin(
        stacks="tool",
        attempts=5,
        max_time=9.0,
        initial=0.1,
        max_backoff=2.0,
        jitter=0.0,
        retry_on=bool,
        tools=["search"],
        on_retry=on_retry,
        sleep=sleep,
    )
    retry = plugin.retry
    assert (retry.stacks, retry.attempts, retry.max_time, retry.initial) == (
        ("tool",),
        5,
        9.0,
        0.1,
    )
    assert (retry.max_backoff, retry.jitter, retry.tools) == (2.0, 0.0, frozenset({"search"}))
    assert (retry.retry_on, retry.on_retry) == (bool, on_retry)
    assert plugin.middleware == [retry] and plugin.fallback is None


def test_the_entry_point_is_installed() -> None:
    [ep] = [ep for ep in entry_points() if ep.name == "retry"]
    assert ep.value == "agenthooks_retry:RetryPlugin"
    assert ep.dist is not None and ep.dist.name == "agenthooks-retry"
    assert ep.load() is RetryPlugin


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
    retry = RetryPlugin.from_env().retry
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
        assert RetryPlugin.from_env().retry.max_time is None


def test_auto_loading_installs_it(monkeypatch: pytest.MonkeyPatch) -> None:
    others = [ep.name for ep in entry_points() if ep.name != "retry"]
    monkeypatch.setenv("AGENTHOOKS_DISABLE_PLUGINS", ",".join(others))
    bus = HookBus(plugins="auto")
    assert list(bus.plugins) == ["retry"]
    assert [type(m).__name__ for m in bus.provider_stack.layers] == ["RetryMiddleware"]


@pytest.mark.parametrize(
    ("variable", "value", "problem"),
    [
        ("ATTEMPTS", "0", "'0': Input should be greater than or equal to 1"),
        ("ATTEMPTS", "three", "'three': Input should be a valid integer"),
        ("MAX_TIME", "-5", "'-5': Input should be greater than 0"),
        ("INITIAL", "fast", "'fast': Input should be a valid number"),
        ("JITTER", "-1", "'-1': Input should be greater than or equal to 0"),
        ("STACKS", "provider,model", "Value error, give a non-empty list of 'provider', 'tool'"),
        ("ATEMPTS", "3", "unknown option; did you mean 'AGENTHOOKS_RETRY_ATTEMPTS'?"),
    ],
)
def test_a_bad_variable_fails_the_plugin_naming_the_variable_and_distribution(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, problem: str
) -> None:
    monkeypatch.setenv(ENV + variable, value)
    expected = (
        f"plugin 'retry' (distribution agenthooks-retry) failed: "
        f"RetryConfigError: retry plugin: environment: {ENV}{variable}: "
    )
    bus = HookBus(plugins=["retry"])
    assert "retry" not in bus.plugins
    assert bus.provider_stack.layers == ()
    [error] = bus.plugin_errors
    assert str(error).startswith(expected) and problem in str(error)
    assert isinstance(error.error, RetryConfigError)
    assert_option_error(
        RetryPlugin.from_env, key=ENV + variable, source="environment", says=problem
    )
    with pytest.raises(PluginError) as caught:
        HookBus(plugins=["retry"], strict=True)
    assert str(caught.value) == str(error)
