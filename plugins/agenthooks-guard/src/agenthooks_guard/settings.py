"""The guard's options, declared once: the environment names the TOML policy file
(``AGENTHOOKS_GUARD_POLICY``); the policy itself is a ``Policy`` or that file."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from pydantic_settings import SettingsConfigDict

from agenthooks import ConfigError
from agenthooks.plugins import PluginOptionError, PluginSettings

POLICY_ENV = "AGENTHOOKS_GUARD_POLICY"
"""The environment variable naming the policy file ``Guard.from_env()`` reads."""


class GuardConfigError(ConfigError):
    """A policy is invalid: ``policy.toml: rules[2].action: 'alow' is not one of allow, deny, ask``.

    ``source`` is the file (``None`` for a policy built in code, ``environment`` for a bad
    variable), ``key`` the dotted path of the bad value (``rules[2].action``, 0-based
    indexes) or the variable, ``line`` / ``column`` the position of a TOML syntax error,
    ``problem`` what is wrong.
    """


class GuardSettings(PluginSettings):
    """``policy``: the TOML policy file (``AGENTHOOKS_GUARD_POLICY``); unset: a guard that
    allows everything and redacts nothing."""

    plugin: ClassVar[str] = "guard"
    model_config = SettingsConfigDict(env_prefix="AGENTHOOKS_GUARD_")

    policy: Path | None = None

    @classmethod
    def read(cls) -> GuardSettings:
        """``from_env()``, its errors as ``GuardConfigError`` (what fails the guard closed).

        Raises:
            GuardConfigError: Naming the variable that is unknown or bad.
        """
        try:
            return cls.from_env()
        except PluginOptionError as exc:
            raise GuardConfigError(exc.problem, source=exc.source, key=exc.key) from None


__all__ = ["POLICY_ENV", "GuardConfigError", "GuardSettings"]
