"""``agenthooks.testing.assert_option_error``: the one check every plugin's options tests use."""

from __future__ import annotations

from typing import ClassVar

import pytest
from pydantic import Field
from pydantic_settings import SettingsConfigDict

from agenthooks.plugins import PluginOptionError, PluginSettings
from agenthooks.testing import assert_option_error


class Demo(PluginSettings):
    plugin: ClassVar[str] = "demo"
    model_config = SettingsConfigDict(env_prefix="AGENTHOOKS_DEMO_")

    attempts: int = Field(3, ge=1)


def test_it_returns_the_error_that_names_the_key_and_the_closest() -> None:
    error = assert_option_error(
        lambda: Demo.of(attemps=2),
        key="attemps",
        closest="attempts",
        source="arguments",
        says="unknown option",
    )
    assert isinstance(error, PluginOptionError) and error.plugin == "demo"


def test_the_environment_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTHOOKS_DEMO_ATTEMPTS", "0")
    assert_option_error(
        Demo.from_env,
        key="AGENTHOOKS_DEMO_ATTEMPTS",
        source="environment",
        says="'0': Input should be greater than or equal to 1",
    )


@pytest.mark.parametrize(
    ("make", "expect", "message"),
    [
        (lambda: Demo.of(attempts=2), {"key": "attempts"}, "expected a PluginOptionError"),
        (lambda: Demo.of(attempts=0), {"key": "tries"}, "the error names 'attempts', not"),
        (
            lambda: Demo.of(attemps=2),
            {"key": "attemps", "closest": "tries"},
            "the error does not suggest 'tries'",
        ),
        (
            lambda: Demo.of(attempts=0),
            {"key": "attempts", "source": "environment"},
            "the error's source is 'arguments', not 'environment'",
        ),
        (
            lambda: Demo.of(attempts=0),
            {"key": "attempts", "says": "too many"},
            "the error does not say 'too many'",
        ),
    ],
)
def test_a_mismatch_fails_saying_what_differs(
    make: object, expect: dict[str, str], message: str
) -> None:
    with pytest.raises(AssertionError, match=message):
        assert_option_error(make, **expect)  # type: ignore[arg-type]


def test_another_exception_is_not_swallowed() -> None:
    def broken() -> None:
        raise RuntimeError("not an option error")

    with pytest.raises(RuntimeError, match="not an option error"):
        assert_option_error(broken, key="x")
