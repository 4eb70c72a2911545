"""The plugin's scalar options through the shared settings helper: in code, from the
environment (``AgentHooksSpec.from_env``), and a bad or mistyped one named."""

from __future__ import annotations

import os

import pytest
from agent_hooks import EnforcementMode
from agenthooks_agent_hooks_spec import AgentHooksSpec
from spec_helpers import Policy

from agenthooks.testing import assert_option_error

ENV = "AGENTHOOKS_AGENT_HOOKS_SPEC_"


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(ENV):
            monkeypatch.delenv(name)


def test_the_environment_sets_mode_timeout_and_incremental_output(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    default = AgentHooksSpec.from_env([Policy()])
    assert (default.mode, default.incremental_output) == (EnforcementMode.ENFORCE, False)
    monkeypatch.setenv(ENV + "MODE", "evaluate_only")
    monkeypatch.setenv(ENV + "TIMEOUT", "none")
    monkeypatch.setenv(ENV + "INCREMENTAL_OUTPUT", "true")
    spec = AgentHooksSpec.from_env({"audit": Policy()})
    assert (spec.mode, spec.incremental_output) == (EnforcementMode.EVALUATE_ONLY, True)
    assert len(spec.middleware) == 1


def test_bad_options_name_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    assert_option_error(
        lambda: AgentHooksSpec([Policy()], mode="audit"),
        key="mode",
        source="AgentHooksSpec",
        says="'audit': Input should be 'enforce' or 'evaluate_only'",
    )
    assert_option_error(
        lambda: AgentHooksSpec([Policy()], timeout=0),
        key="timeout",
        says="0: Input should be greater than 0",
    )
    monkeypatch.setenv(ENV + "MODES", "enforce")
    assert_option_error(
        lambda: AgentHooksSpec.from_env([Policy()]),
        key=ENV + "MODES",
        closest=ENV + "MODE",
        source="environment",
    )
