"""The one options helper every plugin distribution declares its options with."""

from __future__ import annotations

from typing import ClassVar

import pytest
from pydantic import Field
from pydantic_settings import SettingsConfigDict

from agenthooks.errors import ConfigError
from agenthooks.plugins import CommaList, PluginOptionError, PluginSettings


class RetryLike(PluginSettings):
    plugin: ClassVar[str] = "retry"
    model_config = SettingsConfigDict(env_prefix="AGENTHOOKS_RETRY_")

    attempts: int = Field(3, ge=1)
    max_time: float | None = None
    stacks: CommaList = ("provider",)


def test_options_in_code_are_validated_and_defaults_fill_the_rest() -> None:
    options = RetryLike.of(attempts=5, stacks=["tool"])
    assert (options.attempts, options.max_time, options.stacks) == (5, None, ("tool",))


def test_the_environment_sets_options_with_comma_lists(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTHOOKS_RETRY_ATTEMPTS", "4")
    monkeypatch.setenv("AGENTHOOKS_RETRY_STACKS", "provider, tool")
    monkeypatch.setenv("AGENTHOOKS_RETRY_MAX_TIME", "")  # empty counts as unset
    options = RetryLike.from_env()
    assert (options.attempts, options.max_time, options.stacks) == (4, None, ("provider", "tool"))


def test_the_code_path_never_reads_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTHOOKS_RETRY_ATTEMPTS", "9")
    assert RetryLike.of().attempts == 3


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {"attemps": 3},
            "retry plugin: arguments: attemps: unknown option; did you mean 'attempts'?",
        ),
        (
            {"attempts": 0},
            "retry plugin: arguments: attempts: 0: Input should be greater than or equal to 1",
        ),
        (
            {"zzz": 1},
            "retry plugin: arguments: zzz: unknown option; valid: attempts, max_time, stacks",
        ),
    ],
)
def test_a_bad_option_in_code_names_the_key(options: dict[str, object], message: str) -> None:
    with pytest.raises(PluginOptionError) as info:
        RetryLike.of(**options)
    assert str(info.value) == message
    assert isinstance(info.value, ConfigError)


def test_a_bad_or_mistyped_variable_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTHOOKS_RETRY_ATTEMPTS", "x")
    with pytest.raises(PluginOptionError) as info:
        RetryLike.from_env()
    assert str(info.value) == (
        "retry plugin: environment: AGENTHOOKS_RETRY_ATTEMPTS: 'x': Input should be a valid "
        "integer, unable to parse string as an integer"
    )
    monkeypatch.setenv("AGENTHOOKS_RETRY_ATTEMPTS", "2")
    monkeypatch.setenv("AGENTHOOKS_RETRY_ATEMPTS", "2")
    with pytest.raises(PluginOptionError) as info:
        RetryLike.from_env()
    assert (info.value.source, info.value.key, info.value.problem) == (
        "environment",
        "AGENTHOOKS_RETRY_ATEMPTS",
        "unknown option; did you mean 'AGENTHOOKS_RETRY_ATTEMPTS'?",
    )
