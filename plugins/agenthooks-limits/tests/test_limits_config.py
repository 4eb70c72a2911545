"""Configuring limits: in code, from TOML, from AGENTHOOKS_LIMITS_CONFIG through the entry point."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from agenthooks_limits import (
    LIMITS_ENV,
    Cap,
    Limits,
    LimitsConfigError,
    LimitsSettings,
    Price,
    RateLimit,
    Step,
    load_limits,
    parse_limits,
)

from agenthooks import (
    Agent,
    AgentHooksError,
    HookBus,
    ProviderResponse,
    ScriptedProvider,
    StopRun,
    ToolCall,
    tool,
)
from agenthooks.plugins import PluginError, PluginOptionError
from agenthooks.testing import assert_option_error


def error_of(text: str) -> str:
    with pytest.raises(LimitsConfigError) as info:
        parse_limits(text, source="limits.toml")
    assert isinstance(info.value, AgentHooksError)
    return str(info.value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("max_turn = 3", "limits.toml: max_turn: unknown key; did you mean 'max_turns'?"),
        ("max_turns = 0", "limits.toml: max_turns.limit: expected a positive number, got int 0"),
        (
            'max_turns = { limit = 3, action = "halt" }',
            "limits.toml: max_turns.action: 'halt' is not one of warn, downgrade, deny, stop",
        ),
        ('max_turns = { action = "stop" }', "limits.toml: max_turns.limit: missing"),
        (
            'max_tokens = { limit = 9, ladder = { "80%" = "warn", "lots" = "stop" } }',
            "limits.toml: max_tokens.ladder[1].at: expected a level like 0.8 or '80%', got 'lots'",
        ),
        (
            (
                'max_tokens = { limit = 9, ladder = [{ at = 0.8, action = "warn" }, '
                '{ at = 1, act = "stop" }] }'
            ),
            "limits.toml: max_tokens.ladder[1].act: unknown key; a step has 'at' and 'action'",
        ),
        (
            'max_tokens = { limit = 9, action = "stop", ladder = { "1" = "stop" } }',
            "limits.toml: max_tokens: give action= or ladder=, not both",
        ),
        (
            'max_cost = { limit = 1, action = "downgrade" }',
            (
                "limits.toml: downgrade: a ladder step downgrades, but no cheaper model is configured; pass "
                "downgrade='cheaper-model' (or {current: cheaper})"
            ),
        ),
        ("[tools.search]\nrate = { calls = 2 }\n", "limits.toml: tools.search.rate.per: missing"),
        (
            "[tools.search]\nrate = { calls = 2, per = 0 }\n",
            "limits.toml: tools.search.rate.per: expected a positive number, got int 0",
        ),
        (
            "[tools.search]\nrate = { calls = 1.5, per = 1 }\n",
            "limits.toml: tools.search.rate.calls: expected a positive integer, got float 1.5",
        ),
        (
            "[tools.search]\nmax_call = 2\n",
            "limits.toml: tools.search.max_call: unknown key; did you mean 'max_calls'?",
        ),
        (
            '[pricing]\n"gpt-4o" = { input = 2.5 }\n',
            "limits.toml: pricing.gpt-4o.output: expected a number >= 0, got NoneType None",
        ),
        (
            '[pricing]\n"gpt-4o" = { in = 2.5, out = 10 }\n',
            (
                "limits.toml: pricing.gpt-4o.in: unknown key; a price has 'input' and 'output' ($ per 1M "
                "tokens)"
            ),
        ),
        (
            'deny_message = "{tool} {why}"',
            (
                "limits.toml: deny_message: '{tool} {why}' is not a valid message: KeyError: 'why'; use "
                "{tool} and {reason}"
            ),
        ),
    ],
)
def test_bad_config_names_the_file_and_the_key(text: str, message: str) -> None:
    assert error_of(text) == message


def test_a_toml_syntax_error_names_the_line() -> None:
    with pytest.raises(LimitsConfigError) as info:
        parse_limits("max_turns = 3\nmax_cost = \n", source="limits.toml")
    assert str(info.value) == "limits.toml:2:12: invalid TOML: Invalid value"
    assert (info.value.line, info.value.column) == (2, 12)
    with pytest.raises(LimitsConfigError) as info:
        parse_limits('max_turns = 3\ndeny_message = "open', source="limits.toml")
    assert str(info.value) == (
        "limits.toml:2: invalid TOML: Unterminated string at the end of the document"
    )


def test_a_full_file_parses_into_limits_arguments(tmp_path: Path) -> None:
    path = tmp_path / "limits.toml"
    path.write_text("""
max_turns = 12
max_tool_calls = { limit = 40, action = "warn" }
max_tokens = { limit = 100000, ladder = { "80%" = "warn", "100%" = "downgrade", "120%" = "stop" } }
max_cost = 0.50
downgrade = { "gpt-4o" = "gpt-4o-mini" }
deny_message = "{tool}: {reason}"

[tools.search]
max_calls = 5
rate = { calls = 10, per = 60, shared = true }

