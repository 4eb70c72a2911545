"""The guard's one variable, through the shared settings helper: a good one loads the policy,
a mistyped one fails the guard closed naming the closest variable (a ``PluginOptionError``,
as every plugin's options raise; a policy that does not load is a ``GuardConfigError``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from agenthooks_guard import POLICY_ENV, Guard, GuardConfigError, GuardSettings

from agenthooks import Agent, HookBus, ScriptedProvider
from agenthooks.plugins import PluginOptionError, entry_points
from agenthooks.testing import assert_option_error


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith("AGENTHOOKS_GUARD_"):
            monkeypatch.delenv(name)


def test_the_entry_point_is_the_public_class() -> None:
    [ep] = [ep for ep in entry_points() if ep.name == "guard"]
    assert (ep.value, ep.load()) == ("agenthooks_guard:Guard", Guard)


def test_from_env_loads_the_named_policy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "policy.toml"
    path.write_text('default = "deny"\n')
    monkeypatch.setenv(POLICY_ENV, str(path))
    guard = Guard.from_env()
    assert (guard.config_error, guard.policy.default, guard.policy.source) == (
        None,
        "deny",
        str(path),
    )
    assert Guard.from_env(name="site").name == "site"


async def test_a_mistyped_variable_fails_closed_naming_the_closest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AGENTHOOKS_GUARD_POLICIES", "policy.toml")
    assert_option_error(
        GuardSettings.from_env,
        key="AGENTHOOKS_GUARD_POLICIES",
        closest=POLICY_ENV,
        source="environment",
    )
    guard = Guard.from_env()
    # the error every plugin's options raise, not a policy error re-wrapped
    assert type(guard.config_error) is PluginOptionError
    assert not isinstance(guard.config_error, GuardConfigError)
    assert (guard.config_error.plugin, guard.config_error.key) == (
        "guard",
        "AGENTHOOKS_GUARD_POLICIES",
    )
    message = (
        "guard plugin: environment: AGENTHOOKS_GUARD_POLICIES: unknown option; did you mean "
        "'AGENTHOOKS_GUARD_POLICY'?"
    )
    assert str(guard.config_error) == message
    bus = HookBus()
    bus.use(guard)
    response = await Agent("a", provider=ScriptedProvider(["never"]), bus=bus).chat("hi")
    assert response.finish_reason == "denied"
    assert response.content.endswith(message)
