"""Cache options: bad values, the installed entry point and its environment variables."""

from __future__ import annotations

import os
from typing import Any

import pytest
from agenthooks_cache import (
    CacheConfigError,
    CachePlugin,
    MemoryBackend,
    RedisBackend,
)

from agenthooks import Agent, HookBus, RegistrationError, ScriptedProvider
from agenthooks.plugins import PluginError, entry_points
from agenthooks.testing import assert_option_error

ENV = "AGENTHOOKS_CACHE_"


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(ENV) or name == "AGENTHOOKS_DISABLE_PLUGINS":
            monkeypatch.delenv(name)


@pytest.mark.parametrize(
    ("options", "key", "problem"),
    [
        ({"ttl": -1}, "ttl", "-1: Input should be greater than 0"),
        ({"ttl": 0}, "ttl", "0: Input should be greater than 0"),
        ({"ttl": "an hour"}, "ttl", "'an hour': Input should be a valid number"),
        ({"max_entries": 0}, "max_entries", "0: Input should be greater than or equal to 1"),
        ({"max_entries": 10.5}, "max_entries", "10.5: Input should be a valid integer"),
        (
            {"max_entries": 10, "backend": MemoryBackend()},
            "max_entries",
            "bounds the in-memory backend only; another backend (Redis) keeps its own bound",
        ),
        ({"responses": "maybe"}, "responses", "'maybe': Input should be a valid boolean"),
        ({"tools": []}, "tools", "give True, False or a non-empty list of tool names"),
        ({"tools": [""]}, "tools", "give True, False or a non-empty list of tool names"),
        (
            {"responses": False, "tools": False},
            "responses",
            "responses and tools are both off: there is nothing to cache",
        ),
        ({"backend": {}}, "backend", "{}: Value error, has no get(key) and set(key, value, ttl)"),
    ],
)
def test_bad_options_raise_a_typed_error_naming_the_key(
    options: dict[str, Any], key: str, problem: str
) -> None:
    error = assert_option_error(
        lambda: CachePlugin(**options), key=key, source="CachePlugin", says=problem
    )
    assert isinstance(error, CacheConfigError) and isinstance(error, RegistrationError)
    assert str(error).startswith(f"cache plugin: CachePlugin: {key}: ")


def test_a_bad_redis_url_names_the_key() -> None:
    with pytest.raises(CacheConfigError) as caught:
        RedisBackend("http://127.0.0.1:6379")
    assert str(caught.value) == (
        "cache plugin: RedisBackend: url: 'http://127.0.0.1:6379': Redis URL must specify one of the "
        "following schemes (redis://, rediss://, unix://)"
    )


def test_the_entry_point_is_installed() -> None:
    [ep] = [ep for ep in entry_points() if ep.name == "cache"]
    assert ep.value == "agenthooks_cache:CachePlugin"
    assert ep.dist is not None and ep.dist.name == "agenthooks-cache"
    assert ep.load() is CachePlugin


async def test_loaded_by_name_it_is_configured_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(ENV + "TTL", "90")
    monkeypatch.setenv(ENV + "MAX_ENTRIES", "7")
    monkeypatch.setenv(ENV + "TOOLS", "search, fetch")
    monkeypatch.setenv(ENV + "RESPONSES", "on")
    bus = HookBus()
    [info] = bus.load_plugins(["cache"], strict=True)
    assert (info.name, info.distribution, info.version) == ("cache", "agenthooks-cache", "0.1.0")
    plugin = info.plugin
    assert (plugin.responses, plugin.tools, plugin.ttl) == (
        True,
        frozenset({"search", "fetch"}),
        90.0,
    )
    assert isinstance(plugin.backend, MemoryBackend) and plugin.backend.max_entries == 7
    provider = ScriptedProvider(["once"])
    for _ in range(2):
        assert (await Agent("a", provider=provider, bus=bus).chat("q")).content == "once"
    assert len(provider.requests) == 1


def test_defaults_without_variables() -> None:
    plugin = CachePlugin.from_env()
    assert (plugin.responses, plugin.tools, plugin.ttl) == (True, False, None)
    assert isinstance(plugin.backend, MemoryBackend) and plugin.backend.max_entries == 1024


async def test_auto_loading_installs_it(monkeypatch: pytest.MonkeyPatch) -> None:
    others = [ep.name for ep in entry_points() if ep.name != "cache"]
    monkeypatch.setenv("AGENTHOOKS_DISABLE_PLUGINS", ",".join(others))
    monkeypatch.setenv(ENV + "TOOLS", "false")
    bus = HookBus(plugins="auto")
    assert list(bus.plugins) == ["cache"]
    assert bus.tool_stack.layers == ()
    provider = ScriptedProvider(["auto"])
    for _ in range(2):
        await Agent("a", provider=provider, bus=bus).chat("q")
    assert len(provider.requests) == 1


def test_disabled_by_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTHOOKS_DISABLE_PLUGINS", "cache")
    bus = HookBus(plugins=["cache"], strict=True)
    assert bus.plugins == {} and bus.listened == frozenset()


@pytest.mark.parametrize(
    ("variable", "value", "problem"),
    [
        ("TTL", "-5", "'-5': Input should be greater than 0"),
        ("TTL", "an hour", "'an hour': Input should be a valid number"),
        ("MAX_ENTRIES", "0", "'0': Input should be greater than or equal to 1"),
        ("MAX_ENTRIES", "lots", "'lots': Input should be a valid integer"),
        ("RESPONSES", "maybe", "'maybe': Input should be a valid boolean"),
        (
            "REDIS_URL",
            "http://127.0.0.1:6379",
            (
                "'http://127.0.0.1:6379': Redis URL must specify one of the following schemes "
                "(redis://, rediss://, unix://)"
            ),
        ),
        ("TTTL", "60", "unknown option; did you mean 'AGENTHOOKS_CACHE_TTL'?"),
    ],
)
def test_a_bad_variable_fails_the_plugin_naming_the_variable_and_distribution(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, problem: str
) -> None:
    monkeypatch.setenv(ENV + variable, value)
    expected = (
        f"plugin 'cache' (distribution agenthooks-cache) failed: "
        f"CacheConfigError: cache plugin: environment: {ENV}{variable}: "
    )
    bus = HookBus(plugins=["cache"])
    assert "cache" not in bus.plugins
    assert bus.listened == frozenset()
    [error] = bus.plugin_errors
    assert str(error).startswith(expected) and problem in str(error)
    assert isinstance(error.error, CacheConfigError)
    assert_option_error(
        CachePlugin.from_env, key=ENV + variable, source="environment", says=problem
    )
    with pytest.raises(PluginError) as caught:
        HookBus(plugins=["cache"], strict=True)
    assert str(caught.value) == str(error)


def test_max_entries_with_a_redis_url_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV + "REDIS_URL", "redis://127.0.0.1:6379/0")
    monkeypatch.setenv(ENV + "MAX_ENTRIES", "10")
    with pytest.raises(CacheConfigError) as caught:
        CachePlugin.from_env()
    assert str(caught.value) == (
        "cache plugin: environment: AGENTHOOKS_CACHE_MAX_ENTRIES: '10': Value error, bounds the in-memory backend only; "
        "another backend (Redis) keeps its own bound"
    )