[pricing]
"gpt-4o" = { input = 2.5, output = 10.0 }
"gpt-4o-mini" = [0.15, 0.6]
""")
    limits = Limits(**load_limits(path))
    assert limits.max_turns is not None and limits.max_turns.steps == (Step(1.0, "stop"),)
    assert limits.max_tool_calls is not None and limits.max_tool_calls.steps == (Step(1.0, "warn"),)
    assert limits.max_tokens is not None and limits.max_tokens.steps == (
        Step(0.8, "warn"),
        Step(1.0, "downgrade"),
        Step(1.2, "stop"),
    )
    assert limits.max_cost is not None and limits.max_cost.limit == 0.5
    assert limits.max_calls_per_tool["search"].steps == (Step(1.0, "deny"),)
    rate = limits.rate_limits["search"]
    assert (rate.calls, rate.per, rate.shared) == (10, 60.0, True)
    assert limits.pricing == {"gpt-4o": Price(2.5, 10.0), "gpt-4o-mini": Price(0.15, 0.6)}
    assert limits.downgrade == {"gpt-4o": "gpt-4o-mini"}
    assert limits.deny_message == "{tool}: {reason}"


def test_code_configuration_errors_are_typed() -> None:
    with pytest.raises(LimitsConfigError) as info:
        Limits(max_turns=Cap(3, ladder={0.5: "warn", 1.0: "downgrade"}))
    assert info.value.key == "downgrade"
    with pytest.raises(LimitsConfigError) as info:
        Cap(10, "explode")  # type: ignore[arg-type]
    assert str(info.value) == "Cap.action: 'explode' is not one of warn, downgrade, deny, stop"
    with pytest.raises(LimitsConfigError) as info:
        RateLimit(0, per=1)
    assert str(info.value) == "RateLimit.calls: expected a positive integer, got int 0"
    with pytest.raises(LimitsConfigError) as info:
        Limits(pricing={"m": (1.0,)})  # type: ignore[dict-item]
    assert str(info.value) == (
        "pricing['m']: expected (input, output) dollars per 1M tokens, got tuple (1.0,)"
    )


def test_a_cap_reused_for_two_metrics_takes_each_default() -> None:
    cap = Cap(3)
    limits = Limits(max_turns=cap, max_tool_calls=cap)
    assert limits.max_turns is not None and limits.max_turns.steps == (Step(1.0, "stop"),)
    assert limits.max_tool_calls is not None and limits.max_tool_calls.steps == (Step(1.0, "deny"),)
    assert cap.steps is None


@tool
def search(q: str) -> str:
    """Search."""
    return f"results for {q}"


def looping(n: int) -> list[Any]:
    return [
        ProviderResponse(tool_calls=[ToolCall(id=f"c{i}", name="search", arguments={"q": str(i)})])
        for i in range(n)
    ] + ["done"]


async def test_the_entry_point_reads_the_file_named_by_the_env_var(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "limits.toml"
    path.write_text("max_turns = 2\n")
    monkeypatch.setenv(LIMITS_ENV, str(path))
    bus = HookBus()
    [info] = bus.load_plugins(["limits"], strict=True)
    assert (info.name, info.distribution, info.version) == ("limits", "agenthooks-limits", "0.1.0")
    agent = Agent("a", provider=ScriptedProvider(looping(5)), tools=[search], bus=bus)
    stops: list[str] = []
    agent.on("on_stop", lambda ctx: stops.append(ctx.reason))
    with pytest.raises(StopRun):
        await agent.chat("go")
    assert stops == ["turn limit: 2 of 2 turns used"]


def test_without_the_env_var_the_entry_point_limits_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(LIMITS_ENV, raising=False)
    bus = HookBus()
    bus.load_plugins(["limits"], strict=True)
    assert list(bus.plugins) == ["limits"]
    assert bus.listened == frozenset()


async def test_a_broken_limits_file_fails_closed_and_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "limits.toml"
    path.write_text('max_cost = { limit = 1, action = "halt" }\n')
    monkeypatch.setenv(LIMITS_ENV, str(path))
    bus = HookBus()
    bus.load_plugins(["limits"])
    error = f"{path}: max_cost.action: 'halt' is not one of warn, downgrade, deny, stop"
    [reported] = bus.plugin_errors
    assert isinstance(reported, PluginError) and isinstance(reported.error, LimitsConfigError)
    assert (reported.name, reported.distribution, str(reported.error)) == (
        "limits",
        "agenthooks-limits",
        error,
    )
    provider = ScriptedProvider(["never"])
    response = await Agent("a", provider=provider, bus=bus).chat("hi")
    assert (response.finish_reason, response.content) == (
        "denied",
        (
            f"agenthooks-limits: the limits named by {LIMITS_ENV} are invalid, so every "
            f"run is denied until they are fixed: {error}"
        ),
    )
    assert provider.requests == []


def test_a_missing_limits_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(LimitsConfigError) as info:
        load_limits(tmp_path / "nope.toml")
    assert str(info.value) == f"{tmp_path / 'nope.toml'}: limits file not found"


async def test_a_mistyped_variable_fails_closed_naming_the_closest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(LIMITS_ENV, raising=False)
    monkeypatch.setenv("AGENTHOOKS_LIMITS_CONFG", "limits.toml")
    assert_option_error(
        LimitsSettings.from_env,
        key="AGENTHOOKS_LIMITS_CONFG",
        closest=LIMITS_ENV,
        source="environment",
    )
    bus = HookBus()
    bus.load_plugins(["limits"])
    [reported] = bus.plugin_errors
    # the error every plugin's options raise, not a file error re-wrapped
    assert type(reported.error) is PluginOptionError
    assert not isinstance(reported.error, LimitsConfigError)
    assert str(reported.error) == (
        "limits plugin: environment: AGENTHOOKS_LIMITS_CONFG: unknown option; did you mean "
        "'AGENTHOOKS_LIMITS_CONFIG'?"
    )
    response = await Agent("a", provider=ScriptedProvider(["never"]), bus=bus).chat("hi")
    assert response.finish_reason == "denied"
