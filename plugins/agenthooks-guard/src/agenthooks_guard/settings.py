"""The guard's options, declared once: the environment names the TOML policy file
(``AGENTHOOKS_GUARD_POLICY``); the policy itself is a ``Policy`` or that file.

A bad or unknown variable is the ``PluginOptionError`` every plugin's options raise; a policy
that does not load is a ``GuardConfigError`` naming the file and the key. Both are
``agenthooks.ConfigError``s, and from the environment neither fails the guard open."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from pydantic_settings import SettingsConfigDict

from agenthooks import ConfigError
from agenthooks.plugins import PluginSettings

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


__all__ = ["POLICY_ENV", "GuardConfigError", "GuardSettings"]
